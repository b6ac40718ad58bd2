/* The budget's horizon (iso_horizon.h): the closed forms against the
 * average of iso_budget.h run step by step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_budget.h"
#include "iso_horizon.h"

#define MS 1000000LL

static void test_closed_form(void **state)
{
	(void)state;
	/* from idle to 70 % over τ = 5 s: 5·ln(100/30) */
	assert_float_equal(iso_time_to_limit(0, 70, 5), 5.0 * log(100.0 / 30.0), 1e-9);
	assert_float_equal(iso_time_to_limit(40, 70, 5), 5.0 * log(60.0 / 30.0), 1e-9);
	assert_float_equal(iso_time_to_limit(70, 70, 5), 0.0, 0);
	assert_float_equal(iso_time_to_limit(85, 70, 5), 0.0, 0);
	assert_true(isinf(iso_time_to_limit(50, 100, 5)));
	assert_true(isinf(iso_time_to_limit(50, 0, 5)));
	assert_float_equal(iso_time_to_limit(-3, 50, 2), 2.0 * log(2.0), 1e-9);
	/* restore: below 63 % (90 % of 70) at the earliest */
	assert_float_equal(iso_time_to_restore(75, 70, 5), 5.0 * log(75.0 / 63.0), 1e-9);
	assert_float_equal(iso_time_to_restore(60, 70, 5), 0.0, 0);
	assert_true(isinf(iso_time_to_restore(60, 0, 5)));
}

/* Saturate the budget from u0 in 10 ms steps: the first step over the
 * limit comes when the formula says, never earlier. */
static void check_against_budget(double u0, unsigned limit, unsigned period)
{
	struct iso_tunables t = { limit, period };
	struct iso_budget b;
	int64_t now = 0;
	double want = iso_time_to_limit(u0, limit, period);

	iso_budget_init(&b);
	assert_int_equal(iso_budget_feed(&b, &t, now, 0, 1), 0);
	b.usage = u0;
	while (!b.refractory && now < 3600LL * 1000 * MS) {
		now += 10 * MS;
		assert_int_equal(iso_budget_feed(&b, &t, now, 10 * MS, 1), 0);
	}
	assert_true(b.refractory);
	assert_true((double)now / 1e9 >= want - 1e-6);
	assert_true((double)now / 1e9 <= want + 0.011);
}

static void test_matches_budget(void **state)
{
	(void)state;
	check_against_budget(0, 70, 5);
	check_against_budget(35.5, 70, 5);
	check_against_budget(10, 95, 1);
	check_against_budget(0, 5, 60);
}

/* Idle from u0 while refractory: restored when the formula says. */
static void test_restore_matches_budget(void **state)
{
	struct iso_tunables t = { 70, 5 };
	struct iso_budget b;
	int64_t now = 0;
	double want = iso_time_to_restore(90, 70, 5);

	(void)state;
	iso_budget_init(&b);
	assert_int_equal(iso_budget_feed(&b, &t, now, 0, 1), 0);
	b.usage = 90;
	b.refractory = true;
	while (b.refractory) {
		now += 10 * MS;
		assert_int_equal(iso_budget_feed(&b, &t, now, 0, 1), 0);
	}
	assert_true((double)now / 1e9 >= want - 1e-6);
	assert_true((double)now / 1e9 <= want + 0.011);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_closed_form),
		cmocka_unit_test(test_matches_budget),
		cmocka_unit_test(test_restore_matches_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
