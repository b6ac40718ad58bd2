/* prof_count.c — counting the profiler's records (prof_count.h).
 *
 * Our node is the first follower named c->name; from then on only that id
 * counts (a client of the same name that comes later is another node),
 * and only records of the driver that ran it: other drivers' cycles do
 * not involve it. Nor do records outside the window. A cycle whose record does not list our node (the
 * driver ran before the node joined, or after it left) is not counted:
 * PipeWire did not schedule it then. */
#include <stdio.h>
#include <string.h>

#include "prof_count.h"

void prof_count_init(struct prof_count *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->counter_first = c->counter_last = -1;
	c->xruns_first = c->xruns_last = -1;
	c->last_nsec = -1;
}

void prof_count_window(struct prof_count *c, int64_t from_ns, int64_t to_ns)
{
	c->from_ns = from_ns;
	c->to_ns = to_ns;
}

static bool in_window(const struct prof_count *c, const struct prof_cycle *cy)
{
	if (!c->from_ns && !c->to_ns)
		return true;
	return cy->have_clock && cy->nsec >= c->from_ns && cy->nsec <= c->to_ns;
}

static const struct prof_follower *ours(const struct prof_count *c, const struct prof_cycle *cy)
{
	for (int i = 0; i < cy->nfollowers; i++) {
		const struct prof_follower *f = &cy->f[i];

		if (c->found ? f->id == c->id : !strcmp(f->name, c->name))
			return f;
	}
	return NULL;
}

void prof_count_feed(const struct prof_cycle *cy, void *ctx)
{
	struct prof_count *c = ctx;
	const struct prof_follower *f;
	int s;

	if ((c->found && cy->driver_id != c->driver_id) || !in_window(c, cy))
		return;
	f = ours(c, cy);
	if (!c->found) {
		if (!f)
			return;
		c->found = true;
		c->id = f->id;
		c->driver_id = cy->driver_id;
	}
	c->driver_records++;
	if (cy->have_counter) {
		if (c->counter_first < 0)
			c->counter_first = cy->counter;
		c->counter_last = cy->counter;
	}
	if (cy->xruns >= 0) {
		if (c->xruns_first < 0)
			c->xruns_first = cy->xruns;
		c->xruns_last = cy->xruns;
	}
	if (cy->have_clock) {
		c->quantum = cy->quantum;
		c->rate = cy->rate;
	}
	if (!f)
		return;
	s = f->status >= 0 && f->status < PROF_UNKNOWN ? f->status : PROF_UNKNOWN;
	c->cycles++;
	c->by_status[s]++;
	if (s != PROF_FINISHED)
		c->unfinished++;
	/* the records of one cycle come one after another */
	if (!cy->have_clock || cy->nsec != c->last_nsec) {
		c->graph_cycles++;
		c->last_nsec = cy->have_clock ? cy->nsec : -1;
		c->last_late = false;
	}
	if (s != PROF_FINISHED && !c->last_late) {
		c->late_cycles++;
		c->last_late = true;
	}
}

int64_t prof_count_driver_xruns(const struct prof_count *c)
{
	if (c->xruns_first < 0)
		return -1;
	return c->xruns_last - c->xruns_first;
}

uint64_t prof_count_missing(const struct prof_count *c)
{
	int64_t span;

	if (c->counter_first < 0)
		return 0;
	span = c->counter_last - c->counter_first + 1;
	return span > (int64_t)c->driver_records ? (uint64_t)span - c->driver_records : 0;
}
