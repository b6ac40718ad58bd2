/* pipewire.c — isobench --audio pipewire: the client through pw-jack in
 * the PipeWire graph of the environment, the quantum forced if asked,
 * and PipeWire's profiler read for the window: in how many cycles of its
 * driver our node's status was not "finished" when the cycle ended (what
 * tests/integration/desktop/xrun_one.sh counted from pw-profiler's log).
 * PipeWire 0.3.65's "client too slow" log lines are rate-limited and its
 * JACK xrun callback stays silent under overload: neither counts. */
#include <stdio.h>
#include <stdlib.h>

#ifdef ISOBENCH_HAVE_PIPEWIRE
#include "common/clock.h"
#include "graph.h"
#include "prof_count.h"
#endif
#include "window.h"

#ifdef ISOBENCH_HAVE_PIPEWIRE
/* the quantum settles, and the graph restarts at it, within this */
#define SETTLE_S 0.5
/* the profiler sends a cycle's record right after it, from PipeWire's
 * main loop: this is ample */
#define TAIL_S 0.3

/* ISOBENCH_DEBUG: every record of the window on stderr, then counted */
static void debug_feed(const struct prof_cycle *cy, void *ctx)
{
	const struct prof_count *pc = ctx;

	fprintf(stderr, "record driver %u counter %lld nsec %lld quantum %llu xruns %lld:",
		cy->driver_id, (long long)cy->counter, (long long)(cy->nsec - pc->from_ns),
		(unsigned long long)cy->quantum, (long long)cy->xruns);
	for (int i = 0; i < cy->nfollowers; i++)
		fprintf(stderr, " %u %s %d", cy->f[i].id, cy->f[i].name, cy->f[i].status);
	fprintf(stderr, "\n");
	prof_count_feed(cy, ctx);
}

static void take_counts(const struct prof_count *pc, struct audio_result *r)
{
	r->cycles = pc->cycles;
	r->unfinished = pc->unfinished;
	for (int s = 0; s < AUDIO_STATUSES; s++)
		r->by_status[s] = pc->by_status[s];
	r->graph_cycles = pc->graph_cycles;
	r->late_cycles = pc->late_cycles;
	r->driver_xruns = prof_count_driver_xruns(pc);
	r->missing = prof_count_missing(pc);
	if (pc->quantum)
		r->quantum = (unsigned)pc->quantum;
	if (pc->rate)
		r->rate = pc->rate;
}

int audio_run_pipewire(const struct audio_opts *o, struct audio_result *r)
{
	const volatile bool *stop = window_stop_flag();
	struct graph *g;
	struct prof_count pc;
	prof_cycle_fn *feed;
	int64_t from, to;
	int rc = -1;

	if (graph_open(&g, r->note, sizeof(r->note)) < 0)
		return -1;
	if (o->quantum && (graph_force_quantum(g, o->quantum, r->note, sizeof(r->note)) < 0 ||
			   graph_run(g, SETTLE_S, NULL, NULL, stop) < 0))
		goto out;
	if (window_client_begin(o, r) < 0)
		goto out;
	if (o->quantum && r->quantum != o->quantum)
		fprintf(stderr, "isobench: the client runs at quantum %u, not the forced %u"
			" (clock.min-quantum/max-quantum?)\n", r->quantum, o->quantum);
	graph_run(g, o->warmup_s, NULL, NULL, stop);
	window_open(r);
	prof_count_init(&pc, r->client);
	from = (int64_t)bench_clock_ns(CLOCK_MONOTONIC);
	prof_count_window(&pc, from, from + (int64_t)(o->seconds * 1e9));
	feed = getenv("ISOBENCH_DEBUG") ? debug_feed : prof_count_feed;
	if (graph_run(g, o->seconds, feed, &pc, stop) < 0)
		snprintf(r->note, sizeof(r->note), "PipeWire went away during the run");
	/* stopped early: the window ends now */
	to = (int64_t)bench_clock_ns(CLOCK_MONOTONIC);
	prof_count_window(&pc, from, to);
	r->seconds = (double)(to - from) / 1e9;
	window_client_end(r);
	/* the window's last records are still on their way */
	if (!r->note[0])
		graph_run(g, TAIL_S, feed, &pc, NULL);
	if (r->note[0])
		goto out;
	if (!pc.found) {
		snprintf(r->note, sizeof(r->note), "PipeWire's profiler never listed the node '%s':"
			 " is isobench running under pw-jack?", r->client);
		goto out;
	}
	take_counts(&pc, r);
	rc = 0;
out:
	graph_close(g);
	return rc;
}
#else
int audio_run_pipewire(const struct audio_opts *o, struct audio_result *r)
{
	(void)o;
	snprintf(r->note, sizeof(r->note), "%s", audio_missing(AUDIO_PIPEWIRE));
	return -1;
}
#endif
