/* The burst guard (iso_burst.h, issue 17), on traces
 * built like /proc reports them: schedstat's CPU time of a running
 * thread lags to the last 4 ms tick, a wait for a CPU is counted only
 * once it ends, the voluntary switch count steps when the thread blocks.
 * Reads are jittered; every figure asserted is the worst over all runs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "iso_burst.h"

#define MS 1000000LL
#define SEC 1000000000LL
#define TICK (4 * MS)
#define BURST (200 * MS)

/* ---- a thread as /proc shows it ---------------------------------------- */

enum seg_kind { RUN, WAIT, SLEEP };
struct seg {
	enum seg_kind kind;
	int64_t len;
};

/* Before `from` the thread sleeps; from then on it repeats segs. */
struct model {
	const struct seg *segs;
	size_t n;
	int64_t from;
	size_t i;          /* current segment */
	int64_t seg_start; /* of the current segment */
	uint64_t cpu, wait, nv; /* of the completed segments */
	bool exact;        /* reads carry the block point (BPF accounting) */
	uint64_t block_cpu; /* cpu at the last block */
};

static void model_init(struct model *m, const struct seg *segs, size_t n, int64_t from)
{
	*m = (struct model){ .segs = segs, .n = n, .from = from, .seg_start = from, .nv = 1 };
}

/* The counters at t (t never goes back). */
static void model_read(struct model *m, int64_t t, struct iso_burst_sample *s, uint64_t *nv)
{
	*s = (struct iso_burst_sample){ .now_ns = t, .has_block = m->exact };
	if (t < m->from) {
		*nv = m->nv;
		return;
	}
	while (m->seg_start + m->segs[m->i].len <= t) {
		const struct seg *g = &m->segs[m->i];

		if (g->kind == RUN)
			m->cpu += (uint64_t)g->len;
		else if (g->kind == WAIT)
			m->wait += (uint64_t)g->len;
		m->seg_start += g->len;
		m->i = (m->i + 1) % m->n;
		if (m->segs[m->i].kind == SLEEP) {
			m->nv++; /* blocking is the voluntary switch */
			m->block_cpu = m->cpu;
		}
	}
	s->block_cpu_ns = m->block_cpu;
	s->cpu_ns = m->cpu;
	s->wait_ns = m->wait;
	if (m->segs[m->i].kind == RUN) {
		int64_t tick = t / TICK * TICK; /* update_curr at the last tick */
		/* BPF's is exact: the sum at the last switch plus the time
		 * on the CPU since */
		if (m->exact)
			s->cpu_ns += (uint64_t)(t - m->seg_start);
		else if (tick > m->seg_start)
			s->cpu_ns += (uint64_t)(tick - m->seg_start);
	}
	*nv = m->nv;
}

/* A deterministic jitter, so every run is the same. */
static uint32_t rng = 12345;
static int64_t jitter(int64_t span)
{
	rng = rng * 1103515245u + 12345u;
	return (int64_t)((rng >> 8) % (uint32_t)(2 * span + 1)) - span;
}

struct run_result {
	unsigned demotions, restores, nv_reads, reads;
	int64_t first_demotion; /* -1 if none */
	int64_t restore_at[64];
	int64_t demote_at[64];
};

/* Read the model every period_ns (± jitter) until end_ns. */
static void run(struct model *m, int64_t burst, int64_t period, int64_t jit,
		int64_t end, struct run_result *r)
{
	struct iso_burst b;
	int64_t t = 0;

	iso_burst_init(&b);
	*r = (struct run_result){ .first_demotion = -1 };
	while (t < end) {
		struct iso_burst_sample s;
		uint64_t nv;
		bool want;
		int c;

		model_read(m, t, &s, &nv);
		want = iso_burst_wants_nv(&b, burst, &s);
		r->nv_reads += want;
		r->reads++;
		c = iso_burst_feed(&b, burst, &s, want, nv);
		assert_true(c >= 0);
		if (c == ISO_BURST_DEMOTE) {
			if (r->first_demotion < 0)
				r->first_demotion = t;
			if (r->demotions < 64)
				r->demote_at[r->demotions] = t;
			r->demotions++;
		} else if (c == ISO_BURST_RESTORE) {
			if (r->restores < 64)
				r->restore_at[r->restores] = t;
			r->restores++;
		}
		t += period + (jit ? jitter(jit) : 0);
	}
}

static const struct seg spin[] = { { RUN, 1000 * SEC } };

/* A thread that spins from `from` on is demoted once it has run burst_ms,
 * within two reads: for every phase of its start against reads and ticks. */
static void test_spinner_demoted_within_burst(void **state)
{
	int64_t worst = 0;

	(void)state;
	for (int64_t from = 0; from < 40 * MS; from += 700000) {
		struct model m;
		struct run_result r;

		model_init(&m, spin, 1, from);
		run(&m, BURST, 10 * MS, 3 * MS, from + 2 * SEC / 2, &r);
		assert_true(r.first_demotion >= 0);
		assert_true(r.first_demotion - from >= BURST); /* never early */
		if (r.first_demotion - from > worst)
			worst = r.first_demotion - from;
	}
	printf("# spinner: demoted at worst %.1f ms after it began\n", (double)worst / MS);
	/* the run is counted from the first read that sees it (up to one
	 * read late), then read up to one read after the crossing, plus
	 * the tick lag */
	assert_true(worst <= BURST + 2 * 13 * MS + TICK);
}

/* A thread read seldom (isod's cold schedule, every 50 ms) before it
 * starts spinning: demoted within burst + one cold interval + two reads. */
static void test_cold_spinner(void **state)
{
	static const struct seg quiet_then_spin[] = { { RUN, 1000 * SEC } };
	struct iso_burst b;
	int64_t worst = 0;

	(void)state;
	for (int64_t from = 300 * MS; from < 350 * MS; from += 1300000) {
		struct model m;
		int64_t t = 0, demoted = -1;

		iso_burst_init(&b);
		model_init(&m, quiet_then_spin, 1, from);
		while (demoted < 0 && t < 2 * SEC) {
			struct iso_burst_sample s;
			uint64_t nv;
			bool want;

			model_read(&m, t, &s, &nv);
			want = iso_burst_wants_nv(&b, BURST, &s);
			if (iso_burst_feed(&b, BURST, &s, want, nv) == ISO_BURST_DEMOTE)
				demoted = t;
			/* cold while it used < 1/8 of a CPU, as isod reads */
			t += (s.cpu_ns == 0 ? 50 * MS : 10 * MS);
		}
		assert_true(demoted >= 0);
		if (demoted - from > worst)
			worst = demoted - from;
	}
	printf("# cold spinner: demoted at worst %.1f ms after it began\n", (double)worst / MS);
	assert_true(worst <= BURST + 50 * MS + 2 * 10 * MS + TICK);
}

/* Periodic threads that block every period are never demoted, whatever
 * their duty; the switch count is read rarely. */
static void check_periodic(int64_t period, int duty_pct, unsigned max_reads_per_s)
{
	struct seg segs[2] = { { RUN, period * duty_pct / 100 },
			       { SLEEP, period - period * duty_pct / 100 } };
	unsigned worst_reads = 0;

	for (int64_t from = 0; from < 10 * MS; from += 1100000) {
		struct model m;
		struct run_result r;

		model_init(&m, segs, 2, from);
		run(&m, BURST, 10 * MS, 3 * MS, 10 * SEC, &r);
		assert_int_equal(r.demotions, 0);
		if (r.nv_reads > worst_reads)
			worst_reads = r.nv_reads;
	}
	printf("# period %.2f ms at %d %%: 0 demotions, at worst %u switch-count reads in 10 s\n",
	       (double)period / MS, duty_pct, worst_reads);
	assert_true(worst_reads <= 10 * max_reads_per_s);
}

static void test_periodic_never_demoted(void **state)
{
	(void)state;
	/* each read of the switch count costs isod ~10 us: at most 50 a
	 * second is 0.05 % of a CPU, only for threads busy half the time
	 * or more */
	check_periodic(1333333, 20, 0);
	check_periodic(1333333, 50, 50);
	check_periodic(1333333, 80, 20);
	check_periodic(1333333, 95, 10);
	check_periodic(170 * MS, 80, 15);
	check_periodic(170 * MS, 99, 10);
	check_periodic(10 * MS, 90, 15);
}

/* 99 ms of work, 1 ms of sleep: blocks every 100 ms, so it is not the
 * guard's (the stall cap is for it). */
static void test_ninety_nine_one(void **state)
{
	static const struct seg segs[] = { { RUN, 99 * MS }, { SLEEP, 1 * MS } };
	struct model m;
	struct run_result r;

	(void)state;
	model_init(&m, segs, 2, 0);
	run(&m, BURST, 10 * MS, 3 * MS, 20 * SEC, &r);
	assert_int_equal(r.demotions, 0);
}

/* Demoted, it blocks: ISO again at the first read that sees it. And a
 * thread that runs 199 ms between sleeps is never demoted. */
static void test_block_restores(void **state)
{
	static const struct seg segs[] = { { RUN, 300 * MS }, { SLEEP, 20 * MS } };
	static const struct seg just_under[] = { { RUN, 190 * MS }, { SLEEP, 2 * MS } };
	struct model m;
	struct run_result r;

	(void)state;
	model_init(&m, segs, 2, 0);
	run(&m, BURST, 10 * MS, 0, 3 * SEC, &r);
	assert_true(r.demotions >= 9);
	assert_int_equal(r.restores, r.demotions);
	for (unsigned i = 0; i < r.demotions && i < 64; i++) {
		int64_t cycle = r.demote_at[i] / (320 * MS) * (320 * MS);
		/* demoted in its 300 ms run after 200 ms of it, restored once
		 * the sleep at 300 ms is seen: once it has slept more than
		 * the counters' slack (10 ms), within two reads */
		assert_true(r.demote_at[i] - cycle >= BURST);
		assert_true(r.restore_at[i] > cycle + 300 * MS);
		assert_true(r.restore_at[i] <= cycle + 300 * MS + 2 * 10 * MS);
	}
	model_init(&m, just_under, 2, 0);
	run(&m, BURST, 10 * MS, 3 * MS, 10 * SEC, &r);
	assert_int_equal(r.demotions, 0);
}

/* One that never blocks: restored for a trial after 1 s, 2 s, 4 s, ...
 * up to 32 s; each trial ends within burst/16 and two reads. */
static void test_backoff_doubles(void **state)
{
	struct model m;
	struct run_result r;
	int64_t expect = ISO_BURST_BACKOFF_NS;

	(void)state;
	model_init(&m, spin, 1, 0);
	run(&m, BURST, 10 * MS, 0, 200 * SEC, &r);
	assert_true(r.restores >= 7);
	for (unsigned i = 0; i < r.restores && i + 1 < r.demotions; i++) {
		int64_t held = r.restore_at[i] - r.demote_at[i];
		int64_t trial = r.demote_at[i + 1] - r.restore_at[i];

		assert_true(held >= expect && held <= expect + 10 * MS);
		assert_true(trial <= BURST / ISO_BURST_TRIAL_DIV + 2 * 10 * MS + TICK);
		expect *= 2;
		if (expect > ISO_BURST_BACKOFF_MAX_NS)
			expect = ISO_BURST_BACKOFF_MAX_NS;
	}
	/* blocking once resets the back-off */
	{
		struct iso_burst b;
		struct iso_burst_sample s = { .now_ns = 0, .cpu_ns = 0, .wait_ns = 0 };

		iso_burst_init(&b);
		b.backoff_ns = 8 * SEC;
		b.phase = ISO_BURST_DEMOTED;
		b.has_prev = true;
		b.prev = s;
		b.start = s;
		b.nv = 3;
		s.now_ns = 100 * MS; /* slept all of it */
		assert_true(iso_burst_wants_nv(&b, BURST, &s));
		assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 4), ISO_BURST_RESTORE);
		assert_int_equal(b.backoff_ns, ISO_BURST_BACKOFF_NS);
	}
}

/* Two ISO_RR spinners sharing one CPU (100 ms slices): each has half a
 * CPU, never blocks, and is demoted after burst_ms of its own CPU time,
 * although its wait is counted only when it ends. */
static void test_rr_shared(void **state)
{
	static const struct seg segs[] = { { RUN, 100 * MS }, { WAIT, 100 * MS } };
	struct model m;
	struct run_result r;

	(void)state;
	model_init(&m, segs, 2, 0);
	run(&m, BURST, 10 * MS, 3 * MS, 2 * SEC, &r);
	assert_true(r.first_demotion >= 0);
	printf("# RR-shared spinner: demoted at %.0f ms\n", (double)r.first_demotion / MS);
	assert_true(r.first_demotion <= 2 * BURST + 100 * MS);
}

static void exact_run(struct model *m, int64_t period, int64_t end, struct run_result *r,
		      int64_t *worst_early);

/* Issue 32's victim: a band-ISO thread that higher ISO threads preempt
 * for 12 ms of every 20 (their bursts in step on every CPU). Always late,
 * it never sleeps; it waits 12 ms for each 8 it runs — starved, not
 * hogging: never demoted, with /proc's reads (every 10 ms, jittered) or
 * BPF's exact ones, whatever the phase. */
static void test_starved_victim(void **state)
{
	static const struct seg victim[] = { { WAIT, 12 * MS }, { RUN, 8 * MS } };
	static const struct seg shared[] = { { RUN, 8 * MS }, { WAIT, 12 * MS } };
	int64_t early = INT64_MAX;

	(void)state;
	for (int64_t from = 0; from < 20 * MS; from += 3 * MS) {
		struct model m;
		struct run_result r;

		model_init(&m, victim, 2, from);
		run(&m, BURST, 10 * MS, 3 * MS, 10 * SEC, &r);
		assert_int_equal(r.demotions, 0);
		model_init(&m, shared, 2, from);
		run(&m, BURST, 10 * MS, 3 * MS, 10 * SEC, &r);
		assert_int_equal(r.demotions, 0);
		model_init(&m, victim, 2, from);
		exact_run(&m, 10 * MS, 10 * SEC, &r, &early);
		assert_int_equal(r.demotions, 0);
	}
	printf("# starved victim (waits 12 ms of every 20): never demoted in 10 s\n");
}

/* Starved for a second, then the preempters stop and it spins on a CPU of
 * its own: demoted burst_ms after that (its streak began again while it
 * was starved, not at its last block), never before. */
static void test_starved_then_spinning(void **state)
{
	static struct seg segs[101];
	int64_t free_at = 50 * 20 * MS;

	(void)state;
	for (int i = 0; i < 100; i += 2) {
		segs[i] = (struct seg){ WAIT, 12 * MS };
		segs[i + 1] = (struct seg){ RUN, 8 * MS };
	}
	segs[100] = (struct seg){ RUN, 1000 * SEC };
	for (int exact = 0; exact < 2; exact++) {
		struct model m;
		struct run_result r;
		int64_t early = INT64_MAX;

		model_init(&m, segs, 101, 0);
		if (exact)
			exact_run(&m, 10 * MS, free_at + 2 * SEC, &r, &early);
		else
			run(&m, BURST, 10 * MS, 3 * MS, free_at + 2 * SEC, &r);
		assert_true(r.first_demotion >= free_at);
		printf("# starved, then spinning alone (%s): demoted %.1f ms after\n",
		       exact ? "exact" : "/proc", (double)(r.first_demotion - free_at) / MS);
		assert_true(r.first_demotion - free_at <= BURST + 2 * 13 * MS + TICK);
	}
}

/* Three ISO_RR spinners sharing one CPU: each waits 200 ms for every 100
 * it runs — the guard lets them be (starved); the stall cap and the
 * budget hold such a CPU (rule 18). Two stay suspects: test_rr_shared,
 * here with BPF's exact reads too. */
static void test_rr_three_and_two(void **state)
{
	static const struct seg three[] = { { RUN, 100 * MS }, { WAIT, 200 * MS } };
	static const struct seg two[] = { { RUN, 100 * MS }, { WAIT, 100 * MS } };
	struct model m;
	struct run_result r;
	int64_t early = INT64_MAX;

	(void)state;
	model_init(&m, three, 2, 0);
	run(&m, BURST, 10 * MS, 3 * MS, 5 * SEC, &r);
	assert_int_equal(r.demotions, 0);
	model_init(&m, two, 2, 0);
	exact_run(&m, 10 * MS, 2 * SEC, &r, &early);
	assert_true(r.first_demotion >= 0);
	assert_true(r.first_demotion <= 2 * BURST + 100 * MS);
}

/* Off: never demotes; switched off while demoted: restored. Bad input. */
static void test_off_and_input(void **state)
{
	struct model m;
	struct run_result r;
	struct iso_burst b;
	struct iso_burst_sample s = { .now_ns = 10 * MS, .cpu_ns = 10 * MS, .wait_ns = 0 };

	(void)state;
	model_init(&m, spin, 1, 0);
	run(&m, 0, 10 * MS, 3 * MS, 2 * SEC, &r);
	assert_int_equal(r.demotions, 0);
	assert_int_equal(r.nv_reads, 0);

	iso_burst_init(&b);
	assert_int_equal(iso_burst_feed(&b, -1, &s, false, 0), -EINVAL);
	assert_int_equal(iso_burst_feed(&b, BURST, NULL, false, 0), -EINVAL);
	b.phase = ISO_BURST_DEMOTED;
	assert_int_equal(iso_burst_feed(&b, 0, &s, false, 0), ISO_BURST_RESTORE);
	assert_false(iso_burst_demoted(&b));
	assert_int_equal(iso_burst_earliest_ns(&b, 0), INT64_MAX);

	/* time or counters going back: only a new baseline, no decision */
	iso_burst_init(&b);
	s = (struct iso_burst_sample){ .now_ns = 100 * MS, .cpu_ns = 100 * MS, .wait_ns = 0 };
	assert_int_equal(iso_burst_feed(&b, BURST, &s, false, 0), ISO_BURST_KEEP);
	s = (struct iso_burst_sample){ .now_ns = 50 * MS, .cpu_ns = 900 * MS, .wait_ns = 0 };
	assert_false(iso_burst_wants_nv(&b, BURST, &s));
	assert_int_equal(iso_burst_feed(&b, BURST, &s, false, 0), ISO_BURST_KEEP);
	s = (struct iso_burst_sample){ .now_ns = 400 * MS, .cpu_ns = 10 * MS, .wait_ns = 0 };
	assert_false(iso_burst_wants_nv(&b, BURST, &s));
	assert_int_equal(iso_burst_feed(&b, BURST, &s, false, 0), ISO_BURST_KEEP);
	assert_false(iso_burst_demoted(&b));
}

/* The switch count cannot be read: no demotion without it. */
static void test_no_proof_no_demotion(void **state)
{
	struct iso_burst b;
	struct model m;

	(void)state;
	iso_burst_init(&b);
	model_init(&m, spin, 1, 0);
	for (int64_t t = 0; t < 3 * SEC; t += 10 * MS) {
		struct iso_burst_sample s;
		uint64_t nv;

		model_read(&m, t, &s, &nv);
		assert_int_equal(iso_burst_feed(&b, BURST, &s, false, 0), ISO_BURST_KEEP);
	}
}

/* iso_burst_earliest_ns is a true lower bound: no demotion comes before
 * the earliest time computed at the read before. */
static void test_earliest_is_lower_bound(void **state)
{
	static const struct seg segs[] = { { RUN, 250 * MS }, { SLEEP, 3 * MS },
					   { RUN, 120 * MS }, { WAIT, 30 * MS } };
	struct iso_burst b;
	struct model m;
	int64_t t = 0, earliest;
	unsigned demotions = 0;

	(void)state;
	iso_burst_init(&b);
	model_init(&m, segs, 4, 5 * MS);
	earliest = iso_burst_earliest_ns(&b, BURST);
	assert_int_equal(earliest, BURST - ISO_BURST_SLACK_NS);
	while (t < 20 * SEC) {
		struct iso_burst_sample s;
		uint64_t nv;
		bool want;
		int c;

		model_read(&m, t, &s, &nv);
		want = iso_burst_wants_nv(&b, BURST, &s);
		c = iso_burst_feed(&b, BURST, &s, want, nv);
		if (c == ISO_BURST_DEMOTE) {
			assert_true(t >= earliest);
			demotions++;
		}
		earliest = iso_burst_earliest_ns(&b, BURST);
		assert_true(earliest >= t || b.phase == ISO_BURST_DEMOTED ||
			    b.phase == ISO_BURST_RUNNING);
		t += 10 * MS + jitter(3 * MS);
	}
	assert_true(demotions > 0);
}

/* With the block point known (BPF), reads that come rarely still measure
 * a run from where it began: a spinner that starts just after a read is
 * demoted at the first read past burst_ms of its CPU time, never before;
 * a thread that blocks is never demoted, whatever the reads' spacing; and
 * iso_burst_earliest_exact_ns, from the last read, is a lower bound on
 * the demotion. Reads every 190 ms (the exact schedule's pace) or 10 ms. */
static void exact_run(struct model *m, int64_t period, int64_t end, struct run_result *r,
		      int64_t *worst_early)
{
	struct iso_burst b;
	int64_t t = 0, earliest = 0;

	iso_burst_init(&b);
	*r = (struct run_result){ .first_demotion = -1 };
	m->exact = true;
	while (t < end) {
		struct iso_burst_sample s;
		uint64_t nv;
		int c;

		model_read(m, t, &s, &nv);
		assert_true(iso_burst_wants_nv(&b, BURST, &s) || !b.has_prev);
		c = iso_burst_feed(&b, BURST, &s, true, nv);
		assert_true(c >= 0);
		if (c == ISO_BURST_DEMOTE) {
			if (r->first_demotion < 0)
				r->first_demotion = t;
			if (t - earliest < *worst_early)
				*worst_early = t - earliest;
			r->demotions++;
		} else if (c == ISO_BURST_RESTORE) {
			r->restores++;
		}
		earliest = iso_burst_earliest_exact_ns(&b, BURST, t);
		t += period;
	}
}

static void test_exact_block_point(void **state)
{
	static const struct seg periodic[] = { { RUN, 2 * MS }, { SLEEP, 98 * MS } };
	static const struct seg just_under[] = { { RUN, 195 * MS }, { SLEEP, 1 * MS } };
	int64_t worst = 0, early = INT64_MAX;

	(void)state;
	for (int64_t period = 10 * MS; period <= 190 * MS; period += 60 * MS) {
		for (int64_t from = 1 * MS; from < period; from += period / 7 + 1) {
			struct model m;
			struct run_result r;

			model_init(&m, spin, 1, from);
			exact_run(&m, period, from + 2 * SEC, &r, &early);
			assert_true(r.first_demotion >= 0);
			/* exact: never before burst_ms of CPU, and at the
			 * first read past it */
			assert_true(r.first_demotion - from >= BURST);
			assert_true(r.first_demotion - from < BURST + period);
			if (r.first_demotion - from - BURST > worst)
				worst = r.first_demotion - from - BURST;
			model_init(&m, periodic, 2, from);
			exact_run(&m, period, 10 * SEC, &r, &early);
			assert_int_equal(r.demotions, 0);
			model_init(&m, just_under, 2, from);
			exact_run(&m, period, 10 * SEC, &r, &early);
			assert_int_equal(r.demotions, 0);
		}
	}
	printf("# exact: a spinner demoted at worst %.1f ms past burst_ms (one read's spacing)\n",
	       (double)worst / MS);
	assert_true(early >= 0); /* no demotion before the earliest bound */
}

/* A spinner (never sleeps) at t, as a read shows it: its CPU time grows
 * with time while it runs, ISO or not. */
static struct iso_burst_sample spin_at(int64_t t)
{
	return (struct iso_burst_sample){ .now_ns = t, .cpu_ns = (uint64_t)t };
}

/* Release and re-ask every 150 ms (issue 28): the run goes on across the
 * grants, the guard demotes at burst_ms of CPU as it would a thread that
 * never let go, and the back-off follows it into the next grants. */
static void test_regrant_carries(void **state)
{
	struct iso_burst b;
	struct iso_burst_carry c;
	struct iso_burst_sample s;
	uint64_t nv = 10;
	int64_t t = SEC;
	bool have = false;
	int r;

	(void)state;
	for (int cycle = 0; cycle < 2; cycle++) {
		s = spin_at(t);
		r = iso_burst_resume(&b, BURST, have ? &c : NULL, true, &s, nv);
		assert_int_equal(r, ISO_BURST_KEEP);
		t += 150 * MS;
		s = spin_at(t);
		/* the release request's own block, not a block */
		nv++;
		if (cycle == 1) {
			/* the enforcer's read inside the second grant: 300 ms
			 * run, past the allowance */
			assert_int_equal(iso_burst_feed(&b, BURST, &s, true, nv - 1),
					 ISO_BURST_DEMOTE);
		}
		have = iso_burst_leave(&b, BURST, &s, true, nv, &c);
		assert_true(have);
		nv++; /* the ask's own */
		t += MS;
	}
	assert_true(c.demoted);
	/* asking again within the back-off: held from the start */
	s = spin_at(t);
	assert_int_equal(iso_burst_resume(&b, BURST, &c, true, &s, nv), ISO_BURST_DEMOTE);
	assert_true(iso_burst_demoted(&b));
	/* another thread of the same user, later but within the window: held too */
	s = spin_at(t + 500 * MS);
	assert_int_equal(iso_burst_resume(&b, BURST, &c, false, &s, 3), ISO_BURST_DEMOTE);
	/* past the back-off: a trial's allowance, not a full one */
	s = spin_at(c.until_ns + MS);
	assert_int_equal(iso_burst_resume(&b, BURST, &c, false, &s, 3), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_RUNNING);
	assert_int_equal(b.allowance_ns, BURST / ISO_BURST_TRIAL_DIV);
	assert_true(b.backoff_ns > ISO_BURST_BACKOFF_NS);
	/* past the window: forgotten */
	s = spin_at(c.keep_until_ns);
	assert_int_equal(iso_burst_resume(&b, BURST, &c, false, &s, 3), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_IDLE);
}

/* A thread that blocks, while ISO or while away, starts clean: the guard
 * treats it as it would treat one that never let go. */
static void test_regrant_block_clears(void **state)
{
	struct iso_burst b;
	struct iso_burst_carry c;
	struct iso_burst_sample s = spin_at(SEC);

	(void)state;
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, true, &s, 10), ISO_BURST_KEEP);
	s = spin_at(SEC + 150 * MS);
	/* blocked while ISO, besides the ask's and the release's own blocks
	 * (the ask's may come after isod read the count at the grant) */
	assert_false(iso_burst_leave(&b, BURST, &s, true, 13, &c));
	/* only those two: a run of 150 ms is kept */
	assert_true(iso_burst_leave(&b, BURST, &s, true, 12, &c));
	assert_false(c.demoted);
	assert_int_equal(c.ran_ns, 150 * MS);
	/* it blocked while away, besides the release's and the ask's: clean */
	s = spin_at(SEC + 400 * MS);
	assert_int_equal(iso_burst_resume(&b, BURST, &c, true, &s, 15), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_IDLE);
	/* only those two: the run goes on, 50 ms left */
	assert_int_equal(iso_burst_resume(&b, BURST, &c, true, &s, 14), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_RUNNING);
	assert_int_equal(b.allowance_ns, 50 * MS);
	/* the count not known as it left (an exit): it seemed to sleep */
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, true, &s, 12), ISO_BURST_KEEP);
	s.now_ns += 100 * MS;
	s.cpu_ns += 10 * MS;
	assert_false(iso_burst_leave(&b, BURST, &s, false, 0, &c));
	/* the guard off: nothing kept, nothing held */
	assert_false(iso_burst_leave(&b, 0, &s, true, 12, &c));
}

/* A check that runs while the thread waits for isod to handle its release
 * sees the release's own block: the leaving is judged from the state
 * that block ended, not from a clean one. A second block is a block. */
static void test_regrant_release_race(void **state)
{
	struct iso_burst b;
	struct iso_burst_carry c;
	struct iso_burst_sample s = spin_at(SEC);

	(void)state;
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, true, &s, 10), ISO_BURST_KEEP);
	s = spin_at(SEC + 100 * MS);
	/* the ask's own block, after isod read the count: not a block */
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 11), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_RUNNING);
	s = spin_at(SEC + 150 * MS);
	/* the release's block, seen by a check */
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 12), ISO_BURST_KEEP);
	assert_true(iso_burst_leave(&b, BURST, &s, true, 12, &c));
	assert_false(c.demoted);
	assert_int_equal(c.ran_ns, 50 * MS);
	/* one block more before the release: the run did end */
	assert_false(iso_burst_leave(&b, BURST, &s, true, 14, &c));
	/* held: the release's block seen by a check restores it, but the
	 * back-off goes on as it leaves */
	s = spin_at(2 * SEC);
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, true, &s, 20), ISO_BURST_KEEP);
	s = spin_at(2 * SEC + 50 * MS);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 21), ISO_BURST_KEEP);
	s = spin_at(2 * SEC + 260 * MS);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 21), ISO_BURST_DEMOTE);
	s = spin_at(2 * SEC + 300 * MS);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 22), ISO_BURST_RESTORE);
	assert_true(iso_burst_leave(&b, BURST, &s, true, 22, &c));
	assert_true(c.demoted);
	assert_int_equal(c.backoff_ns, 2 * ISO_BURST_BACKOFF_NS);
}

/* After a fresh grant one block may be the ask's own, but only at the
 * grant: a spinner that sleeps once, later, has blocked (burst.sh). */
static void test_regrant_ask_block_only_at_grant(void **state)
{
	struct iso_burst b;
	struct iso_burst_sample s = spin_at(SEC);

	(void)state;
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, false, &s, 10), ISO_BURST_KEEP);
	s = spin_at(SEC + 100 * MS);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 10), ISO_BURST_KEEP);
	s = spin_at(SEC + 320 * MS);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 10), ISO_BURST_DEMOTE);
	/* then it sleeps 100 ms, once */
	s.now_ns += 100 * MS;
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 11), ISO_BURST_RESTORE);
	/* the block point says it: a block at the grant is the ask's */
	s = spin_at(2 * SEC);
	assert_int_equal(iso_burst_resume(&b, BURST, NULL, false, &s, 20), ISO_BURST_KEEP);
	s = spin_at(2 * SEC + 100 * MS);
	s.has_block = true;
	s.block_cpu_ns = (uint64_t)(2 * SEC);
	assert_int_equal(iso_burst_feed(&b, BURST, &s, true, 21), ISO_BURST_KEEP);
	assert_int_equal(b.phase, ISO_BURST_RUNNING);
	assert_int_equal(b.nv, 21);
	assert_false(b.ask_block);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spinner_demoted_within_burst),
		cmocka_unit_test(test_cold_spinner),
		cmocka_unit_test(test_periodic_never_demoted),
		cmocka_unit_test(test_ninety_nine_one),
		cmocka_unit_test(test_block_restores),
		cmocka_unit_test(test_backoff_doubles),
		cmocka_unit_test(test_rr_shared),
		cmocka_unit_test(test_starved_victim),
		cmocka_unit_test(test_starved_then_spinning),
		cmocka_unit_test(test_rr_three_and_two),
		cmocka_unit_test(test_off_and_input),
		cmocka_unit_test(test_no_proof_no_demotion),
		cmocka_unit_test(test_earliest_is_lower_bound),
		cmocka_unit_test(test_exact_block_point),
		cmocka_unit_test(test_regrant_carries),
		cmocka_unit_test(test_regrant_block_clears),
		cmocka_unit_test(test_regrant_release_race),
		cmocka_unit_test(test_regrant_ask_block_only_at_grant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
