/* prof_decode.c — PipeWire's profiler records, decoded (prof_decode.h).
 *
 * The layout is spa/param/profiler.h's, as module-profiler fills it; the
 * fields later PipeWire versions appended are read as optional, so that
 * one decoder reads 0.3.65 (Debian 12) and newer daemons alike:
 *   info           (Long counter, Float load x3 [, Int xrun count: 0.3.65])
 *   clock          (Int flags, Int id, String name, Long nsec,
 *                   Fraction rate, Long position, Long duration, ...)
 *   driverBlock    (Int id, String name, Long prev_signal, Long signal,
 *                   Long awake, Long finish, Int status, Fraction latency
 *                   [, Int xrun count: newer versions])
 *   followerBlock  the same fields, one per node the driver ran. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <spa/param/profiler.h>
#include <spa/pod/iter.h>
#include <spa/pod/parser.h>
#include <spa/utils/type.h>

#include "prof_decode.h"

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, PROF_NAME_MAX, "%s", src ? src : "");
}

static int decode_info(const struct spa_pod *v, struct prof_cycle *c)
{
	float load[3];
	int32_t xruns = -1;
	int r;

	r = spa_pod_parse_struct(v, SPA_POD_Long(&c->counter), SPA_POD_Float(&load[0]),
				 SPA_POD_Float(&load[1]), SPA_POD_Float(&load[2]),
				 SPA_POD_OPT_Int(&xruns));
	if (r < 0)
		return r;
	c->have_counter = true;
	if (xruns >= 0)
		c->xruns = xruns;
	return 0;
}

static int decode_clock(const struct spa_pod *v, struct prof_cycle *c)
{
	int32_t flags, id;
	const char *name = NULL;
	int64_t nsec, position, duration;
	struct spa_fraction rate = { 0, 0 };
	int r;

	r = spa_pod_parse_struct(v, SPA_POD_Int(&flags), SPA_POD_Int(&id),
				 SPA_POD_String(&name), SPA_POD_Long(&nsec),
				 SPA_POD_Fraction(&rate), SPA_POD_Long(&position),
				 SPA_POD_Long(&duration));
	if (r < 0)
		return r;
	c->have_clock = true;
	c->nsec = nsec;
	c->quantum = duration > 0 ? (uint64_t)duration : 0;
	c->rate = rate.denom;
	return 0;
}

/* A driverBlock or a followerBlock: the same fields. */
static int decode_block(const struct spa_pod *v, uint32_t *id, char *name, int32_t *status,
			int64_t *xruns)
{
	const char *n = NULL;
	int64_t prev_signal, signal, awake, finish;
	struct spa_fraction latency;
	int32_t x = -1, i;
	int r;

	r = spa_pod_parse_struct(v, SPA_POD_Int(&i), SPA_POD_String(&n),
				 SPA_POD_Long(&prev_signal), SPA_POD_Long(&signal),
				 SPA_POD_Long(&awake), SPA_POD_Long(&finish), SPA_POD_Int(status),
				 SPA_POD_Fraction(&latency), SPA_POD_OPT_Int(&x));
	if (r < 0)
		return r;
	*id = (uint32_t)i;
	copy_name(name, n);
	if (xruns && x >= 0)
		*xruns = x;
	return 0;
}

static int decode_follower(const struct spa_pod *v, struct prof_cycle *c)
{
	struct prof_follower f;
	int r;

	r = decode_block(v, &f.id, f.name, &f.status, NULL);
	if (r < 0 || c->nfollowers == PROF_MAX_FOLLOWERS)
		return r; /* past the limit: dropped, as pw-profiler does */
	c->f[c->nfollowers++] = f;
	return 0;
}

static int decode_object(const struct spa_pod *o, struct prof_cycle *c)
{
	struct spa_pod_prop *p;
	int32_t status;
	int r = 0;

	memset(c, 0, sizeof(*c));
	c->xruns = -1;
	SPA_POD_OBJECT_FOREACH((const struct spa_pod_object *)o, p) {
		switch (p->key) {
		case SPA_PROFILER_info:
			r = decode_info(&p->value, c);
			break;
		case SPA_PROFILER_clock:
			r = decode_clock(&p->value, c);
			break;
		case SPA_PROFILER_driverBlock:
			r = decode_block(&p->value, &c->driver_id, c->driver_name, &status,
					 &c->xruns);
			c->have_driver = r == 0;
			break;
		case SPA_PROFILER_followerBlock:
			r = decode_follower(&p->value, c);
			break;
		default: /* keys of later versions (followerClock...) */
			break;
		}
		if (r < 0)
			return r;
	}
	return c->have_driver ? 0 : -EINVAL;
}

int prof_decode_event(const struct spa_pod *event, prof_cycle_fn *each, void *ctx)
{
	struct prof_cycle c; /* 9 kB: the caller's thread has the stack */
	struct spa_pod *o;
	int n = 0;

	if (!spa_pod_is_struct(event))
		return -EINVAL;
	SPA_POD_STRUCT_FOREACH(event, o) {
		if (!spa_pod_is_object_type(o, SPA_TYPE_OBJECT_Profiler))
			continue;
		if (decode_object(o, &c) < 0)
			continue;
		each(&c, ctx);
		n++;
	}
	return n;
}
