/* Policy rules of the SCHED_ISO patch (docs/semantics.md, "Rule by rule"). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "iso_band.h"
#include "iso_policy.h"

static void test_policy_numbers(void **state)
{
	(void)state;
	assert_int_equal(ISO_POLICY_NORMAL, 0);
	assert_int_equal(ISO_POLICY_FIFO, 1);
	assert_int_equal(ISO_POLICY_RR, 2);
	assert_int_equal(ISO_POLICY_BATCH, 3);
	assert_int_equal(ISO_POLICY_ISO_RR, 4);
	assert_int_equal(ISO_POLICY_IDLE, 5);
	assert_true(iso_policy_is_iso(ISO_POLICY_ISO_RR));
	assert_true(iso_policy_is_iso(ISO_POLICY_ISO_FIFO));
	/* 5 is SCHED_IDLE now, never ISO_FIFO. */
	assert_false(iso_policy_is_iso(5));
	assert_false(iso_policy_is_rt(5));
	assert_string_equal(iso_policy_name(5), "SCHED_IDLE");
	assert_string_equal(iso_policy_name(4), "SCHED_ISO_RR");
	assert_false(iso_policy_known(6));
	assert_false(iso_policy_known(-1));
	/* what the kernel reports: SCHED_EXT is scx_iso's ISO (isoctl status) */
	assert_string_equal(iso_kernel_policy_name(7), "SCHED_EXT");
	assert_string_equal(iso_kernel_policy_name(1 | 0x40000000), "SCHED_FIFO");
	assert_null(iso_kernel_policy_name(4));
	assert_null(iso_kernel_policy_name(-1));
}

static void test_priority_range(void **state)
{
	(void)state;
	assert_int_equal(iso_priority_max(ISO_POLICY_ISO_RR), 99);
	assert_int_equal(iso_priority_min(ISO_POLICY_ISO_RR), 1);
	assert_int_equal(iso_priority_max(ISO_POLICY_ISO_FIFO), 99);
	assert_int_equal(iso_priority_min(ISO_POLICY_ISO_FIFO), 1);
	assert_int_equal(iso_priority_max(ISO_POLICY_FIFO), 99);
	assert_int_equal(iso_priority_min(ISO_POLICY_RR), 1);
	assert_int_equal(iso_priority_max(ISO_POLICY_NORMAL), 0);
	assert_int_equal(iso_priority_min(ISO_POLICY_NORMAL), 0);
	assert_int_equal(iso_priority_max(ISO_POLICY_BATCH), 0);
	assert_int_equal(iso_priority_max(ISO_POLICY_IDLE), 0);
	assert_int_equal(iso_priority_max(42), -EINVAL);
	assert_int_equal(iso_priority_min(42), -EINVAL);
}

static void test_check_param(void **state)
{
	(void)state;
	/* 1..99 for RT and ISO */
	for (int p = 1; p <= 99; p++) {
		assert_int_equal(iso_check_param(ISO_POLICY_ISO_RR, p), 0);
		assert_int_equal(iso_check_param(ISO_POLICY_ISO_FIFO, p), 0);
		assert_int_equal(iso_check_param(ISO_POLICY_FIFO, p), 0);
		assert_int_equal(iso_check_param(ISO_POLICY_NORMAL, p), -EINVAL);
	}
	/* 0 with an RT/ISO policy, 0 fine for NORMAL */
	assert_int_equal(iso_check_param(ISO_POLICY_ISO_RR, 0), -EINVAL);
	assert_int_equal(iso_check_param(ISO_POLICY_RR, 0), -EINVAL);
	assert_int_equal(iso_check_param(ISO_POLICY_NORMAL, 0), 0);
	assert_int_equal(iso_check_param(ISO_POLICY_IDLE, 0), 0);
	/* outside 0..99 */
	assert_int_equal(iso_check_param(ISO_POLICY_ISO_FIFO, 100), -EINVAL);
	assert_int_equal(iso_check_param(ISO_POLICY_ISO_FIFO, -1), -EINVAL);
	assert_int_equal(iso_check_param(ISO_POLICY_NORMAL, -1), -EINVAL);
	/* unknown policy */
	assert_int_equal(iso_check_param(7, 0), -EINVAL);
}

static void test_downgrade(void **state)
{
	(void)state;
	assert_int_equal(iso_downgrade(ISO_POLICY_FIFO, false), ISO_POLICY_ISO_FIFO);
	assert_int_equal(iso_downgrade(ISO_POLICY_RR, false), ISO_POLICY_ISO_RR);
	assert_int_equal(iso_downgrade(ISO_POLICY_FIFO, true), ISO_POLICY_FIFO);
	assert_int_equal(iso_downgrade(ISO_POLICY_RR, true), ISO_POLICY_RR);
	/* policy 4 needs no privilege and stays ISO_RR */
	assert_int_equal(iso_downgrade(ISO_POLICY_ISO_RR, false), ISO_POLICY_ISO_RR);
	/* policy 5 (SCHED_IDLE) passes through untouched */
	assert_int_equal(iso_downgrade(ISO_POLICY_IDLE, false), ISO_POLICY_IDLE);
	assert_int_equal(iso_downgrade(ISO_POLICY_NORMAL, false), ISO_POLICY_NORMAL);
	assert_int_equal(iso_downgrade(ISO_POLICY_BATCH, false), ISO_POLICY_BATCH);
}

static void test_owner(void **state)
{
	(void)state;
	/* euid matches the target's uid or euid */
	assert_int_equal(iso_check_owner(1000, false, 1000, 1000), 0);
	assert_int_equal(iso_check_owner(1000, false, 1000, 0), 0);
	assert_int_equal(iso_check_owner(1000, false, 0, 1000), 0);
	/* neither, without CAP_SYS_NICE */
	assert_int_equal(iso_check_owner(1000, false, 1001, 1001), -EPERM);
	assert_int_equal(iso_check_owner(1000, true, 1001, 1001), 0);
}

static void test_user_prio(void **state)
{
	(void)state;
	assert_int_equal(iso_user_prio(ISO_POLICY_NORMAL, 0, -20), 0);
	assert_int_equal(iso_user_prio(ISO_POLICY_NORMAL, 0, 0), 20);
	assert_int_equal(iso_user_prio(ISO_POLICY_NORMAL, 0, 19), 39);
	assert_int_equal(iso_user_prio(ISO_POLICY_ISO_RR, 1, 0), -1);
	assert_int_equal(iso_user_prio(ISO_POLICY_ISO_FIFO, 99, 0), -99);
	assert_int_equal(iso_user_prio(ISO_POLICY_FIFO, 1, 0), -101);
	assert_int_equal(iso_user_prio(ISO_POLICY_RR, 99, 0), -199);
	/* every ISO priority sits between NORMAL and RT */
	for (int p = 1; p <= 99; p++) {
		int iso = iso_user_prio(ISO_POLICY_ISO_RR, p, 0);
		assert_true(iso < iso_user_prio(ISO_POLICY_NORMAL, 0, -20));
		assert_true(iso > iso_user_prio(ISO_POLICY_FIFO, 1, 0));
	}
}

static void test_band_map(void **state)
{
	struct iso_band b = { ISO_BAND_DEFAULT_LO, ISO_BAND_DEFAULT_HI };
	const char *why;
	(void)state;
	assert_int_equal(iso_band_check(&b, &why), 0);
	assert_int_equal(iso_band_map(&b, 1), b.lo);
	assert_int_equal(iso_band_map(&b, 99), b.hi);
	/* order-preserving for every band of 1..98 levels */
	for (int lo = 1; lo <= 98; lo++) {
		for (int hi = lo; hi <= 98; hi++) {
			struct iso_band x = { lo, hi };
			int prev = iso_band_map(&x, 1);
			assert_int_equal(prev, lo);
			for (int p = 2; p <= 99; p++) {
				int k = iso_band_map(&x, p);
				assert_true(k >= prev);
				assert_true(k <= prev + 1); /* even steps, no gaps */
				assert_in_range(k, lo, hi);
				prev = k;
			}
			assert_int_equal(prev, hi);
		}
	}
	/* the widest band (98 levels; the enforcer needs 99) uses every level */
	b.lo = 1;
	b.hi = 98;
	{
		int distinct = 1;
		for (int p = 2; p <= 99; p++)
			distinct += iso_band_map(&b, p) != iso_band_map(&b, p - 1);
		assert_int_equal(distinct, 98);
	}
	assert_int_equal(iso_band_map(&b, 0), -EINVAL);
	assert_int_equal(iso_band_map(&b, 100), -EINVAL);
}

static void test_band_invalid(void **state)
{
	const char *why = 0;
	struct iso_band bad[] = { { 0, 10 }, { 10, 99 }, { 30, 20 }, { -5, 3 }, { 1, 120 } };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = 0;
		assert_int_equal(iso_band_check(&bad[i], &why), -EINVAL);
		assert_non_null(why);
		assert_int_equal(iso_band_map(&bad[i], 50), -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_numbers),
		cmocka_unit_test(test_priority_range),
		cmocka_unit_test(test_check_param),
		cmocka_unit_test(test_downgrade),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_user_prio),
		cmocka_unit_test(test_band_map),
		cmocka_unit_test(test_band_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
