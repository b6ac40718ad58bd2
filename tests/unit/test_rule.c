/* The rule's one predicate (iso_rule.h), on literals: every RT priority,
 * every RT policy, root, tracked, the hard RLIMIT_RTPRIO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "iso_rule.h"

#define U 65534u /* nobody */

static enum iso_rule_verdict judge(int policy, int prio, unsigned ruid, unsigned euid,
				   uint64_t hard, bool tracked)
{
	struct iso_rule_thread t = { policy, prio, ruid, euid, hard, tracked };

	return iso_rule_judge(&t);
}

static void test_kernel_rt(void **state)
{
	(void)state;
	for (int prio = 1; prio <= 99; prio++) {
		assert_true(iso_rule_kernel_rt(1, prio));
		assert_true(iso_rule_kernel_rt(2, prio));
	}
	assert_true(iso_rule_kernel_rt(6, 0)); /* DEADLINE */
	assert_true(iso_rule_kernel_rt(1 | 0x40000000, 9)); /* RESET_ON_FORK */
	assert_true(iso_rule_kernel_rt(6 | 0x40000000, 0));
	for (int p = 0; p <= 7; p++)
		if (p != 1 && p != 2 && p != 6)
			assert_false(iso_rule_kernel_rt(p, 0));
	assert_false(iso_rule_kernel_rt(-1, 0));
}

static void test_below_and_above_the_band(void **state)
{
	(void)state;
	/* the escape of issue 28: FIFO 9 and 1, below the default band */
	assert_int_equal(judge(1, 9, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 1, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(2, 9, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 16, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 99, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1 | 0x40000000, 50, U, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(0, 0, U, U, 0, false), ISO_RULE_NOT_RT);
	assert_int_equal(judge(3, 0, U, U, 0, false), ISO_RULE_NOT_RT);
	assert_int_equal(judge(5, 0, U, U, 0, false), ISO_RULE_NOT_RT);
	assert_int_equal(judge(7, 0, U, U, 0, false), ISO_RULE_NOT_RT);
}

static void test_deadline(void **state)
{
	(void)state;
	assert_int_equal(judge(6, 0, U, U, 0, false), ISO_RULE_STRAY);
	/* no RLIMIT_RTPRIO allows DEADLINE: CAP_SYS_NICE only */
	assert_int_equal(judge(6, 0, U, U, 99, false), ISO_RULE_STRAY);
	assert_int_equal(judge(6, 0, U, U, ISO_RULE_RTPRIO_UNLIMITED, false), ISO_RULE_STRAY);
	assert_int_equal(judge(6, 0, U, U, 0, true), ISO_RULE_TRACKED);
	assert_int_equal(judge(6, 0, 0, 0, 0, false), ISO_RULE_ROOT);
}

static void test_owner(void **state)
{
	(void)state;
	assert_int_equal(judge(1, 9, 0, 0, 0, false), ISO_RULE_ROOT);
	/* a setuid-root program run by a user, and root running as a user */
	assert_int_equal(judge(1, 9, U, 0, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 9, 0, U, 0, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 9, U, U, 0, true), ISO_RULE_TRACKED);
	/* not RT comes first: a tracked thread isod demoted is simply not RT */
	assert_int_equal(judge(0, 0, U, U, 0, true), ISO_RULE_NOT_RT);
}

static void test_rtprio(void **state)
{
	(void)state;
	assert_int_equal(judge(1, 9, U, U, 9, false), ISO_RULE_RTPRIO);
	assert_int_equal(judge(1, 9, U, U, 8, false), ISO_RULE_STRAY);
	assert_int_equal(judge(2, 1, U, U, 1, false), ISO_RULE_RTPRIO);
	assert_int_equal(judge(2, 2, U, U, 1, false), ISO_RULE_STRAY);
	assert_int_equal(judge(1, 99, U, U, 99, false), ISO_RULE_RTPRIO);
	assert_int_equal(judge(1, 99, U, U, ISO_RULE_RTPRIO_UNLIMITED, false), ISO_RULE_RTPRIO);
	assert_int_equal(judge(1, 20, U, U, 0, false), ISO_RULE_STRAY);
	/* tracked before allowed: isod polices what it granted */
	assert_int_equal(judge(1, 9, U, U, 9, true), ISO_RULE_TRACKED);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(iso_rule_verdict_name(ISO_RULE_NOT_RT), "not-rt");
	assert_string_equal(iso_rule_verdict_name(ISO_RULE_ROOT), "root");
	assert_string_equal(iso_rule_verdict_name(ISO_RULE_TRACKED), "tracked");
	assert_string_equal(iso_rule_verdict_name(ISO_RULE_RTPRIO), "rtprio");
	assert_string_equal(iso_rule_verdict_name(ISO_RULE_STRAY), "stray");
	assert_string_equal(iso_rule_policy_name(1), "SCHED_FIFO");
	assert_string_equal(iso_rule_policy_name(2 | 0x40000000), "SCHED_RR");
	assert_string_equal(iso_rule_policy_name(6), "SCHED_DEADLINE");
	assert_string_equal(iso_rule_policy_name(4), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_rt),
		cmocka_unit_test(test_below_and_above_the_band),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_rtprio),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
