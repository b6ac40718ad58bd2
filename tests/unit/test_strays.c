/* test_strays.c — the stray auditor's pieces that need no kernel: the
 * rate-limited warnings with every stray counted, the count of the
 * kernel's lost reports, and "is this thread exiting" from its stat. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "exiting.h"
#include "log.h"
#include "stray_log.h"

#define S 1000000000LL

/* A window: BURST lines, the rest held and counted; its end says them. */
static void window_limits_and_counts(void **state)
{
	struct stray_log sl = { 0 };
	unsigned written = 0;

	(void)state;
	for (int i = 0; i < 35; i++)
		written += stray_log_admit(&sl, 100 * S + i);
	assert_int_equal(written, STRAY_LOG_BURST);
	assert_int_equal(sl.demoted, 35);
	assert_int_equal(sl.suppressed, 35 - STRAY_LOG_BURST);
	assert_true(stray_log_due(&sl) == 100 * S + STRAY_LOG_WINDOW_NS);
	/* not yet over */
	assert_int_equal(stray_log_flush(&sl, 100 * S + STRAY_LOG_WINDOW_NS - 1), 0);
	assert_int_equal(stray_log_flush(&sl, 100 * S + STRAY_LOG_WINDOW_NS), 35 - STRAY_LOG_BURST);
	assert_true(stray_log_due(&sl) == INT64_MAX);
	/* a new window writes again; the totals stay */
	assert_true(stray_log_admit(&sl, 200 * S));
	assert_int_equal(sl.demoted, 36);
	assert_int_equal(sl.suppressed, 35 - STRAY_LOG_BURST);
}

/* A stray after the window's end, before anyone flushed: the held lines
 * are said first, and the newcomer opens a window of its own. */
static void late_stray_flushes_first(void **state)
{
	struct stray_log sl = { 0 };

	(void)state;
	for (int i = 0; i < STRAY_LOG_BURST + 3; i++)
		(void)stray_log_admit(&sl, 5 * S);
	assert_int_equal(sl.held, 3);
	assert_true(stray_log_admit(&sl, 5 * S + STRAY_LOG_WINDOW_NS));
	assert_int_equal(sl.held, 0);
	assert_int_equal(sl.written, 1);
	assert_int_equal(sl.demoted, STRAY_LOG_BURST + 4);
	assert_int_equal(sl.suppressed, 3);
	/* nothing held: no wake-up wanted */
	assert_true(stray_log_due(&sl) == INT64_MAX);
}

/* The kernel's running count of lost reports: what is new each look,
 * all of it after a reload started it again. */
static void lost_reports_counted(void **state)
{
	struct stray_log sl = { 0 };

	(void)state;
	assert_int_equal(stray_log_lost(&sl, 0), 0);
	assert_int_equal(stray_log_lost(&sl, 7), 7);
	assert_int_equal(stray_log_lost(&sl, 7), 0);
	assert_int_equal(stray_log_lost(&sl, 10), 3);
	assert_int_equal(stray_log_lost(&sl, 2), 2); /* a new program */
	assert_int_equal(sl.lost, 12);
	{
		struct iso_strays_info o;

		sl.demoted = 4;
		sl.sweeps = 9;
		stray_log_info(&sl, &o);
		assert_int_equal(o.lost, 12);
		assert_int_equal(o.demoted, 4);
		assert_int_equal(o.sweeps, 9);
	}
}

static int exiting_of(const char *text)
{
	bool x = false;
	int r = parse_stat_exiting(text, &x);

	return r < 0 ? r : x;
}

/* Field 3 (state) and field 9 (flags, PF_EXITING 0x4), after the last
 * ')' whatever the comm holds. */
static void exiting_from_stat(void **state)
{
	(void)state;
	/* a running thread: PF_FORKNOEXEC 0x40 | ... no 0x4 */
	assert_int_equal(exiting_of("123 (spin) R 1 123 123 0 -1 4194368 100 0 0 0 5 0 0 0 -51 0 1 0 99 0 0\n"), 0);
	/* PF_EXITING: do_exit set it */
	assert_int_equal(exiting_of("123 (spin) R 1 123 123 0 -1 4194372 100 0 0 0 5 0 0 0 -51 0 1 0 99 0 0\n"), 1);
	/* a zombie (a leader that left first), and a dead one */
	assert_int_equal(exiting_of("123 (a) Z 1 123 123 0 -1 4194368 1\n"), 1);
	assert_int_equal(exiting_of("123 (a) X 1 123 123 0 -1 4194368 1\n"), 1);
	/* a comm that fakes the fields: the last ')' counts */
	assert_int_equal(exiting_of("123 (x) Z 1 1 1 0 -1 4 (y) S 1 123 123 0 -1 64 1\n"), 0);
	assert_int_equal(exiting_of("123 (x) S 1 1 1 0 -1 64 (y) Z 1 123 123 0 -1 64 1\n"), 1);
	/* cut short, garbled */
	assert_int_equal(exiting_of("123 (a) S 1 123 123 0 -1"), -EBADMSG);
	assert_int_equal(exiting_of("123 (a) S 1 123 x 0 -1 4 1"), -EBADMSG);
	assert_int_equal(exiting_of("123 a S 1 123 123 0 -1 4 1"), -EBADMSG);
	assert_int_equal(exiting_of("123 (a)"), -EBADMSG);
	assert_int_equal(exiting_of(""), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_limits_and_counts),
		cmocka_unit_test(late_stray_flushes_first),
		cmocka_unit_test(lost_reports_counted),
		cmocka_unit_test(exiting_from_stat),
	};

	log_setup(LOG_ERR, false); /* the window's lines are not the test's */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
