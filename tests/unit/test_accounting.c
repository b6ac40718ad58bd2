/* The accounting setting, and the checks on what isod reads from the BPF
 * accounting's maps and ring buffer (accounting_check.h): the kernel side
 * is outside isod's memory, so every value is checked — entries that race
 * the program, that cannot be right, records from outside the band. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "accounting_check.h"
#include "config.h"

static void test_parse(void **state)
{
	enum accounting_kind k = ACCOUNTING_PROC;

	(void)state;
	assert_int_equal(accounting_parse("auto", &k), 0);
	assert_int_equal(k, ACCOUNTING_AUTO);
	assert_int_equal(accounting_parse("BPF", &k), 0);
	assert_int_equal(k, ACCOUNTING_BPF);
	assert_int_equal(accounting_parse("proc", &k), 0);
	assert_int_equal(k, ACCOUNTING_PROC);
	assert_int_equal(accounting_parse("", &k), -EINVAL);
	assert_int_equal(accounting_parse("bpf ", &k), -EINVAL);
	assert_int_equal(accounting_parse("procfs", &k), -EINVAL);
	assert_string_equal(accounting_kind_name(ACCOUNTING_AUTO), "auto");
	assert_string_equal(accounting_kind_name(ACCOUNTING_BPF), "bpf");
	assert_string_equal(accounting_kind_name(ACCOUNTING_PROC), "proc");
}

static void test_config_key(void **state)
{
	struct isod_config c;
	const char *why;

	(void)state;
	config_defaults(&c);
	assert_int_equal(c.accounting, ACCOUNTING_AUTO);
	assert_int_equal(config_set(&c, "accounting", "proc", &why), 0);
	assert_int_equal(c.accounting, ACCOUNTING_PROC);
	assert_int_equal(config_set(&c, "accounting", "kernel", &why), -EINVAL);
	assert_string_equal(why, "accounting must be auto, bpf or proc");
	assert_int_equal(c.accounting, ACCOUNTING_PROC); /* a bad value changes nothing */
	/* restart-only: SIGHUP keeps the running one and says so */
	for (size_t i = 0; config_key_at(i); i++)
		if (!strcmp(config_key_at(i)->key, "accounting"))
			assert_false(config_key_at(i)->reloadable);
}

static void test_thread_off_cpu(void **state)
{
	struct acct_thread v = { .total_ns = 5000, .since_ns = 0 };
	uint64_t cpu = 0;

	(void)state;
	assert_int_equal(acct_thread_cpu(&v, 1000000, 0, &cpu), 0);
	assert_int_equal(cpu, 5000);
}

static void test_thread_running(void **state)
{
	/* on a CPU since 900: what it ran so far counts (a spinner that never
	 * switches is seen) */
	struct acct_thread v = { .total_ns = 5000, .since_ns = 900 };
	uint64_t cpu = 0;

	(void)state;
	assert_int_equal(acct_thread_cpu(&v, 1000, 0, &cpu), 0);
	assert_int_equal(cpu, 5100);
	/* isod's clock read a hair before the program's: no negative run */
	assert_int_equal(acct_thread_cpu(&v, 899, 0, &cpu), 0);
	assert_int_equal(cpu, 5000);
}

/* read after the check's time: a run up to a later switch out is the
 * next check's, and never more than all of it */
static void test_thread_as_of(void **state)
{
	struct acct_thread v = { .total_ns = 5000, .since_ns = 0, .off_ns = 1300 };
	uint64_t cpu = 0;

	(void)state;
	assert_int_equal(acct_thread_cpu(&v, 1000, 0, &cpu), 0);
	assert_int_equal(cpu, 4700);
	assert_int_equal(acct_thread_cpu(&v, 1000, 4800, &cpu), 0);
	assert_int_equal(cpu, 4800); /* never backwards */
	assert_int_equal(acct_thread_cpu(&v, 2000, 0, &cpu), 0);
	assert_int_equal(cpu, 5000);
	v.off_ns = 100000;
	assert_int_equal(acct_thread_cpu(&v, 1000, 0, &cpu), 0);
	assert_int_equal(cpu, 0);
}

static void test_thread_never_backwards(void **state)
{
	/* a copy taken while the program writes reads short: raised to the
	 * last value isod used */
	struct acct_thread v = { .total_ns = 5000, .since_ns = 0 };
	uint64_t cpu = 0;

	(void)state;
	assert_int_equal(acct_thread_cpu(&v, 1000, 7000, &cpu), 0);
	assert_int_equal(cpu, 7000);
}

static void test_thread_unseen(void **state)
{
	struct acct_thread v = { .total_ns = 0, .since_ns = ACCT_UNSEEN };
	uint64_t cpu = 42;

	(void)state;
	assert_int_equal(acct_thread_cpu(&v, 1000, 0, &cpu), -EAGAIN);
	assert_int_equal(cpu, 42);
}

static void test_thread_nonsense(void **state)
{
	uint64_t cpu = 42;
	/* switched in far in isod's future */
	struct acct_thread future = { .total_ns = 1, .since_ns = 10000000000ull };
	/* a sum past 2^64 */
	struct acct_thread huge = { .total_ns = UINT64_MAX - 5, .since_ns = 100 };

	(void)state;
	assert_int_equal(acct_thread_cpu(&future, 1000, 0, &cpu), -EBADMSG);
	assert_int_equal(acct_thread_cpu(&huge, 1000, 0, &cpu), -EBADMSG);
	assert_int_equal(cpu, 42);
}

static void test_thread_copy(void **state)
{
	struct acct_thread a, v;

	(void)state;
	acct_thread_reset(&a, 77, 0);
	assert_true(acct_thread_copy(&a, 77, &v));
	assert_int_equal(v.since_ns, ACCT_UNSEEN);
	assert_int_equal(v.block_cpu_ns, ACCT_UNSEEN);
	assert_int_equal(v.total_ns, 0);
	a.total_ns = 5;
	a.since_ns = 9;
	a.nvcsw = 3;
	a.policy = 1;
	a.rt_prio = 20;
	assert_true(acct_thread_copy(&a, 77, &v));
	assert_int_equal(v.total_ns, 5);
	assert_int_equal(v.since_ns, 9);
	assert_int_equal(v.nvcsw, 3);
	assert_int_equal(v.rt_prio, 20);
	assert_int_equal(v.tid, 77);
	/* another thread's slot, a free one, TID 0 */
	assert_false(acct_thread_copy(&a, 78, &v));
	a.tid = 0;
	assert_false(acct_thread_copy(&a, 77, &v));
	assert_false(acct_thread_copy(&a, 0, &v));
}

/* when it was off every CPU: the step's longest finished gap, and now's
 * if it is off; nothing that cannot be a clock reading */
static void test_thread_offcpu(void **state)
{
	struct acct_thread a, v;
	struct iso_offcpu off;

	(void)state;
	acct_thread_reset(&a, 77, 500);
	assert_true(acct_thread_copy(&a, 77, &v));
	/* off since its tracking at 500, for the program's first switch in
	 * (note_gap), yet no off time read while it is unseen */
	assert_int_equal(v.off_ns, 500);
	acct_thread_offcpu(&v, 1000, &off);
	assert_int_equal(off.n, 0); /* unseen */
	a.since_ns = 900; /* on a CPU since 900, after a gap 100..300 */
	a.off_ns = 100;
	a.gap_from_ns = 100;
	a.gap_to_ns = 300;
	assert_true(acct_thread_copy(&a, 77, &v));
	acct_thread_offcpu(&v, 1000, &off);
	assert_int_equal(off.n, 1);
	assert_int_equal(off.from[0], 100);
	assert_int_equal(off.to[0], 300);
	a.since_ns = 0; /* off since 950 */
	a.off_ns = 950;
	assert_true(acct_thread_copy(&a, 77, &v));
	acct_thread_offcpu(&v, 1000, &off);
	assert_int_equal(off.n, 2);
	assert_int_equal(off.from[1], 950);
	assert_int_equal(off.to[1], 1000);
	/* backwards, in the far future, past int64: left out */
	a.gap_from_ns = 400;
	a.off_ns = 5000000000ull;
	assert_true(acct_thread_copy(&a, 77, &v));
	acct_thread_offcpu(&v, 1000, &off);
	assert_int_equal(off.n, 0);
	a.gap_from_ns = 100;
	a.gap_to_ns = UINT64_MAX;
	a.off_ns = 0;
	assert_true(acct_thread_copy(&a, 77, &v));
	acct_thread_offcpu(&v, UINT64_MAX - 1, &off);
	assert_int_equal(off.n, 0);
}

/* back on a CPU unseen: the time off since the last switch out ends
 * where its run began */
static void test_offcpu_resumed(void **state)
{
	struct iso_offcpu off = { 2, { 100, 950 }, { 300, 1000 } };

	(void)state;
	acct_offcpu_resumed(&off, 950, 1000, 30);
	assert_int_equal(off.n, 2);
	assert_int_equal(off.to[1], 970);
	assert_int_equal(off.to[0], 300);
	/* not that interval (another off_ns): unchanged */
	acct_offcpu_resumed(&off, 940, 1000, 30);
	assert_int_equal(off.to[1], 970);
	/* ran all of it and more: left out, the other kept */
	off = (struct iso_offcpu){ 2, { 100, 950 }, { 300, 1000 } };
	acct_offcpu_resumed(&off, 950, 1000, 60);
	assert_int_equal(off.n, 1);
	assert_int_equal(off.from[0], 100);
	assert_int_equal(off.to[0], 300);
	off = (struct iso_offcpu){ 1, { 950 }, { 1000 } };
	acct_offcpu_resumed(&off, 950, 1000, 5000);
	assert_int_equal(off.n, 0);
}

static void test_stray_record(void **state)
{
	struct acct_stray s = { .tid = 1234, .tgid = 1200, .uid = 65534, .prio = 65, .policy = 1 };

	(void)state;
	assert_true(acct_stray_valid(&s));
	/* every RT priority, not only the band's (issue 28) */
	s.prio = 1;
	assert_true(acct_stray_valid(&s));
	s.prio = 99;
	assert_true(acct_stray_valid(&s));
	s.prio = 0;
	assert_false(acct_stray_valid(&s));
	s.prio = 100;
	assert_false(acct_stray_valid(&s));
	s.prio = 9;
	s.policy = 2; /* RR */
	assert_true(acct_stray_valid(&s));
	s.policy = 0; /* OTHER, BATCH, IDLE, EXT: not RT */
	assert_false(acct_stray_valid(&s));
	s.policy = 3;
	assert_false(acct_stray_valid(&s));
	s.policy = 5;
	assert_false(acct_stray_valid(&s));
	s.policy = 7;
	assert_false(acct_stray_valid(&s));
	s.policy = 0x40000001u; /* the program reports the bare policy */
	assert_false(acct_stray_valid(&s));
	/* DEADLINE: priority 0 */
	s.policy = 6;
	assert_false(acct_stray_valid(&s));
	s.prio = 0;
	assert_true(acct_stray_valid(&s));
	s.policy = 1;
	s.prio = 72;
	assert_true(acct_stray_valid(&s));
	s.uid = 0;
	assert_false(acct_stray_valid(&s));
	s.uid = (uint32_t)-1;
	assert_false(acct_stray_valid(&s));
	s.uid = 1000;
	s.tid = 0;
	assert_false(acct_stray_valid(&s));
	s.tid = 4194305; /* past PID_MAX_LIMIT */
	assert_false(acct_stray_valid(&s));
	s.tid = 5;
	s.tgid = 0;
	assert_false(acct_stray_valid(&s));
	s.tgid = 5;
	assert_true(acct_stray_valid(&s));
}

static void test_band_sum(void **state)
{
	struct acct_cpu cpus[3] = { { .band_ns = 10 }, { .band_ns = 20, .since_ns = 5 }, { .band_ns = 0 } };
	struct acct_cpu over[2] = { { .band_ns = UINT64_MAX }, { .band_ns = 1 } };
	uint64_t sum = 0;

	(void)state;
	assert_int_equal(acct_band_sum(cpus, 3, &sum), 0);
	assert_int_equal(sum, 30);
	assert_int_equal(acct_band_sum(cpus, 0, &sum), 0);
	assert_int_equal(sum, 0);
	assert_int_equal(acct_band_sum(over, 2, &sum), -EOVERFLOW);
}

static void test_events(void **state)
{
	struct acct_event wake = { ACCT_EV_WAKE, 1234, 7, 0, 0 };
	struct acct_event exit_ = { ACCT_EV_EXIT, 1234, 7, 0, 123456789012ull };
	struct acct_event bad = wake;

	(void)state;
	assert_true(acct_event_valid(&wake, 8));
	assert_true(acct_event_valid(&exit_, 8));
	/* a slot past the table, a kind or a TID that cannot be */
	assert_false(acct_event_valid(&wake, 7));
	bad.kind = 3;
	assert_false(acct_event_valid(&bad, 8));
	bad = wake;
	bad.tid = 0;
	assert_false(acct_event_valid(&bad, 8));
	bad.tid = 4194305;
	assert_false(acct_event_valid(&bad, 8));
	/* start_boottime as /proc's start time: ticks of 1/hz s */
	assert_int_equal(acct_start_ticks(123456789012ull, 100), 12345);
	assert_int_equal(acct_start_ticks(123456789012ull, 1000), 123456);
	assert_true(acct_start_ticks(5, 0) == UINT64_MAX);
	assert_true(acct_start_ticks(5, 7) == UINT64_MAX);
	assert_true(acct_start_ticks(5, -100) == UINT64_MAX);
}

/* The program's fork and exec reports: only known kinds and real TIDs
 * reach the daemon. */
static void test_lineage_valid(void **state)
{
	const struct acct_lineage fork_ = { ACCT_LINEAGE_FORK, 100, 101, 0 };
	const struct acct_lineage exec_ = { ACCT_LINEAGE_EXEC, 102, 100, 0 };
	struct acct_lineage bad = fork_;

	(void)state;
	assert_true(acct_lineage_valid(&fork_));
	assert_true(acct_lineage_valid(&exec_));
	bad.kind = 0;
	assert_false(acct_lineage_valid(&bad));
	bad.kind = 3;
	assert_false(acct_lineage_valid(&bad));
	bad = fork_;
	bad.parent = 0;
	assert_false(acct_lineage_valid(&bad));
	bad = fork_;
	bad.tid = 4194305;
	assert_false(acct_lineage_valid(&bad));
	bad.tid = UINT32_MAX;
	assert_false(acct_lineage_valid(&bad));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_lineage_valid),
		cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_thread_off_cpu),
		cmocka_unit_test(test_thread_running),
		cmocka_unit_test(test_thread_as_of),
		cmocka_unit_test(test_thread_never_backwards),
		cmocka_unit_test(test_thread_unseen),
		cmocka_unit_test(test_thread_nonsense),
		cmocka_unit_test(test_thread_copy),
		cmocka_unit_test(test_thread_offcpu),
		cmocka_unit_test(test_offcpu_resumed),
		cmocka_unit_test(test_stray_record),
		cmocka_unit_test(test_band_sum),
		cmocka_unit_test(test_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
