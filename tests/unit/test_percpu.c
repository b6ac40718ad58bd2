/* test_percpu.c — the budget per CPU (iso_percpu.h) on synthetic traces: a
 * simulated two-CPU machine, 1 ms resolution, sampled every 10 ms the way
 * isod's enforcer does (per CPU, share, then engine). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_engine.h"
#include "iso_percpu.h"
#include "iso_plan.h"
#include "iso_share.h"

#define MS 1000000LL
#define SEC 1000000000LL
#define NCPUS 2
#define MAXT 4

struct task {
	struct iso_task t;
	int cpu;        /* where it runs (the read) */
	int charged;    /* where its time went (iso_percpu_charge) */
	double demand;  /* share of its CPU it uses, ISO or not */
	uint64_t cpu_ns;
	bool ever_demoted;
};

struct machine {
	struct iso_engine e;
	struct iso_share s;
	struct iso_share_user users[MAXT];
	struct iso_percpu p;
	struct iso_percpu_cpu cpus[NCPUS];
	struct iso_tunables tun;
	struct task *t;
	size_t n;
	int64_t now;
};

static void m_init(struct machine *m, enum iso_scope scope, struct task *t, size_t n)
{
	m->tun = (struct iso_tunables){ 70, 5 };
	assert_int_equal(iso_engine_init(&m->e, &m->tun, NCPUS), 0);
	assert_int_equal(iso_share_init(&m->s, m->users, MAXT, 0), 0);
	assert_int_equal(iso_percpu_init(&m->p, m->cpus, NCPUS, scope), 0);
	m->t = t;
	m->n = n;
	m->now = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(iso_task_init(&t[i].t, 0), 0);
		t[i].charged = ISO_CPU_UNKNOWN;
		t[i].cpu_ns = 0;
		t[i].ever_demoted = false;
	}
}

static void m_sample(struct machine *m)
{
	iso_engine_begin(&m->e);
	for (size_t i = 0; i < m->n; i++) {
		struct task *k = &m->t[i];

		(void)iso_percpu_charge(&m->p, &k->charged, &k->t, k->cpu,
					iso_task_iso_delta(&k->t, k->cpu_ns));
		iso_engine_account(&m->e, &k->t, k->cpu_ns);
	}
	assert_int_equal(iso_engine_commit(&m->e, m->now), 0);
	assert_int_equal(iso_percpu_commit(&m->p, &m->tun, m->now), 0);
	for (size_t i = 0; i < m->n; i++) {
		struct task *k = &m->t[i];

		(void)iso_percpu_decide(&m->e, &m->s, &m->p, k->charged, 1000, &k->t);
		k->ever_demoted |= k->t.demoted;
	}
}

/* ms of time: every task uses its demand, sampled every 10 ms */
static void m_run(struct machine *m, int64_t ms)
{
	for (int64_t i = 0; i < ms; i++) {
		m->now += MS;
		for (size_t k = 0; k < m->n; k++)
			m->t[k].cpu_ns += (uint64_t)(m->t[k].demand * MS);
		if (m->now % (10 * MS) == 0)
			m_sample(m);
	}
}

/* The case: a runaway pinned to CPU 0, a 30 % thread on CPU 1.
 * Per CPU only the runaway loses ISO; globally (50 % + 15 % of the
 * machine, under 70 %) neither does. */
static void test_runaway_on_one_cpu(void **state)
{
	struct task t[2] = { { .cpu = 0, .demand = 1.0 }, { .cpu = 1, .demand = 0.3 } };
	struct machine m;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 2);
	m_run(&m, 20 * 1000);
	assert_true(t[0].ever_demoted);
	assert_false(t[1].ever_demoted);
	assert_true(iso_percpu_usage(&m.p, 1) < 35.0 && iso_percpu_usage(&m.p, 1) > 25.0);
	/* demoted once CPU 0 passed iso_cpu: ~6 s of 100 % from nothing */
	assert_false(iso_engine_refractory(&m.e));

	m_init(&m, ISO_SCOPE_GLOBAL, t, 2);
	m_run(&m, 20 * 1000);
	assert_false(t[0].ever_demoted);
	assert_false(t[1].ever_demoted);
}

/* Demoted at iso_cpu, restored below 90 % of it, then again: the patch's
 * cycle, on CPU 0 alone. The first demotion comes when the average of a
 * CPU at 100 % passes 70 %: τ·ln(100/30) ≈ 6.02 s. */
static void test_demote_restore_hysteresis(void **state)
{
	struct task t[1] = { { .cpu = 0, .demand = 1.0 } };
	struct machine m;
	int64_t demoted_at = 0, restored_at = 0;
	double at_restore = 0;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	while (m.now < 30 * SEC && !restored_at) {
		bool was = t[0].t.demoted;

		m_run(&m, 10);
		if (!was && t[0].t.demoted && !demoted_at)
			demoted_at = m.now;
		if (was && !t[0].t.demoted) {
			restored_at = m.now;
			at_restore = iso_percpu_usage(&m.p, 0);
		}
		if (t[0].t.demoted)
			assert_true(iso_percpu_usage(&m.p, 0) >= 63.0);
	}
	assert_true(demoted_at > 5990 * MS && demoted_at < 6100 * MS);
	assert_true(restored_at > demoted_at);
	assert_true(at_restore < 63.0 && at_restore > 62.0);
	/* the fall from 70 % to 63 %: τ·ln(70/63) ≈ 0.53 s */
	assert_true(restored_at - demoted_at > 500 * MS && restored_at - demoted_at < 600 * MS);
}

/* A demoted thread that moves to the other CPU stays demoted until the
 * CPU it was charged to recovers: it charges nothing while demoted, and
 * does not pass its demotion around. */
static void test_migrated_stays_demoted(void **state)
{
	struct task t[1] = { { .cpu = 0, .demand = 1.0 } };
	struct machine m;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	while (!t[0].t.demoted)
		m_run(&m, 10);
	t[0].cpu = 1;
	m_run(&m, 100);
	assert_true(t[0].t.demoted);
	assert_int_equal(t[0].charged, 0);
	assert_true(iso_percpu_usage(&m.p, 1) < 0.001);
	/* once CPU 0 is back under 63 % it is restored and charges CPU 1 */
	m_run(&m, 1000);
	assert_false(iso_percpu_over(&m.p, 0));
	assert_int_equal(t[0].charged, 1);
	assert_true(iso_percpu_usage(&m.p, 1) > 1.0);
}

/* A CPU number outside the table (hot-plugged past the count, a bad
 * read) counts for no CPU; the thread is then held to the global budget. */
static void test_cpu_out_of_range(void **state)
{
	struct task t[1] = { { .cpu = NCPUS, .demand = 1.0 } };
	struct machine m;
	struct iso_task k;
	int charged = 0;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	assert_int_equal(iso_task_init(&k, 0), 0);
	assert_int_equal(iso_percpu_charge(&m.p, &charged, &k, NCPUS, 5 * MS), -ERANGE);
	assert_int_equal(charged, ISO_CPU_UNKNOWN);
	assert_int_equal(iso_percpu_charge(&m.p, &charged, &k, -7, 5 * MS), -ERANGE);
	assert_int_equal(iso_percpu_charge(&m.p, &charged, &k, 1, 5 * MS), 0);
	assert_int_equal(charged, 1);
	assert_false(iso_percpu_over(&m.p, NCPUS));
	assert_true(iso_percpu_usage(&m.p, -1) == 0.0);
	assert_false(iso_percpu_applies(&m.p, NCPUS));
	/* the global rule: one CPU of two is 50 %, under 70 %: kept ISO */
	m_run(&m, 20 * 1000);
	assert_false(t[0].ever_demoted);
	assert_true(iso_percpu_usage(&m.p, 0) < 0.001 && iso_percpu_usage(&m.p, 1) < 0.001);
	/* and globally refractory means demoted, per CPU or not */
	m.e.budget.refractory = true;
	(void)iso_percpu_decide(&m.e, &m.s, &m.p, ISO_CPU_UNKNOWN, 1000, &t[0].t);
	assert_true(t[0].t.demoted);
}

/* Per CPU replaces the global refractory state but not the other rules:
 * the stall cap and a held task are demoted on any CPU. Off, it is
 * iso_share_decide exactly. */
static void test_other_rules_kept(void **state)
{
	struct task t[1] = { { .cpu = 0, .demand = 0.0 } };
	struct machine m;
	struct iso_task k;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	assert_int_equal(iso_task_init(&k, 0), 0);
	m.e.budget.refractory = true;
	assert_false(iso_percpu_decide(&m.e, &m.s, &m.p, 0, 1000, &k));
	assert_false(k.demoted);
	m.e.stall.over = true;
	assert_true(iso_percpu_decide(&m.e, &m.s, &m.p, 0, 1000, &k));
	assert_true(k.demoted);
	m.e.stall.over = false;
	k.held = true;
	assert_false(iso_percpu_decide(&m.e, &m.s, &m.p, 1, 1000, &k));
	assert_true(k.demoted);
	k.held = false;
	/* own limit 20 %: held to the global average as before */
	assert_int_equal(iso_task_set_limit(&k, 20), 0);
	m.e.budget.refractory = false;
	m.e.budget.usage = 30.0;
	assert_false(iso_percpu_decide(&m.e, &m.s, &m.p, 1, 1000, &k));
	assert_true(k.demoted);
	/* global scope: iso_share_decide's answer */
	assert_int_equal(iso_percpu_init(&m.p, m.cpus, NCPUS, ISO_SCOPE_GLOBAL), 0);
	assert_int_equal(iso_task_init(&k, 0), 0);
	m.e.budget.refractory = true;
	assert_true(iso_percpu_decide(&m.e, &m.s, &m.p, 0, 1000, &k));
	assert_true(k.demoted);
}

/* The plan (iso_plan.h): no CPU can pass iso_cpu before its horizon, and
 * iso_plan_end takes it in. */
static void test_horizon(void **state)
{
	struct task t[2] = { { .cpu = 0, .demand = 0.5 }, { .cpu = 1, .demand = 0.1 } };
	struct machine m;
	struct iso_plan p;
	double h, want;
	int64_t at;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 2);
	m_run(&m, 10 * 1000);
	h = iso_percpu_horizon_s(&m.p, &m.tun, 2, ISO_PLAN_LAG_PCT, m.now);
	want = 5.0 * log((100.0 - iso_percpu_usage(&m.p, 0)) / 30.0);
	assert_true(fabs(h - want) < 1e-9);
	/* the worst case: CPU 0 at 100 % from now on passes it no earlier */
	t[0].demand = 1.0;
	{
		int64_t from = m.now;

		while (!t[0].t.demoted)
			m_run(&m, 10);
		assert_true((double)(m.now - from) / 1e9 >= h);
	}
	/* base later than the last feed: the horizon shrinks by as much */
	assert_true(iso_percpu_horizon_s(&m.p, &m.tun, 2, ISO_PLAN_LAG_PCT, m.now + 100 * MS) <=
		    iso_percpu_horizon_s(&m.p, &m.tun, 2, ISO_PLAN_LAG_PCT, m.now));
	/* over: the fall to 90 % of iso_cpu */
	h = iso_percpu_horizon_s(&m.p, &m.tun, 2, ISO_PLAN_LAG_PCT, m.now);
	want = fmin(5.0 * log(iso_percpu_usage(&m.p, 0) / 63.0),
		    5.0 * log((100.0 - iso_percpu_usage(&m.p, 1)) / 30.0));
	assert_true(fabs(h - want) < 1e-9);
	iso_plan_begin(&p);
	for (size_t i = 0; i < 2; i++)
		iso_plan_task(&p, &m.e, &t[i].t);
	p.percpu = &m.p;
	at = iso_plan_end(&p, &m.e, &m.s, m.now, MS);
	assert_true(at <= m.now + (int64_t)ceil(h * 1e9) + ISO_PLAN_PAST_NS);
	assert_true(at >= m.now + MS);
	/* off: no horizon of its own */
	assert_int_equal(iso_percpu_init(&m.p, m.cpus, NCPUS, ISO_SCOPE_GLOBAL), 0);
	assert_true(isinf(iso_percpu_horizon_s(&m.p, &m.tun, 2, ISO_PLAN_LAG_PCT, m.now)));
}

/* As isod runs: a check only when the plan says (floor 10 ms). One
 * runaway on CPU 0 of two is 50 % of the machine, which the global plan
 * never needs to look at (M = 51 % < iso_cpu): only the per-CPU horizon
 * brings the checks that demote it, at the same moments as sampling every
 * 10 ms, within a sample. Returns the first demotion (0: none in 20 s). */
static int64_t planned_first_demotion(bool with_percpu_horizon, uint64_t *checks)
{
	struct task t[1] = { { .cpu = 0, .demand = 1.0 } };
	struct machine m;
	struct iso_plan p;
	int64_t next = 0;

	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	*checks = 0;
	while (m.now < 20 * SEC) {
		m.now += MS;
		t[0].cpu_ns += MS;
		if (m.now < next)
			continue;
		m_sample(&m);
		(*checks)++;
		if (t[0].t.demoted)
			return m.now;
		iso_plan_begin(&p);
		iso_plan_task(&p, &m.e, &t[0].t);
		if (with_percpu_horizon)
			p.percpu = &m.p;
		next = iso_plan_end(&p, &m.e, &m.s, m.now, 10 * MS);
	}
	return 0;
}

static void test_planned_checks(void **state)
{
	struct task t[1] = { { .cpu = 0, .demand = 1.0 } };
	struct machine m;
	int64_t sampled = 0, planned;
	uint64_t checks;

	(void)state;
	m_init(&m, ISO_SCOPE_PER_CPU, t, 1);
	while (!t[0].t.demoted && m.now < 20 * SEC)
		m_run(&m, 1);
	sampled = m.now;
	planned = planned_first_demotion(true, &checks);
	assert_true(planned > 0);
	assert_true(planned >= sampled - 10 * MS && planned <= sampled + 10 * MS);
	/* a handful of checks, not one every 10 ms */
	assert_true(checks < 100);
	assert_int_equal(planned_first_demotion(false, &checks), 0);
}

static void test_scope_names(void **state)
{
	enum iso_scope s;
	struct iso_percpu p;

	(void)state;
	assert_int_equal(iso_scope_parse("per-cpu", &s), 0);
	assert_int_equal(s, ISO_SCOPE_PER_CPU);
	assert_int_equal(iso_scope_parse("GLOBAL", &s), 0);
	assert_int_equal(s, ISO_SCOPE_GLOBAL);
	assert_int_equal(iso_scope_parse("percpu", &s), -EINVAL);
	assert_int_equal(iso_scope_parse("", &s), -EINVAL);
	assert_string_equal(iso_scope_name(ISO_SCOPE_PER_CPU), "per-cpu");
	assert_string_equal(iso_scope_name(ISO_SCOPE_GLOBAL), "global");
	assert_int_equal(iso_percpu_init(&p, NULL, 2, ISO_SCOPE_PER_CPU), -EINVAL);
	assert_int_equal(iso_percpu_init(&p, NULL, 0, ISO_SCOPE_GLOBAL), 0);
	assert_int_equal(iso_percpu_init(&p, NULL, 0, (enum iso_scope)7), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runaway_on_one_cpu),
		cmocka_unit_test(test_demote_restore_hysteresis),
		cmocka_unit_test(test_migrated_stays_demoted),
		cmocka_unit_test(test_cpu_out_of_range),
		cmocka_unit_test(test_other_rules_kept),
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_planned_checks),
		cmocka_unit_test(test_scope_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
