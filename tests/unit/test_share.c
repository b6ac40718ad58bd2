/* test_share.c — the per-user share of the ISO budget (iso_share.h) on
 * synthetic traces: a simulated two-CPU machine, 1 ms resolution, sampled
 * every 10 ms the way isod's enforcer does (share, then engine). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_engine.h"
#include "iso_share.h"

#define MS 1000000LL
#define SEC 1000000000LL
#define NCPUS 2
#define MAXT 8

struct task {
	struct iso_task t;
	uint32_t uid;
	double demand;        /* CPUs' worth used while ISO */
	uint64_t cpu_ns;
	int64_t demoted_ms;   /* time spent demoted */
	bool ever_demoted;
};

struct machine {
	struct iso_engine e;
	struct iso_share s;
	struct iso_share_user users[MAXT];
	struct iso_tunables tun;
	struct task *t;
	size_t n;
	int64_t now;
	bool share_hook;      /* false: the engine alone, as before user_cpu */
};

static void m_init(struct machine *m, unsigned iso_cpu, unsigned user_cpu,
		   struct task *t, size_t n)
{
	m->tun = (struct iso_tunables){ iso_cpu, 5 };
	assert_int_equal(iso_engine_init(&m->e, &m->tun, NCPUS), 0);
	assert_int_equal(iso_share_init(&m->s, m->users, MAXT, user_cpu), 0);
	m->t = t;
	m->n = n;
	m->now = 0;
	m->share_hook = true;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(iso_task_init(&t[i].t, 0), 0);
		t[i].cpu_ns = 0;
		t[i].demoted_ms = 0;
		t[i].ever_demoted = false;
	}
}

static void m_sample(struct machine *m)
{
	iso_engine_begin(&m->e);
	if (m->share_hook)
		iso_share_begin(&m->s);
	for (size_t i = 0; i < m->n; i++) {
		struct task *k = &m->t[i];

		if (m->share_hook)
			assert_int_equal(iso_share_account(&m->s, k->uid,
					 iso_task_iso_delta(&k->t, k->cpu_ns)), 0);
		iso_engine_account(&m->e, &k->t, k->cpu_ns);
	}
	assert_int_equal(iso_engine_commit(&m->e, m->now), 0);
	if (m->share_hook)
		assert_int_equal(iso_share_commit(&m->s, &m->tun, m->now, NCPUS), 0);
	for (size_t i = 0; i < m->n; i++) {
		if (m->share_hook)
			(void)iso_share_decide(&m->e, &m->s, m->t[i].uid, &m->t[i].t);
		else
			(void)iso_engine_decide(&m->e, &m->t[i].t);
		m->t[i].ever_demoted |= m->t[i].t.demoted;
	}
}

/* dur ns; a demoted task gets demoted_share of a CPU (SCHED_OTHER). */
static void m_run(struct machine *m, int64_t dur, double demoted_share)
{
	int64_t end = m->now + dur;

	while (m->now < end) {
		if (m->now % (10 * MS) == 0)
			m_sample(m);
		for (size_t i = 0; i < m->n; i++) {
			struct task *k = &m->t[i];
			double share = k->t.demoted ? fmin(demoted_share, k->demand) : k->demand;

			k->cpu_ns += (uint64_t)(share * (double)MS);
			if (k->t.demoted)
				k->demoted_ms++;
		}
		m->now += MS;
	}
}

/* nobody (65534) runs away on both CPUs; daemon (1) uses 10 % of one CPU. */
static void runaway_and_polite(struct task t[3])
{
	t[0] = (struct task){ .uid = 65534, .demand = 1.0 };
	t[1] = (struct task){ .uid = 65534, .demand = 1.0 };
	t[2] = (struct task){ .uid = 1, .demand = 0.1 };
}

/* user_cpu 50 of iso_cpu 70: a uid may hold 35 % of the CPUs. The runaway
 * is demoted, alone; the polite user never is; the machine never goes
 * refractory. The runaway's use hovers in its share's hysteresis band. */
static void test_runaway_demoted_alone(void **state)
{
	struct task t[3];
	struct machine m;
	(void)state;
	runaway_and_polite(t);
	m_init(&m, 70, 50, t, 3);
	m_run(&m, 60 * SEC, 0.5);
	assert_true(t[0].ever_demoted);
	assert_true(t[1].ever_demoted);
	assert_false(t[2].ever_demoted);
	assert_false(iso_engine_refractory(&m.e));
	print_message("nobody %.2f %%, daemon %.2f %%, all %.2f %%\n",
		      iso_share_usage(&m.s, 65534), iso_share_usage(&m.s, 1),
		      iso_engine_usage(&m.e));
	assert_true(iso_share_usage(&m.s, 65534) <= 35.0 + 1.0);
	assert_true(iso_share_usage(&m.s, 65534) >= 31.5 - 1.0);
	assert_true(fabs(iso_share_usage(&m.s, 1) - 5.0) < 0.5);
	/* first demotion when its average crosses 35 %: 5 s · ln(1/(1 − 0.35)) */
}

/* user_cpu 0: today's semantics — the runaway takes everyone down. */
static void test_off_everyone_refractory(void **state)
{
	struct task t[3];
	struct machine m;
	(void)state;
	runaway_and_polite(t);
	m_init(&m, 70, 0, t, 3);
	m_run(&m, 30 * SEC, 0.5);
	assert_true(t[0].ever_demoted);
	assert_true(t[2].ever_demoted);
	assert_false(iso_share_over(&m.s, 65534));
}

/* With shares off, the decisions are exactly the engine's alone, step by
 * step, on a trace that crosses the budget both ways. */
static void test_off_is_engine_alone(void **state)
{
	struct task a[3], b[3];
	struct machine ma, mb;
	(void)state;
	runaway_and_polite(a);
	runaway_and_polite(b);
	a[0].t.limit = b[0].t.limit = 0;
	m_init(&ma, 70, 0, a, 3);
	m_init(&mb, 70, 0, b, 3);
	mb.share_hook = false;
	a[2].t.limit = b[2].t.limit = 50;
	for (int step = 0; step < 3000; step++) {
		if (step == 1500)
			for (size_t i = 0; i < 2; i++)
				a[i].demand = b[i].demand = 0.0;
		m_run(&ma, 10 * MS, 0.5);
		m_run(&mb, 10 * MS, 0.5);
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(a[i].t.demoted, b[i].t.demoted);
		assert_true(iso_engine_usage(&ma.e) == iso_engine_usage(&mb.e));
	}
}

/* One user holding all ISO use is averaged exactly like the global use. */
static void test_same_average_as_global(void **state)
{
	struct task t[1];
	struct machine m;
	(void)state;
	t[0] = (struct task){ .uid = 7, .demand = 0.6 };
	m_init(&m, 70, 100, t, 1);
	for (int i = 0; i < 1000; i++) {
		m_run(&m, 10 * MS, 0.0);
		assert_true(fabs(iso_share_usage(&m.s, 7) - iso_engine_usage(&m.e)) < 1e-9);
	}
	assert_true(fabs(iso_share_usage(&m.s, 7) - 30.0 * (1.0 - exp(-10.0 / 5.0))) < 0.5);
}

/* The same with isod's read schedule (iso_engine_due): a light task is
 * read every 16th step only, so its CPU time comes in lumps larger than a
 * step could hold; the share carries them exactly as the engine does. */
static void test_same_average_scheduled(void **state)
{
	struct iso_engine e;
	struct iso_share s;
	struct iso_share_user users[2];
	struct iso_tunables tun = { 70, 2 };
	struct iso_task t;
	uint64_t cpu = 0;
	int64_t now = 0;
	(void)state;
	assert_int_equal(iso_engine_init(&e, &tun, 2), 0);
	assert_int_equal(iso_share_init(&s, users, 2, 50), 0);
	assert_int_equal(iso_task_init(&t, 0), 0);
	for (int step = 0; step < 3000; step++) {
		now += 10 * MS;
		/* 1 ms in every 10 ms: below 1/8 of a CPU, a cold task */
		cpu += (step / 500) % 2 ? 1 * MS : 9 * MS;
		iso_engine_begin(&e);
		iso_share_begin(&s);
		if (iso_engine_due(&e, &t)) {
			assert_int_equal(iso_share_account(&s, 3, iso_task_iso_delta(&t, cpu)), 0);
			iso_engine_account_read(&e, &t, cpu, now);
		}
		assert_int_equal(iso_engine_commit(&e, now), 0);
		assert_int_equal(iso_share_commit(&s, &tun, now, 2), 0);
		(void)iso_share_decide(&e, &s, 3, &t);
		assert_true(fabs(iso_share_usage(&s, 3) - iso_engine_usage(&e)) < 1e-9);
	}
}

/* Hysteresis: over above the share, back below 90 % of it. */
static void test_share_hysteresis(void **state)
{
	struct iso_share_user users[2];
	struct iso_share s;
	struct iso_tunables tun = { 80, 1 };
	(void)state;
	assert_int_equal(iso_share_init(&s, users, 2, 50), 0); /* 40 % */
	assert_true(fabs(iso_share_limit(&s, &tun) - 40.0) < 1e-9);
	assert_int_equal(iso_share_commit(&s, &tun, 0, 1), 0);
	/* 100 % of the CPU for a long time: over */
	iso_share_begin(&s);
	assert_int_equal(iso_share_account(&s, 5, 20 * SEC), 0);
	assert_int_equal(iso_share_commit(&s, &tun, 20 * SEC, 1), 0);
	assert_true(iso_share_over(&s, 5));
	assert_false(iso_share_over(&s, 6));
	/* idle: decays through 40 % (still over) to below 36 % */
	for (int64_t now = 20 * SEC + 10 * MS; iso_share_usage(&s, 5) >= 36.0; now += 10 * MS) {
		assert_true(iso_share_over(&s, 5));
		iso_share_begin(&s);
		assert_int_equal(iso_share_commit(&s, &tun, now, 1), 0);
	}
	assert_false(iso_share_over(&s, 5));
	/* off: nobody is over, whatever the use */
	iso_share_begin(&s);
	assert_int_equal(iso_share_account(&s, 5, 20 * SEC), 0);
	assert_int_equal(iso_share_commit(&s, &tun, 60 * SEC, 1), 0);
	assert_true(iso_share_over(&s, 5));
	assert_int_equal(iso_share_retune(&s, 0), 0);
	assert_false(iso_share_over(&s, 5));
	assert_int_equal(iso_share_retune(&s, 101), -EINVAL);
}

/* A full table refuses a new uid (its time counts for nobody: no false
 * demotion); a uid with nothing left is forgotten, freeing its entry. */
static void test_table_full_and_forget(void **state)
{
	struct iso_share_user users[1];
	struct iso_share s;
	struct iso_tunables tun = { 70, 1 };
	(void)state;
	assert_int_equal(iso_share_init(&s, users, 1, 50), 0);
	assert_int_equal(iso_share_commit(&s, &tun, 0, 1), 0);
	iso_share_begin(&s);
	assert_int_equal(iso_share_account(&s, 1, 0), 0);
	assert_int_equal(iso_share_account(&s, 2, SEC), -ENOSPC);
	assert_int_equal(iso_share_commit(&s, &tun, 10 * MS, 1), 0);
	assert_false(iso_share_over(&s, 2));
	/* uid 1 used nothing and has no task this step: forgotten */
	iso_share_begin(&s);
	assert_int_equal(iso_share_commit(&s, &tun, 20 * MS, 1), 0);
	iso_share_begin(&s);
	assert_int_equal(iso_share_account(&s, 2, 0), 0);
}

/* The global rule still binds everyone: two users each within a 50 %
 * share (35 %) but together over iso_cpu 70 make everyone refractory. */
static void test_global_rule_still_applies(void **state)
{
	struct task t[2];
	struct machine m;
	(void)state;
	t[0] = (struct task){ .uid = 10, .demand = 0.66 };
	t[1] = (struct task){ .uid = 11, .demand = 0.66 };
	m_init(&m, 60, 60, t, 2); /* share 36 %, each uses 33 %, together 66 % */
	m_run(&m, 30 * SEC, 0.0);
	assert_false(iso_share_over(&m.s, 10));
	assert_false(iso_share_over(&m.s, 11));
	assert_true(t[0].ever_demoted);
	assert_true(t[1].ever_demoted);
}

/* A user's task that leaves between steps (iso_share_charge): its time
 * counts at the next commit, as a sample would have. */
static void test_charge_between_steps(void **state)
{
	struct iso_share a, b;
	struct iso_share_user ua[2], ub[2];
	struct iso_tunables tun = { 70, 5 };
	int64_t now = 0;

	(void)state;
	assert_int_equal(iso_share_init(&a, ua, 2, 50), 0);
	assert_int_equal(iso_share_init(&b, ub, 2, 50), 0);
	assert_int_equal(iso_share_commit(&a, &tun, now, NCPUS), 0);
	assert_int_equal(iso_share_commit(&b, &tun, now, NCPUS), 0);
	for (int i = 0; i < 1000; i++) {
		now += 10 * MS;
		assert_int_equal(iso_share_charge(&b, 7, 10 * MS), 0);
		iso_share_begin(&a);
		iso_share_begin(&b);
		assert_int_equal(iso_share_account(&a, 7, 10 * MS), 0);
		assert_int_equal(iso_share_commit(&a, &tun, now, NCPUS), 0);
		assert_int_equal(iso_share_commit(&b, &tun, now, NCPUS), 0);
		assert_true(fabs(iso_share_usage(&a, 7) - iso_share_usage(&b, 7)) < 1e-9);
	}
	/* 50 % of the machine for 10 s is over a share of 70 % · 50 % */
	assert_true(iso_share_over(&b, 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runaway_demoted_alone),
		cmocka_unit_test(test_off_everyone_refractory),
		cmocka_unit_test(test_off_is_engine_alone),
		cmocka_unit_test(test_same_average_as_global),
		cmocka_unit_test(test_same_average_scheduled),
		cmocka_unit_test(test_share_hysteresis),
		cmocka_unit_test(test_table_full_and_forget),
		cmocka_unit_test(test_global_rule_still_applies),
		cmocka_unit_test(test_charge_between_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
