/* Where a step's CPU time fell (iso_place.h): the factor's cases, and a
 * runaway the kernel throttles 50 ms a second, fed in long steps: placed
 * by its off-CPU intervals the average is the one of 1 ms steps over what
 * it really used; spread evenly it is not (the early demotions of
 * isobench --enforcement, docs/benchmarks.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_engine.h"
#include "iso_place.h"

#define MS 1000000LL
#define SEC 1000000000LL

static void test_nothing_known(void **state)
{
	struct iso_offcpu none = { 0 }, many = { .n = 3 };
	struct iso_offcpu outside = { 1, { 2 * SEC }, { 3 * SEC } };

	(void)state;
	assert_true(iso_place_factor(0, SEC, 5.0, 100 * MS, NULL) == 1.0);
	assert_true(iso_place_factor(0, SEC, 5.0, 100 * MS, &none) == 1.0);
	assert_true(iso_place_factor(0, SEC, 5.0, 100 * MS, &many) == 1.0);
	/* an interval outside the step says nothing of it */
	assert_true(iso_place_factor(0, SEC, 5.0, 100 * MS, &outside) == 1.0);
	/* no step, no period, no time */
	assert_true(iso_place_factor(SEC, SEC, 5.0, 100 * MS, &outside) == 1.0);
	assert_true(iso_place_factor(0, SEC, 0.0, 100 * MS, &outside) == 1.0);
	assert_true(iso_place_factor(0, SEC, 5.0, 0, &outside) == 1.0);
}

static void test_where_it_fell(void **state)
{
	struct iso_offcpu late = { 1, { 900 * MS }, { SEC } };
	struct iso_offcpu early = { 1, { 0 }, { 100 * MS } };

	(void)state;
	/* off at the end: its time was earlier, and weighs less */
	assert_true(iso_place_factor(0, SEC, 5.0, 900 * MS, &late) < 0.999);
	/* off at the start: later, more */
	assert_true(iso_place_factor(0, SEC, 5.0, 900 * MS, &early) > 1.001);
	/* the closed form for one interval at the end: average weight over
	 * [0, 0.9 s] against over [0, 1 s], τ = 5 s */
	double want = (5.0 * (exp(-0.1 / 5) - exp(-1.0 / 5)) / 0.9) / (5.0 * (1 - exp(-1.0 / 5)));

	assert_float_equal(iso_place_factor(0, SEC, 5.0, 900 * MS, &late), want, 1e-9);
}

static void test_wrong_intervals(void **state)
{
	struct iso_offcpu half = { 1, { 0 }, { 500 * MS } };
	struct iso_offcpu all = { 1, { -SEC }, { 2 * SEC } };

	(void)state;
	/* 900 ms used in a second it was off for half of: not so */
	assert_true(iso_place_factor(0, SEC, 5.0, 900 * MS, &half) == 1.0);
	assert_true(iso_place_factor(0, SEC, 5.0, 1, &all) == 1.0);
	/* a little over, as two reads apart give: still placed */
	assert_true(iso_place_factor(0, SEC, 5.0, 500 * MS + 100000, &half) != 1.0);
}

static void test_order_and_overlap(void **state)
{
	struct iso_offcpu one = { 1, { 200 * MS }, { 500 * MS } };
	struct iso_offcpu two = { 2, { 300 * MS, 200 * MS }, { 500 * MS, 400 * MS } };
	struct iso_offcpu apart = { 2, { 700 * MS, 100 * MS }, { 800 * MS, 200 * MS } };
	struct iso_offcpu apart_sorted = { 2, { 100 * MS, 700 * MS }, { 200 * MS, 800 * MS } };

	(void)state;
	assert_float_equal(iso_place_factor(0, SEC, 5.0, 600 * MS, &one),
			   iso_place_factor(0, SEC, 5.0, 600 * MS, &two), 1e-12);
	assert_float_equal(iso_place_factor(0, SEC, 5.0, 700 * MS, &apart),
			   iso_place_factor(0, SEC, 5.0, 700 * MS, &apart_sorted), 1e-12);
	/* three, unsorted, two of them overlapping: as the two they make */
	struct iso_offcpu three = { 3, { 700 * MS, 100 * MS, 150 * MS },
				    { 800 * MS, 200 * MS, 250 * MS } };
	struct iso_offcpu three_merged = { 2, { 100 * MS, 700 * MS }, { 250 * MS, 800 * MS } };

	assert_float_equal(iso_place_factor(0, SEC, 5.0, 600 * MS, &three),
			   iso_place_factor(0, SEC, 5.0, 600 * MS, &three_merged), 1e-12);
}

/* A thread granted inside a step, flat out from its grant (a spinner kept
 * off a CPU by another for its first 45 ms): its time is placed after its
 * baseline (iso_task_rebase), so the average is the exact 1 ms one; spread
 * over the whole step it read up to half a point low, and the demotion
 * came ~10 ms late (isobench --enforcement, 2 of 40 trials). */
static void test_granted_inside_a_step(void **state)
{
	const struct iso_tunables tun = { 70, 1 };
	const int64_t grant_b = 45 * MS, step = 600 * MS;
	struct iso_engine e;
	struct iso_task a, b;
	struct iso_budget exact;
	double worst = 0;

	(void)state;
	assert_int_equal(iso_engine_init(&e, &tun, 2), 0);
	assert_int_equal(iso_task_init(&a, 0), 0);
	assert_int_equal(iso_task_init(&b, 0), 0);
	iso_budget_init(&exact);
	iso_budget_feed(&exact, &tun, 0, 0, 2);
	iso_engine_begin(&e);
	iso_engine_account(&e, &a, 0);
	assert_int_equal(iso_engine_commit(&e, 0), 0);
	iso_task_rebase(&b, 0, grant_b);
	for (int64_t t = MS; t <= 3 * SEC; t += MS) {
		/* a runs from 0, b from its grant: one CPU each */
		iso_budget_feed(&exact, &tun, t, (uint64_t)(MS + (t > grant_b ? MS : 0)), 2);
		if (t % step)
			continue;
		iso_engine_begin(&e);
		iso_engine_account_placed(&e, &a, (uint64_t)t, t, NULL);
		iso_engine_account_placed(&e, &b, (uint64_t)(t - grant_b), t, NULL);
		assert_int_equal(iso_engine_commit(&e, t), 0);
		worst = fmax(worst, fabs(iso_engine_usage(&e) - exact.usage));
	}
	assert_true(worst < 1e-6);
	print_message("granted 45 ms into a 600 ms step: worst |usage - exact| %.2e points\n",
		      worst);
}

/* ---- a throttled runaway ---------------------------------------------- */

#define GAP_EVERY (1000 * MS)
#define GAP_LEN (50 * MS)

/* off the CPU in [k·1 s + phase, + 50 ms) for every k */
static int64_t used_until(int64_t t, int64_t phase)
{
	int64_t k = (t - phase) >= 0 ? (t - phase) / GAP_EVERY : -1, used = 0;

	/* whole gaps before t, and the one t may be inside */
	used = t;
	for (int64_t j = 0; j <= k; j++) {
		int64_t a = phase + j * GAP_EVERY, b = a + GAP_LEN;

		used -= (t < b ? t : b) - a;
	}
	return used;
}

/* the gaps of [a, b): at most two, as the program reports at most the
 * longest finished one and the one it is in */
static void gaps_in(int64_t a, int64_t b, int64_t phase, struct iso_offcpu *off)
{
	off->n = 0;
	for (int64_t g = phase; g < b && off->n < ISO_OFFCPU_MAX; g += GAP_EVERY) {
		if (g + GAP_LEN <= a)
			continue;
		off->from[off->n] = g;
		off->to[off->n] = g + GAP_LEN > b ? b : g + GAP_LEN;
		off->n++;
	}
}

static void run_throttled(int64_t phase, int64_t step, double *worst_placed, double *worst_even)
{
	const struct iso_tunables tun = { 70, 5 };
	struct iso_engine placed, even;
	struct iso_task tp, te;
	struct iso_budget exact;
	int64_t t, next = step;

	assert_int_equal(iso_engine_init(&placed, &tun, 1), 0);
	assert_int_equal(iso_engine_init(&even, &tun, 1), 0);
	assert_int_equal(iso_task_init(&tp, 0), 0);
	assert_int_equal(iso_task_init(&te, 0), 0);
	iso_budget_init(&exact);
	iso_budget_feed(&exact, &tun, 0, 0, 1);
	for (struct iso_engine *e = &placed; e; e = e == &placed ? &even : NULL) {
		iso_engine_begin(e);
		iso_engine_account(e, e == &placed ? &tp : &te, 0);
		assert_int_equal(iso_engine_commit(e, 0), 0);
	}
	*worst_placed = *worst_even = 0;
	for (t = MS; t <= 8 * SEC; t += MS) {
		iso_budget_feed(&exact, &tun, t, (uint64_t)(used_until(t, phase) - used_until(t - MS, phase)), 1);
		if (t != next)
			continue;
		struct iso_offcpu off;

		gaps_in(t - step, t, phase, &off);
		iso_engine_begin(&placed);
		iso_engine_account_placed(&placed, &tp, (uint64_t)used_until(t, phase), t, &off);
		assert_int_equal(iso_engine_commit(&placed, t), 0);
		iso_engine_begin(&even);
		iso_engine_account(&even, &te, (uint64_t)used_until(t, phase));
		assert_int_equal(iso_engine_commit(&even, t), 0);
		*worst_placed = fmax(*worst_placed, fabs(iso_engine_usage(&placed) - exact.usage));
		*worst_even = fmax(*worst_even, fabs(iso_engine_usage(&even) - exact.usage));
		next += step;
	}
}

static void test_throttled_runaway(void **state)
{
	double worst_placed = 0, worst_even = 0;

	(void)state;
	/* steps of 700 ms and 300 ms (the plan's halving steps are between),
	 * the throttle anywhere in them */
	for (int64_t step = 300 * MS; step <= 700 * MS; step += 400 * MS)
		for (int64_t phase = 0; phase < GAP_EVERY; phase += 37 * MS) {
			double p, e;

			run_throttled(phase, step, &p, &e);
			worst_placed = fmax(worst_placed, p);
			worst_even = fmax(worst_even, e);
		}
	/* placed: the 1 ms average, up to rounding (a usage point is
	 * ~17 ms of a runaway's climb at 70 %); even: far from it */
	assert_true(worst_placed < 1e-6);
	assert_true(worst_even > 0.02);
	print_message("worst |usage - exact|: placed %.2e, even %.4f points\n", worst_placed,
		      worst_even);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_known),
		cmocka_unit_test(test_where_it_fell),
		cmocka_unit_test(test_wrong_intervals),
		cmocka_unit_test(test_order_and_overlap),
		cmocka_unit_test(test_throttled_runaway),
		cmocka_unit_test(test_granted_inside_a_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
