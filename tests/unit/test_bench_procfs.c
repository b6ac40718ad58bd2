/* isobench's /proc parsers (src/bench/common/procfs.c) on literal lines:
 * the policy and RT priority --audio reports (stat fields 41 and 40), a
 * comm with spaces and parentheses, short and broken lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "procfs.h"

/* a thread of pipewire's data loop made SCHED_FIFO 88 (fields 1..52) */
static const char fifo88[] =
	"4242 (data-loop.0) S 4200 4200 4200 0 -1 4194624 120 0 0 0 35 12 0 0 -11 0 "
	"5 0 123456 300000000 2000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 "
	"-1 3 88 1 0 0 0 0 0 0 0 0 0 0 0\n";

static void test_sched_fifo(void **state)
{
	int pol = -1, prio = -1;

	(void)state;
	assert_int_equal(procfs_parse_stat_sched(fifo88, &pol, &prio), 0);
	assert_int_equal(pol, 1);
	assert_int_equal(prio, 88);
}

static void test_sched_odd_comm(void **state)
{
	/* comm may hold spaces and ")": the last ")" ends it */
	static const char line[] =
		"7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 100 10 1 1 1 0 0 0 "
		"0 0 0 0 0 0 0 17 2 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	int pol = -1, prio = -1;

	(void)state;
	assert_int_equal(procfs_parse_stat_sched(line, &pol, &prio), 0);
	assert_int_equal(pol, 0);
	assert_int_equal(prio, 0);
}

static void test_sched_broken(void **state)
{
	int pol, prio;

	(void)state;
	assert_int_equal(procfs_parse_stat_sched("no parenthesis at all", &pol, &prio), -EINVAL);
	assert_int_equal(procfs_parse_stat_sched("1 (x) S 1 1 1 0 -1", &pol, &prio), -EINVAL);
	assert_int_equal(procfs_parse_stat_sched("", &pol, &prio), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_fifo),
		cmocka_unit_test(test_sched_odd_comm),
		cmocka_unit_test(test_sched_broken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
