/* test_recent.c — the burst guard's records of threads that left ISO
 * (iso_recent.h): found by thread, else by user; the most binding one;
 * expiry; a full table gives up the record that ends first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_recent.h"

#define MS 1000000LL
#define SEC 1000000000LL

static struct iso_burst_carry run(int64_t ran, int64_t keep)
{
	return (struct iso_burst_carry){ .ran_ns = ran, .allowance_ns = 200 * MS,
					 .keep_until_ns = keep };
}

static void test_own_then_user(void **state)
{
	struct iso_recent r;
	struct iso_burst_carry c, out;
	bool same;

	(void)state;
	iso_recent_init(&r);
	c = run(100 * MS, 2 * SEC);
	iso_recent_put(&r, 100, 7, 100, 65534, &c);
	c = run(150 * MS, 2 * SEC);
	iso_recent_put(&r, 101, 8, 100, 65534, &c);
	c = (struct iso_burst_carry){ .demoted = true, .until_ns = 3 * SEC, .keep_until_ns = 5 * SEC };
	iso_recent_put(&r, 200, 9, 200, 1000, &c);
	assert_int_equal(iso_recent_count(&r), 3);
	/* its own, taken out */
	assert_true(iso_recent_take(&r, 100, 7, 100, 65534, SEC, &out, &same));
	assert_true(same);
	assert_int_equal(out.ran_ns, 100 * MS);
	assert_int_equal(iso_recent_count(&r), 2);
	/* the same TID with another start time is another thread: the
	 * user's most binding record, which stays */
	assert_true(iso_recent_take(&r, 100, 99, 100, 65534, SEC, &out, &same));
	assert_false(same);
	assert_int_equal(out.ran_ns, 150 * MS);
	/* a new process of the same user */
	assert_true(iso_recent_take(&r, 300, 1, 300, 65534, SEC, &out, &same));
	assert_int_equal(out.ran_ns, 150 * MS);
	assert_int_equal(iso_recent_count(&r), 2);
	/* another user's: never */
	assert_false(iso_recent_take(&r, 301, 1, 301, 4242, SEC, &out, &same));
	/* a back-off binds more than a run */
	c = (struct iso_burst_carry){ .demoted = true, .until_ns = 2 * SEC, .keep_until_ns = 4 * SEC };
	iso_recent_put(&r, 102, 9, 100, 65534, &c);
	assert_true(iso_recent_take(&r, 103, 1, 100, 65534, SEC, &out, &same));
	assert_true(out.demoted);
	/* expired records go */
	assert_false(iso_recent_take(&r, 104, 1, 100, 65534, 4 * SEC, &out, &same));
	assert_int_equal(iso_recent_count(&r), 1); /* uid 1000's, until 5 s */
}

static void test_bounded(void **state)
{
	struct iso_recent r;
	struct iso_burst_carry c, out;
	bool same;

	(void)state;
	iso_recent_init(&r);
	/* the first record ends last; a flood of ISO_RECENT_CAP more pushes
	 * out only records that end sooner */
	c = run(10 * MS, 100 * SEC);
	iso_recent_put(&r, 1, 1, 1, 5, &c);
	for (int i = 0; i < 3 * ISO_RECENT_CAP; i++) {
		c = run(10 * MS, 2 * SEC + i);
		iso_recent_put(&r, 1000 + i, 1, 1000 + i, 6, &c);
	}
	assert_int_equal(iso_recent_count(&r), ISO_RECENT_CAP);
	assert_true(iso_recent_take(&r, 1, 1, 1, 5, SEC, &out, &same));
	assert_true(same);
	/* the same thread again replaces its record */
	c = run(20 * MS, 3 * SEC);
	iso_recent_put(&r, 7, 1, 7, 9, &c);
	c = run(30 * MS, 3 * SEC);
	iso_recent_put(&r, 7, 1, 7, 9, &c);
	assert_true(iso_recent_take(&r, 7, 1, 7, 9, SEC, &out, &same));
	assert_int_equal(out.ran_ns, 30 * MS);
	assert_false(iso_recent_take(&r, 7, 1, 7, 9, SEC, &out, &same));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_then_user),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
