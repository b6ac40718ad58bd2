/* isobench's median and its order-statistic confidence interval
 * (src/bench/common/stats.c): known small samples against the binomial
 * tables, ties, too few values, all values equal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

static void test_too_few(void **state)
{
	double v[5] = { 3, 1, 2, 5, 4 };
	struct median_ci m;

	(void)state;
	median_ci_of(v, 0, 0.95, &m);
	assert_int_equal(m.n, 0);
	assert_false(m.have_ci);
	/* five values: even [min, max] covers only 1 - 2/32 = 93.75 % */
	median_ci_of(v, 5, 0.95, &m);
	assert_int_equal(m.n, 5);
	assert_float_equal(m.median, 3.0, 0);
	assert_false(m.have_ci);
	median_ci_of(v, 1, 0.95, &m);
	assert_float_equal(m.median, 1.0, 0);
	assert_false(m.have_ci);
	/* a lower level is reachable with five */
	median_ci_of(v, 5, 0.90, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.lo, 1.0, 0);
	assert_float_equal(m.hi, 5.0, 0);
}

static void test_six_is_min_max(void **state)
{
	double v[MEDIAN_CI_MIN_N] = { 1.10, 0.90, 1.00, 1.30, 0.95, 1.05 };
	struct median_ci m;

	(void)state;
	median_ci_of(v, MEDIAN_CI_MIN_N, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.median, (1.00 + 1.05) / 2, 1e-12);
	assert_float_equal(m.lo, 0.90, 0);
	assert_float_equal(m.hi, 1.30, 0);
	assert_float_equal(m.level_got, 1.0 - 2.0 / 64.0, 1e-12);
}

/* the ranks of the usual tables: n = 10 -> x(2)..x(9), n = 20 ->
 * x(6)..x(15), n = 100 -> x(40)..x(61) */
static void check_ranks(int n, int lo_rank, int hi_rank, double level)
{
	double v[100];
	struct median_ci m;

	/* values that are their own rank, given shuffled */
	for (int i = 0; i < n; i++)
		v[i] = (double)(((i * 7) % n) + 1);
	median_ci_of(v, n, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.lo, lo_rank, 0);
	assert_float_equal(m.hi, hi_rank, 0);
	assert_float_equal(m.median, (n + 1) / 2.0, 0);
	assert_float_equal(m.level_got, level, 1e-4);
	assert_true(m.level_got >= 0.95);
}

static void test_table_ranks(void **state)
{
	(void)state;
	check_ranks(10, 2, 9, 0.9785);
	check_ranks(20, 6, 15, 0.9586);
	check_ranks(100, 40, 61, 0.9648);
}

static void test_ties(void **state)
{
	double v[7] = { 2, 1, 2, 2, 3, 2, 2 };
	double w[8] = { 1, 1, 1, 1, 2, 2, 2, 2 };
	struct median_ci m;

	(void)state;
	/* n = 7: [x(1), x(7)] at 1 - 2/128 */
	median_ci_of(v, 7, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.median, 2.0, 0);
	assert_float_equal(m.lo, 1.0, 0);
	assert_float_equal(m.hi, 3.0, 0);
	/* n = 8: [x(1), x(8)]; the median between the tied halves */
	median_ci_of(w, 8, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.median, 1.5, 0);
	assert_float_equal(m.lo, 1.0, 0);
	assert_float_equal(m.hi, 2.0, 0);
	assert_true(m.lo <= m.median && m.median <= m.hi);
}

static void test_all_equal(void **state)
{
	double v[12];
	struct median_ci m;

	(void)state;
	for (int i = 0; i < 12; i++)
		v[i] = 1.25;
	median_ci_of(v, 12, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.median, 1.25, 0);
	assert_float_equal(m.lo, 1.25, 0);
	assert_float_equal(m.hi, 1.25, 0);
}

/* the largest count isobench allows (--rounds 1000): no underflow, an
 * interval around the middle */
static void test_large(void **state)
{
	static double v[1000]; /* static: too big for a test's stack frame */
	struct median_ci m;

	(void)state;
	for (int i = 0; i < 1000; i++)
		v[i] = (double)(999 - i);
	median_ci_of(v, 1000, 0.95, &m);
	assert_true(m.have_ci);
	assert_float_equal(m.median, 499.5, 0);
	assert_true(m.lo < 499.5 && m.hi > 499.5);
	assert_true(m.lo >= 460 && m.hi <= 540);
	assert_true(m.level_got >= 0.95 && m.level_got < 0.96);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_six_is_min_max),
		cmocka_unit_test(test_table_ranks),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
