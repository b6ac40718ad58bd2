/* What the burst guard reads from /proc: schedstat's CPU time and wait,
 * and the voluntary switch count of /proc/TID/status — from buffers,
 * malformed ones included. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "procinfo.h"

static void test_schedstat_wait(void **state)
{
	uint64_t cpu = 0, wait = 0;

	(void)state;
	assert_int_equal(parse_schedstat_wait_buf("123 456 7\n", &cpu, &wait), 0);
	assert_int_equal(cpu, 123);
	assert_int_equal(wait, 456);
	assert_int_equal(parse_schedstat_wait_buf("18446744073709551615 0 0\n", &cpu, &wait), 0);
	assert_true(cpu == UINT64_MAX && wait == 0);
	assert_int_equal(parse_schedstat_wait_buf("123\n", &cpu, &wait), -EBADMSG);
	assert_int_equal(parse_schedstat_wait_buf("123 ", &cpu, &wait), -EBADMSG);
	assert_int_equal(parse_schedstat_wait_buf("123 -4 0", &cpu, &wait), -EBADMSG);
	assert_int_equal(parse_schedstat_wait_buf("123 4x 0", &cpu, &wait), -EBADMSG);
	assert_int_equal(parse_schedstat_wait_buf("x 4 0", &cpu, &wait), -EBADMSG);
	assert_int_equal(parse_schedstat_wait_buf("", &cpu, &wait), -EBADMSG);
}

static void test_status_nvcsw(void **state)
{
	static const char status[] =
		"Name:\tspin\nState:\tR (running)\nTgid:\t42\n"
		"Cpus_allowed_list:\t0-1\n"
		"voluntary_ctxt_switches:\t17\n"
		"nonvoluntary_ctxt_switches:\t99\n";
	uint64_t nv = 0;

	(void)state;
	assert_int_equal(parse_status_nvcsw(status, &nv), 0);
	assert_int_equal(nv, 17); /* not the nonvoluntary count */
	assert_int_equal(parse_status_nvcsw("Name:\tx\nnonvoluntary_ctxt_switches:\t5\n", &nv),
			 -EBADMSG);
	assert_int_equal(parse_status_nvcsw("Name:\tx\nvoluntary_ctxt_switches:\t\n", &nv),
			 -EBADMSG);
	assert_int_equal(parse_status_nvcsw("Name:\tx\nvoluntary_ctxt_switches:\t5x\n", &nv),
			 -EBADMSG);
	assert_int_equal(parse_status_nvcsw("Name:\tx\nvoluntary_ctxt_switches:\t99999999999999999999999\n",
					    &nv),
			 -EBADMSG);
	assert_int_equal(parse_status_nvcsw("", &nv), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat_wait),
		cmocka_unit_test(test_status_nvcsw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
