/* cli_reserve.c — `--reserve RUNTIME/PERIOD[/DEADLINE]` of isoctl run and
 * set (a declared reservation, iso_set_reservation), and how a thread's
 * reservation is named in its state. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One duration: a number and a unit (ns, us, ms, s; none: us, as chrt's
 * --sched-* options are in ns but cyclicdeadline's in us — so a unit is
 * best given). -EINVAL for anything else. */
static int parse_duration(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	double v;
	double mult = 1000.0;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf)
		return -EINVAL;
	if (!strcmp(end, "ns"))
		mult = 1.0;
	else if (!strcmp(end, "us") || !*end)
		mult = 1e3;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "s"))
		mult = 1e9;
	else
		return -EINVAL;
	v *= mult;
	if (!(v >= 1.0 && v <= 1e12))
		return -EINVAL;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

int cli_parse_reserve(const char *verb, const char *s, struct cli_reserve *out)
{
	const char *slash = strchr(s, '/'), *slash2 = slash ? strchr(slash + 1, '/') : NULL;

	memset(out, 0, sizeof(*out));
	if (!slash || parse_duration(s, (size_t)(slash - s), &out->runtime_ns) < 0 ||
	    parse_duration(slash + 1, slash2 ? (size_t)(slash2 - slash - 1) : strlen(slash + 1),
			   &out->period_ns) < 0 ||
	    (slash2 && parse_duration(slash2 + 1, strlen(slash2 + 1), &out->deadline_ns) < 0))
		return cli_usage_error(verb,
				       "--reserve wants RUNTIME/PERIOD[/DEADLINE] with units ns, us, ms or s (e.g. 1ms/5333us), not '%s'",
				       s);
	if (out->runtime_ns > out->period_ns ||
	    (out->deadline_ns && (out->runtime_ns > out->deadline_ns ||
				  out->deadline_ns > out->period_ns)))
		return cli_usage_error(verb, "--reserve %s: runtime <= deadline <= period", s);
	return 0;
}

const char *cli_reserve_state(const struct iso_thread_info *t)
{
	if (t->flags & ISO_THREAD_RESERVED)
		return ",reserved";
	if (!(t->flags & ISO_THREAD_RESERVE_FALLBACK))
		return "";
	switch (ISO_THREAD_RESERVE_WHY(t->flags)) {
	case ISO_RESERVE_WHY_AFFINITY: return ",fallback(affinity)";
	case ISO_RESERVE_WHY_KERNEL: return ",fallback(kernel-admission)";
	case ISO_RESERVE_WHY_BACKEND: return ",fallback(scx)";
	case ISO_RESERVE_WHY_REFUSED: return ",fallback(refused)";
	case ISO_RESERVE_WHY_CAP: return ",fallback(reserve_cpu)";
	default: return ",fallback";
	}
}
