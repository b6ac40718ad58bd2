/* libFuzzer target: any text as /proc content, a state-file line or a
 * configuration file. Parsers must reject or accept, never crash, and a
 * refused configuration must leave the old one untouched. The same bytes
 * as what the BPF accounting reads from its maps and ring buffer: the
 * checks never crash, and a thread's CPU time never goes backwards. */
#include <errno.h>
#include <ini.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accounting.h"
#include "accounting_check.h"
#include "config.h"
#include "iso_rule.h"
#include "log.h"
#include "procinfo.h"
#include "statefile.h"

/* data as map values (accounting_check.h) */
static void map_values(const uint8_t *data, size_t size)
{
	struct acct_thread t;
	struct acct_stray s;
	struct acct_cpu cpus[8];
	struct acct_event ev;
	uint64_t now, prev, cpu, sum;
	size_t n = size / sizeof(cpus[0]);

	if (size >= sizeof(t) + 2 * sizeof(uint64_t)) {
		memcpy(&t, data, sizeof(t));
		memcpy(&now, data + sizeof(t), sizeof(now));
		memcpy(&prev, data + sizeof(t) + sizeof(now), sizeof(prev));
		if (acct_thread_cpu(&t, now, prev, &cpu) == 0 && cpu < prev)
			abort(); /* time ran backwards */
	}
	if (size >= sizeof(s)) {
		memcpy(&s, data, sizeof(s));
		/* a stray isod acts on is a user's thread, kernel RT as the
		 * rule says (iso_rule.h): FIFO/RR 1..99 or DEADLINE */
		if (acct_stray_valid(&s) &&
		    (!s.uid || !s.tid || !iso_rule_kernel_rt((int)s.policy, (int)s.prio) ||
		     (s.policy != 6 && (s.prio < 1 || s.prio > 99))))
			abort();
	}
	if (size >= sizeof(ev)) {
		memcpy(&ev, data, sizeof(ev));
		/* the slot indexes isod's table: never past it */
		if (acct_event_valid(&ev, 1024) && (ev.slot >= 1024 || !ev.tid ||
						    (ev.kind != ACCT_EV_WAKE && ev.kind != ACCT_EV_EXIT)))
			abort();
		(void)acct_start_ticks(ev.start_ns, (long)(int32_t)ev.pad);
	}
	if (n > 8)
		n = 8;
	memcpy(cpus, data, n * sizeof(cpus[0]));
	(void)acct_band_sum(cpus, n, &sum);
}

/* The state log's replay, on the raw bytes (NULs, no final newline). */
static void state_log(const uint8_t *data, size_t size)
{
	struct state_line *live = NULL;
	size_t n = 0;
	bool torn;

	if (statefile_parse_log((const char *)data, size, &live, &n, &torn) != -ENOMEM) {
		for (size_t i = 0; i < n; i++)
			if (live[i].tid <= 0 || live[i].limit > 100)
				__builtin_trap(); /* a live record is a validated one */
	}
	free(live);
}

static int on_line(void *user, const char *section, const char *key, const char *value)
{
	const char *why;

	(void)section;
	config_set(user, key, value, &why);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct thread_status st;
	struct state_line sl;
	struct isod_config c;
	const char *why;
	uint64_t v;
	int cpu;
	struct rt_limits lim;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	log_setup(LOG_EMERG, false);
	(void)parse_status_buf(s, &st);
	(void)parse_stat_starttime(s, &v);
	(void)parse_stat_processor(s, &cpu);
	(void)parse_schedstat_buf(s, &v);
	(void)parse_limits_buf(s, &lim);
	(void)statefile_parse_line(s, &sl);
	(void)statefile_parse_record(s, &sl);
	state_log(data, size);
	config_defaults(&c);
	(void)ini_parse_string(s, on_line, &c);
	/* whatever the file said, validation decides; no crash either way */
	(void)config_validate(&c, &why);
	free(s);
	map_values(data, size);
	return 0;
}
