/* The predictive schedule (iso_plan.h): checks planned at the earliest
 * moment a decision can change give the same decisions as fixed 10 ms
 * sampling, within one floor interval, on synthetic traces — runaway,
 * stall cap, a 30 % task, bursts, a gap in which isod did not run,
 * per-thread limits, per-user shares — with far fewer checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "iso_plan.h"

#define MS 1000000LL
#define SEC 1000000000LL
#define FLOOR (10 * MS)

/* Where the plan looks for a limit crossing h ns after the last step:
 * halfway while that is more than two floors away (iso_plan_end). */
static int64_t approach(int64_t h)
{
	return h > 2 * FLOOR ? h / 2 : h;
}
#define MAXT 4
#define MAXCH 512

/* ---- a machine whose tasks use CPU time on a fixed pattern ------------- */

/* During [from, to) the task runs the first duty·period of every period
 * and blocks for the rest (duty 1: it spins, never blocking). What it
 * uses does not depend on isod's decisions: a runaway keeps spinning as
 * SCHED_OTHER on an otherwise idle machine. */
struct seg {
	int64_t from, to, period;
	double duty;
};

struct task_spec {
	unsigned limit;
	uint32_t uid;
	struct seg seg[3];
};

struct trace {
	const char *name;
	struct iso_tunables tun;
	unsigned ncpus, stall_ms, burst_ms, user_cpu;
	int64_t end, gap_from, gap_to; /* isod does not run in [gap_from, gap_to) */
	int64_t tolerance;
	struct task_spec task[MAXT];
	unsigned ntasks;
};

static void seg_use(const struct seg *s, int64_t t, uint64_t *cpu, uint64_t *nv)
{
	int64_t e = (t < s->to ? t : s->to) - s->from, full, run;

	if (s->period == 0 || e <= 0)
		return;
	full = e / s->period;
	run = (int64_t)(s->duty * (double)s->period);
	*cpu += (uint64_t)(full * run + (e - full * s->period < run ? e - full * s->period : run));
	if (s->duty < 1.0)
		*nv += (uint64_t)(full + (e - full * s->period >= run ? 1 : 0));
}

static void use_at(const struct task_spec *ts, int64_t t, uint64_t *cpu, uint64_t *nv)
{
	*cpu = *nv = 0;
	for (int i = 0; i < 3; i++)
		seg_use(&ts->seg[i], t, cpu, nv);
}

/* ---- isod's step, as the daemon takes it (grants.c) -------------------- */

struct change {
	int64_t at;
	bool demoted;
};

struct run {
	struct iso_engine e;
	struct iso_share share;
	struct iso_share_user users[MAXT];
	struct iso_task core[MAXT];
	struct iso_burst burst[MAXT];
	struct change ch[MAXT][MAXCH];
	unsigned nch[MAXT];
	unsigned steps;
};

static void run_init(struct run *r, const struct trace *tr)
{
	assert_int_equal(iso_engine_init(&r->e, &tr->tun, tr->ncpus), 0);
	assert_int_equal(iso_engine_set_stall(&r->e, tr->stall_ms), 0);
	assert_int_equal(iso_share_init(&r->share, r->users, MAXT, tr->user_cpu), 0);
	for (unsigned i = 0; i < tr->ntasks; i++) {
		assert_int_equal(iso_task_init(&r->core[i], tr->task[i].limit), 0);
		iso_burst_init(&r->burst[i]);
		r->nch[i] = 0;
	}
	r->steps = 0;
}

/* One step at now; returns the tasks whose decision changed, as bits
 * (and the new state of each in *demoted). */
static unsigned step(struct run *r, const struct trace *tr, int64_t now, unsigned *demoted)
{
	int64_t burst_ns = (int64_t)tr->burst_ms * MS;
	unsigned changed = 0;

	r->steps++;
	iso_engine_begin(&r->e);
	iso_share_begin(&r->share);
	for (unsigned i = 0; i < tr->ntasks; i++) {
		struct iso_burst_sample s = { .now_ns = now, .cpu_ns = 0, .wait_ns = 0 };
		uint64_t nv;

		use_at(&tr->task[i], now, &s.cpu_ns, &nv);
		if (iso_share_on(&r->share))
			(void)iso_share_account(&r->share, tr->task[i].uid,
						iso_task_iso_delta(&r->core[i], s.cpu_ns));
		iso_engine_account(&r->e, &r->core[i], s.cpu_ns);
		(void)iso_burst_feed(&r->burst[i], burst_ns, &s,
				     iso_burst_wants_nv(&r->burst[i], burst_ns, &s), nv);
		r->core[i].held = iso_burst_demoted(&r->burst[i]);
	}
	assert_int_equal(iso_engine_commit(&r->e, now), 0);
	if (iso_share_on(&r->share))
		assert_int_equal(iso_share_commit(&r->share, &tr->tun, now, tr->ncpus), 0);
	for (unsigned i = 0; i < tr->ntasks; i++)
		if (iso_share_decide(&r->e, &r->share, tr->task[i].uid, &r->core[i])) {
			assert_true(r->nch[i] < MAXCH);
			r->ch[i][r->nch[i]++] = (struct change){ now, r->core[i].demoted };
			changed |= 1u << i;
		}
	*demoted = 0;
	for (unsigned i = 0; i < tr->ntasks; i++)
		*demoted |= r->core[i].demoted ? 1u << i : 0;
	return changed;
}

static int64_t plan(struct run *r, const struct trace *tr, int64_t now)
{
	struct iso_plan p;

	iso_plan_begin(&p);
	for (unsigned i = 0; i < tr->ntasks; i++) {
		iso_plan_task(&p, &r->e, &r->core[i]);
		iso_plan_guard(&p, &r->burst[i], (int64_t)tr->burst_ms * MS, now);
	}
	return iso_plan_end(&p, &r->e, &r->share, now, FLOOR);
}

static bool in_gap(const struct trace *tr, int64_t t)
{
	return t >= tr->gap_from && t < tr->gap_to;
}

static void run_fixed(struct run *r, const struct trace *tr)
{
	unsigned demoted;

	run_init(r, tr);
	for (int64_t t = 0; t <= tr->end; t += FLOOR)
		if (!in_gap(tr, t))
			(void)step(r, tr, t, &demoted);
}

/* From the state after a check at t0, fixed sampling's first decision up
 * to until: its time (INT64_MAX: none), which tasks, their new state. */
static int64_t fixed_from(const struct run *from, const struct trace *tr, int64_t t0,
			  int64_t until, unsigned *changed, unsigned *demoted)
{
	static struct run r; /* large: off the stack */

	r = *from;
	r.share.users = r.users; /* its own table, not from's */
	for (unsigned i = 0; i < tr->ntasks; i++)
		r.nch[i] = 0;
	for (int64_t t = t0 + FLOOR; t <= until; t += FLOOR) {
		if (in_gap(tr, t))
			continue;
		*changed = step(&r, tr, t, demoted);
		if (*changed)
			return t;
	}
	return INT64_MAX;
}

/* The planned run; at every check, fixed sampling from the state of the
 * check before must not have decided anything earlier, and when the
 * check decides, fixed sampling decides the same within the tolerance.
 * (Compared from the same state, decision by decision: over many cycles
 * the two drift apart, as fixed sampling drifts from the exact model, by
 * up to a floor at each decision.) */
static void run_planned(struct run *r, const struct trace *tr)
{
	static struct run before;
	int64_t t = 0;
	unsigned demoted, changed;

	run_init(r, tr);
	(void)step(r, tr, t, &demoted);
	while (t <= tr->end) {
		int64_t next, f;
		unsigned fch = 0, fdem = 0;

		next = plan(r, tr, t);
		/* the floor, but a predicted crossing is checked at its
		 * time, in a chain whose gaps at least halve */
		assert_true(next >= t + ISO_PLAN_CONFIRM_NS);
		assert_true(next >= t + FLOOR || r->e.budget.last_ns - r->e.budget.prev_ns >= FLOOR ||
			    2 * (next - t) < r->e.budget.last_ns - r->e.budget.prev_ns + ISO_PLAN_PAST_NS ||
			    next == t + ISO_PLAN_CONFIRM_NS || r->steps < 2);
		if (in_gap(tr, next))
			next = tr->gap_to; /* isod runs again */
		if (next > tr->end)
			break;
		before = *r;
		before.share.users = before.users;
		changed = step(r, tr, next, &demoted);
		f = fixed_from(&before, tr, t, next + tr->tolerance, &fch, &fdem);
		if (getenv("PLAN_VERBOSE") && (changed || f <= next))
			print_message("%s: planned %.4f s: %#x→%#x; fixed %.4f s: %#x→%#x\n", tr->name,
				      (double)next / SEC, changed, demoted,
				      f == INT64_MAX ? -1.0 : (double)f / SEC, fch, fdem);
		if (changed) {
			assert_true(f != INT64_MAX);
			assert_true(llabs(f - next) <= tr->tolerance);
			assert_int_equal(fch, changed);
			assert_int_equal(fdem & fch, demoted & changed);
		} else {
			assert_true(f > next - tr->tolerance || f == INT64_MAX);
		}
		t = next;
	}
}

static void compare(const struct trace *tr)
{
	static struct run fixed, planned; /* large: off the stack */
	unsigned total = 0, ptotal = 0;

	run_fixed(&fixed, tr);
	run_planned(&planned, tr);
	for (unsigned i = 0; i < tr->ntasks; i++) {
		total += fixed.nch[i];
		ptotal += planned.nch[i];
	}
	print_message("%s: %u decisions (fixed sampling %u); %u checks planned, %u at fixed 10 ms\n",
		      tr->name, ptotal, total, planned.steps, fixed.steps);
	/* the same story: as many decisions, give or take the last cycle */
	assert_true(ptotal + 2 >= total && total + 2 >= ptotal);
	assert_true(planned.steps <= fixed.steps);
}

#define SPIN(a, b) { (a), (b), 10 * MS, 1.0 }

static void test_runaway(void **state)
{
	/* two spinners hold both CPUs: refractory after τ·ln(100/30) ≈ 6 s,
	 * back after τ·ln(70/63), and so on */
	struct trace tr = { .name = "runaway", .tun = { 70, 5 }, .ncpus = 2, .end = 40 * SEC,
			    .gap_from = -1, .gap_to = -1, .tolerance = FLOOR,
			    .task = { { .seg = { SPIN(0, 40 * SEC) } },
				      { .seg = { SPIN(0, 40 * SEC) } } },
			    .ntasks = 2 };

	(void)state;
	compare(&tr);
}

/* Two threads that run 97 % of every millisecond: usage crosses 70 % at
 * τ·ln(97/27), a little after the all-out worst case the plan first
 * checks at. The check confirming the crossing comes at its time, not a
 * floor later: demoted within about a millisecond of the exact model
 * (issue 13's reaction). */
static void test_reaction(void **state)
{
	static struct run r; /* large: off the stack */
	struct trace tr = { .name = "reaction", .tun = { 70, 5 }, .ncpus = 2, .end = 10 * SEC,
			    .gap_from = -1, .gap_to = -1, .tolerance = FLOOR,
			    .task = { { .seg = { { 0, 10 * SEC, MS, 0.97 } } },
				      { .seg = { { 0, 10 * SEC, MS, 0.97 } } } },
			    .ntasks = 2 };
	double exact = 5.0 * log(97.0 / 27.0);
	int64_t t = 0;
	unsigned demoted = 0;

	(void)state;
	run_init(&r, &tr);
	(void)step(&r, &tr, 0, &demoted);
	while (!demoted && t < tr.end) {
		t = plan(&r, &tr, t);
		(void)step(&r, &tr, t, &demoted);
	}
	print_message("reaction: demoted at %.4f s, exact crossing %.4f s, %u checks\n",
		      (double)t / SEC, exact, r.steps);
	assert_true(demoted == 3);
	assert_true(fabs((double)t / SEC - exact) < 2e-3);
}

static void test_stall_cap(void **state)
{
	/* the same with the stall cap: cut into 200 ms slices from the start */
	struct trace tr = { .name = "stall", .tun = { 70, 5 }, .ncpus = 2, .stall_ms = 200,
			    .end = 10 * SEC, .gap_from = -1, .gap_to = -1, .tolerance = FLOOR,
			    .task = { { .seg = { SPIN(0, 5 * SEC), SPIN(6 * SEC, 10 * SEC) } },
				      { .seg = { SPIN(0, 5 * SEC), SPIN(6 * SEC, 10 * SEC) } } },
			    .ntasks = 2 };

	(void)state;
	compare(&tr);
}

static void test_thirty_percent(void **state)
{
	/* audio-like: 3 ms of every 10 ms, two threads: nothing to decide */
	struct trace tr = { .name = "30%", .tun = { 70, 5 }, .ncpus = 2, .stall_ms = 200,
			    .burst_ms = 200, .end = 30 * SEC, .gap_from = -1, .gap_to = -1,
			    .tolerance = FLOOR,
			    .task = { { .seg = { { 0, 30 * SEC, 10 * MS, 0.3 } } },
				      { .seg = { { 0, 30 * SEC, 10 * MS, 0.3 } } } },
			    .ntasks = 2 };

	(void)state;
	compare(&tr);
}

static void test_bursts(void **state)
{
	/* runs 600 ms without blocking every second: the burst guard takes
	 * ISO after 200 ms, gives it back when the thread blocks. A run
	 * begins only at a read, and a thread not seen running is read every
	 * burst_ms/4 (iso_plan_guard), as isod read its cold threads: the
	 * guard's decisions agree to that interval. */
	struct trace tr = { .name = "bursts", .tun = { 70, 5 }, .ncpus = 2, .stall_ms = 200,
			    .burst_ms = 200, .end = 20 * SEC, .gap_from = -1, .gap_to = -1,
			    .tolerance = 200 * MS / ISO_PLAN_GUARD_DIV + FLOOR,
			    .task = { { .seg = { { 0, 20 * SEC, 1 * SEC, 0.6 } } },
				      { .seg = { { 0, 20 * SEC, 10 * MS, 0.3 } } } },
			    .ntasks = 2 };

	(void)state;
	compare(&tr);
}

static void test_gap(void **state)
{
	/* isod stopped (SIGSTOP, a stall) for a minute while both CPUs spin:
	 * the lump is seen when it runs again */
	struct trace tr = { .name = "gap", .tun = { 70, 5 }, .ncpus = 2, .end = 80 * SEC,
			    .gap_from = 2 * SEC, .gap_to = 62 * SEC, .tolerance = FLOOR,
			    .task = { { .seg = { SPIN(0, 80 * SEC) } },
				      { .seg = { SPIN(0, 80 * SEC) } } },
			    .ntasks = 2 };

	(void)state;
	compare(&tr);
}

static void test_thread_limits(void **state)
{
	/* a spinner with a limit of 20 % beside two 5 % threads, one with a
	 * limit of its own */
	struct trace tr = { .name = "limits", .tun = { 70, 5 }, .ncpus = 2, .end = 40 * SEC,
			    .gap_from = -1, .gap_to = -1, .tolerance = FLOOR,
			    .task = { { .limit = 20, .seg = { SPIN(0, 40 * SEC) } },
				      { .limit = 50, .seg = { { 0, 40 * SEC, 10 * MS, 0.05 } } },
				      { .seg = { { 0, 40 * SEC, 10 * MS, 0.05 } } } },
			    .ntasks = 3 };

	(void)state;
	compare(&tr);
}

static void test_user_shares(void **state)
{
	/* user_cpu 50: each uid may hold 35 % of the machine; uid 1 spins */
	struct trace tr = { .name = "shares", .tun = { 70, 5 }, .ncpus = 2, .user_cpu = 50,
			    .end = 40 * SEC, .gap_from = -1, .gap_to = -1, .tolerance = FLOOR,
			    .task = { { .uid = 1, .seg = { SPIN(0, 40 * SEC) } },
				      { .uid = 2, .seg = { { 0, 40 * SEC, 10 * MS, 0.3 } } },
				      { .uid = 1, .seg = { { 0, 40 * SEC, 10 * MS, 0.1 } } } },
			    .ntasks = 3 };

	(void)state;
	compare(&tr);
}

/* ---- the plan itself ------------------------------------------------- */

static void test_horizons(void **state)
{
	struct iso_tunables tun = { 70, 5 };
	struct iso_engine e;
	struct iso_task t[3];
	struct iso_plan p;

	(void)state;
	/* the formulas */
	assert_true(fabs(iso_plan_rise_s(0, 100, 70, 5) - 5 * log(100.0 / 30)) < 1e-9);
	assert_true(fabs(iso_plan_fall_s(80, 63, 5) - 5 * log(80.0 / 63)) < 1e-9);
	assert_true(isinf(iso_plan_rise_s(10, 51, 70, 5)));
	assert_true(iso_plan_rise_s(71, 100, 70, 5) == 0.0);
	assert_true(iso_plan_fall_s(60, 63, 5) == 0.0);

	assert_int_equal(iso_engine_init(&e, &tun, 2), 0);
	/* before the first step: one at once, to start the average at the
	 * grant (what a task uses before it is not counted) */
	iso_plan_begin(&p);
	assert_int_equal(iso_task_init(&t[0], 0), 0);
	iso_plan_task(&p, &e, &t[0]);
	assert_true(iso_plan_end(&p, &e, NULL, 7, FLOOR) == 7);
	e.budget.started = true;
	/* no task: never */
	iso_plan_begin(&p);
	assert_true(iso_plan_end(&p, &e, NULL, 0, FLOOR) == ISO_PLAN_NEVER);
	/* one thread on two CPUs can hold 50 % (+ lag): never above 70 */
	for (int i = 0; i < 3; i++)
		assert_int_equal(iso_task_init(&t[i], 0), 0);
	iso_plan_begin(&p);
	iso_plan_task(&p, &e, &t[0]);
	assert_true(iso_plan_end(&p, &e, NULL, 0, FLOOR) == ISO_PLAN_NEVER);
	/* two can: τ·ln(100/30) from the start */
	iso_plan_task(&p, &e, &t[1]);
	assert_true(llabs(iso_plan_end(&p, &e, NULL, 0, FLOOR) -
			  approach((int64_t)(5e9 * log(100.0 / 30)))) < 1000 + ISO_PLAN_PAST_NS);
	/* an own limit below iso_cpu comes first: reachable by one thread */
	t[2].limit = 20;
	iso_plan_begin(&p);
	iso_plan_task(&p, &e, &t[2]);
	assert_true(llabs(iso_plan_end(&p, &e, NULL, 0, FLOOR) -
			  approach((int64_t)(5e9 * log(51.0 / 31)))) < 1000 + ISO_PLAN_PAST_NS);
	/* a crossing predicted inside the floor is checked at its time
	 * (from the last step, at 0, a floor after the one before) ... */
	e.budget.prev_ns = -FLOOR;
	e.budget.usage = 69.99;
	iso_plan_begin(&p);
	iso_plan_task(&p, &e, &t[0]);
	iso_plan_task(&p, &e, &t[1]);
	assert_true(llabs(iso_plan_end(&p, &e, NULL, 5 * SEC, FLOOR) -
			  (int64_t)(5e9 * log(30.01 / 30))) < 1000 + ISO_PLAN_PAST_NS);
	/* ... but no sooner than ISO_PLAN_CONFIRM_NS after the last step */
	e.budget.usage = 69.99999;
	assert_true(iso_plan_end(&p, &e, NULL, 5 * SEC, FLOOR) == ISO_PLAN_CONFIRM_NS);
	/* ... in a chain only while it converges: after a confirmation
	 * 3 ms after the step before, one 1.67 ms on is not half as far */
	e.budget.usage = 69.99;
	e.budget.prev_ns = -3 * MS;
	assert_true(iso_plan_end(&p, &e, NULL, 5 * SEC, FLOOR) == FLOOR);
	/* one 1.67 ms on after a gap of 4 ms is */
	e.budget.prev_ns = -4 * MS;
	assert_true(iso_plan_end(&p, &e, NULL, 5 * SEC, FLOOR) < 2 * MS);
	e.budget.prev_ns = -FLOOR;
	/* the guard's look is not a crossing: floored */
	e.budget.usage = 0;
	p.guard_ns = 2 * MS;
	assert_true(iso_plan_end(&p, &e, NULL, 5 * SEC, FLOOR) == FLOOR);
	p.guard_ns = ISO_PLAN_NEVER;
	/* the stall cap: full after stall_ms of both CPUs ISO */
	e.budget.usage = 0;
	assert_int_equal(iso_engine_set_stall(&e, 200), 0);
	assert_true(llabs(iso_plan_end(&p, &e, NULL, 0, FLOOR) - 200 * MS) < 1000 + ISO_PLAN_PAST_NS);
}

static void test_quiet(void **state)
{
	/* quiet: nothing runs, and the caller plans again when something
	 * does (the BPF accounting's wake). No rise, no stall cap filling,
	 * no guard look at threads not demoted by the guard; a fall and a
	 * guard demotion's end still count. */
	struct iso_tunables tun = { 70, 5 };
	int64_t burst = 200 * MS;
	struct iso_burst idle, running, demoted;
	struct iso_burst_sample s = { .now_ns = 1 * SEC, .cpu_ns = 0, .wait_ns = 0 };
	struct iso_engine e;
	struct iso_task t[2];
	struct iso_plan p;

	(void)state;
	assert_int_equal(iso_engine_init(&e, &tun, 2), 0);
	assert_int_equal(iso_engine_set_stall(&e, 200), 0);
	e.budget.started = true;
	for (int i = 0; i < 2; i++)
		assert_int_equal(iso_task_init(&t[i], 0), 0);
	iso_burst_init(&idle);
	(void)iso_burst_feed(&idle, burst, &s, false, 0);
	running = idle;
	running.phase = ISO_BURST_RUNNING;
	running.start = s;
	running.allowance_ns = burst;
	demoted = idle;
	demoted.phase = ISO_BURST_DEMOTED;
	demoted.until_ns = 3 * SEC;

	/* not quiet: the stall cap (200 ms) and the idle look (burst/4) */
	iso_plan_begin(&p);
	iso_plan_task(&p, &e, &t[0]);
	iso_plan_task(&p, &e, &t[1]);
	iso_plan_guard(&p, &idle, burst, 0);
	assert_true(p.guard_ns == 1 * SEC + burst / ISO_PLAN_GUARD_DIV);
	assert_true(iso_plan_end(&p, &e, NULL, 1 * SEC, FLOOR) < 1 * SEC);
	/* the block point known at its last read (30 ms of CPU since it
	 * blocked): no idle look, the CPU time it has left from the last
	 * check (which found it not run since) */
	{
		struct iso_burst exact = idle;

		exact.prev.has_block = true;
		exact.prev.cpu_ns = 50 * MS;
		exact.prev.block_cpu_ns = 20 * MS;
		iso_plan_begin(&p);
		iso_plan_guard(&p, &exact, burst, 3 * SEC);
		assert_true(p.guard_ns == 3 * SEC + burst - 30 * MS - ISO_BURST_SLACK_NS);
		/* a check before its read counts from the read */
		iso_plan_begin(&p);
		iso_plan_guard(&p, &exact, burst, 0);
		assert_true(p.guard_ns == 1 * SEC + burst - 30 * MS - ISO_BURST_SLACK_NS);
	}
	/* quiet: nothing can change */
	iso_plan_begin(&p);
	p.quiet = true;
	iso_plan_task(&p, &e, &t[0]);
	iso_plan_task(&p, &e, &t[1]);
	iso_plan_guard(&p, &idle, burst, 0);
	iso_plan_guard(&p, &running, burst, 0);
	assert_true(p.guard_ns == ISO_PLAN_NEVER);
	assert_true(iso_plan_end(&p, &e, NULL, 1 * SEC, FLOOR) == ISO_PLAN_NEVER);
	/* but a guard demotion is looked at (a block) and ends */
	iso_plan_guard(&p, &demoted, burst, 0);
	assert_true(p.guard_ns == 1 * SEC + burst / ISO_PLAN_GUARD_DIV);
	/* and a refractory budget falls back below 90 % of iso_cpu */
	iso_plan_begin(&p);
	p.quiet = true;
	iso_plan_task(&p, &e, &t[0]);
	e.budget.usage = 80;
	e.budget.refractory = true;
	assert_true(llabs(iso_plan_end(&p, &e, NULL, 0, FLOOR) - approach((int64_t)(5e9 * log(80.0 / 63)))) <
		    1000 + ISO_PLAN_PAST_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_horizons),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_runaway),
		cmocka_unit_test(test_reaction),
		cmocka_unit_test(test_stall_cap),
		cmocka_unit_test(test_thirty_percent),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_thread_limits),
		cmocka_unit_test(test_user_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
