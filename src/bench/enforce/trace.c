/* trace.c — ISOBENCH_DEBUG=1: the parent follows isod's enforcer thread
 * (the one running SCHED_FIFO) every ms — /proc schedstat: time run, time
 * waited runnable, timeslices — and the spinners' schedstat run time, and
 * explains an outlier reaction on stderr. The buffer is sized for each
 * trial (levels with a larger iso_cpu run longer trials). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/procfs.h"
#include "spin.h"

struct trace_point {
	uint64_t t, run, wait, slices;
	uint64_t spin; /* the spinners' schedstat run time, summed */
};

struct tracer {
	struct trace_point *p;
	size_t n, cap;
	pid_t isod, enforcer, spin_pid;
	const struct spin_shared *sh;
};

struct tracer *tracer_new(void)
{
	return calloc(1, sizeof(struct tracer));
}

void tracer_free(struct tracer *t)
{
	if (t)
		free(t->p);
	free(t);
}

int tracer_start(struct tracer *t, double max_s, pid_t isod, pid_t spin_pid,
		 const struct spin_shared *sh)
{
	size_t cap = (size_t)(max_s + 6) * 1000;

	if (cap > t->cap) {
		struct trace_point *p = realloc(t->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->p = p;
		t->cap = cap;
	}
	t->n = 0;
	t->isod = isod;
	t->enforcer = procfs_fifo_thread(isod);
	t->spin_pid = spin_pid;
	t->sh = sh;
	return 0;
}

void tracer_poll(void *arg)
{
	struct tracer *t = arg;
	struct trace_point *x;
	struct schedstat ss;

	if (t->n >= t->cap || t->enforcer <= 0 ||
	    procfs_schedstat(t->isod, t->enforcer, &ss) < 0)
		return;
	x = &t->p[t->n++];
	x->t = bench_clock_ns(CLOCK_MONOTONIC);
	x->run = ss.run_ns;
	x->wait = ss.wait_ns;
	x->slices = ss.slices;
	x->spin = 0;
	for (int i = 0; i < t->sh->n; i++) {
		int64_t v = procfs_run_ns(t->spin_pid, atomic_load(&t->sh->sp[i].tid));

		if (v > 0)
			x->spin += (uint64_t)v;
	}
}

/* the spinners' CPU time since the first poll as /proc showed it at time at */
static uint64_t spin_at(const struct tracer *t, uint64_t at)
{
	uint64_t v = 0, base = t->p[0].spin;

	for (size_t i = 0; i < t->n && t->p[i].t <= at; i++)
		v = t->p[i].spin;
	return v > base ? v - base : 0;
}

/* the enforcer from the first grant to the demotion */
static void explain_enforcer(const struct tracer *t, int L, double react_ms,
			     uint64_t from, uint64_t to)
{
	uint64_t gap = 0, gap_at = 0, last_t = 0, last_sl = 0;
	uint64_t w0 = 0, w1 = 0, r0 = 0, r1 = 0;
	bool have = false;

	for (size_t i = 0; i < t->n; i++) {
		const struct trace_point *x = &t->p[i];

		if (x->t < from || x->t > to)
			continue;
		if (!have) {
			have = true;
			last_t = x->t;
			last_sl = x->slices;
			w0 = x->wait;
			r0 = x->run;
		}
		if (x->slices != last_sl) {
			last_sl = x->slices;
			last_t = x->t;
		} else if (x->t - last_t > gap) {
			gap = x->t - last_t;
			gap_at = last_t;
		}
		w1 = x->wait;
		r1 = x->run;
	}
	fprintf(stderr, "isobench: debug: iso_cpu %d reaction %.1f ms: enforcer"
			" %d from the first grant to the demotion: longest"
			" stretch without being scheduled %.1f ms (from %.1f ms"
			" after the grant), waited runnable %.1f ms, ran %.3f ms\n",
		L, react_ms, (int)t->enforcer, (double)gap / 1e6,
		gap_at > from ? (double)(gap_at - from) / 1e6 : 0.0,
		(double)(w1 - w0) / 1e6, (double)(r1 - r0) / 1e6);
}

void tracer_explain(const struct tracer *t, int L, double react_ms,
		    uint64_t from, uint64_t to, uint64_t cross)
{
	const struct spin_shared *sh = t->sh;
	uint64_t own = 0;
	int k;

	explain_enforcer(t, L, react_ms, from, to);
	if (!t->n)
		return;
	/* what /proc said about the spinners vs what their own clocks said */
	k = (int)((cross - sh->t0_ns) / GRID_NS);
	for (int i = 0; i < sh->n; i++) {
		const struct spinner *sp = &sh->sp[i];

		own += sp->cpu[k < sp->last_k ? k : sp->last_k];
	}
	fprintf(stderr, "isobench: debug:   at the model's crossing the"
			" spinners' own clocks say %.1f ms of CPU since"
			" the grant, /proc schedstat %.1f ms since the"
			" first poll (%.1f ms after t0)\n",
		(double)own / 1e6, (double)spin_at(t, cross) / 1e6,
		(double)(t->p[0].t - sh->t0_ns) / 1e6);
}
