/* isoctl top's pure parts (src/cli/top): states, CPU %, filtering,
 * sorting, formatting, and a whole frame at 80x24 and wide. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "top.h"

static void test_state_and_cpu(void **state)
{
	struct iso_thread_info t = { .flags = 0 };
	struct iso_status_info st = { .refractory = 0 };

	(void)state;
	assert_string_equal(top_thread_state(&t, &st), "iso");
	t.flags = ISO_THREAD_DEMOTED;
	assert_string_equal(top_thread_state(&t, &st), "demoted");
	st.refractory = 1;
	assert_string_equal(top_thread_state(&t, &st), "refractory");
	/* half a second of CPU in a second: 50 % of one CPU */
	assert_float_equal(top_cpu_pct(1000000000ULL, 1500000000ULL, 1000000000LL, 7), 50.0, 1e-9);
	/* no earlier read: isod's own figure */
	assert_float_equal(top_cpu_pct(UINT64_MAX, 5, 0, 12345), 12.345, 1e-9);
	assert_float_equal(top_cpu_pct(10, 5, 1000, 2000), 2.0, 1e-9);
}

static struct top_row mk(int32_t tid, int32_t pid, uint32_t uid, const char *user, int prio,
			 double cpu, uint32_t dem)
{
	struct top_row r;

	memset(&r, 0, sizeof(r));
	r.t.info.tid = tid;
	r.t.info.pid = pid;
	r.t.info.uid = uid;
	r.t.info.policy = ISO_SCHED_ISO_FIFO;
	r.t.info.prio = prio;
	r.t.info.kernel_policy = 1;
	r.t.info.kernel_prio = prio;
	r.t.demotions = dem;
	r.cpu_pct = cpu;
	snprintf(r.user, sizeof(r.user), "%s", user);
	snprintf(r.comm, sizeof(r.comm), "thread%d", (int)tid);
	r.state = "iso";
	return r;
}

static void test_sort_filter(void **state)
{
	struct top_row r[4];
	struct top_filter f = { 0 };
	enum top_sort s;

	(void)state;
	r[0] = mk(30, 3, 1000, "carol", 10, 5.0, 0);
	r[1] = mk(10, 1, 1001, "alice", 50, 90.0, 2);
	r[2] = mk(20, 1, 1001, "alice", 20, 5.0, 7);
	r[3] = mk(40, 4, 1000, "carol", 99, 0.0, 1);
	top_sort_rows(r, 4, TOP_SORT_CPU);
	assert_int_equal(r[0].t.info.tid, 10);
	assert_int_equal(r[1].t.info.tid, 20); /* a tie: lower tid first */
	assert_int_equal(r[2].t.info.tid, 30);
	top_sort_rows(r, 4, TOP_SORT_PRIO);
	assert_int_equal(r[0].t.info.tid, 40);
	top_sort_rows(r, 4, TOP_SORT_DEMOTIONS);
	assert_int_equal(r[0].t.info.tid, 20);
	top_sort_rows(r, 4, TOP_SORT_USER);
	assert_string_equal(r[0].user, "alice");
	assert_int_equal(r[0].t.info.tid, 10);
	top_sort_rows(r, 4, TOP_SORT_TID);
	assert_int_equal(r[3].t.info.tid, 40);
	/* s cycles through every key and back */
	s = TOP_SORT_CPU;
	for (int i = 0; i < TOP_SORT_N; i++)
		s = top_sort_next(s);
	assert_int_equal(s, TOP_SORT_CPU);
	assert_int_equal(top_sort_parse("demotions", &s), 0);
	assert_int_equal(s, TOP_SORT_DEMOTIONS);
	assert_int_equal(top_sort_parse("bogus", &s), -22);
	f.by_uid = true;
	f.uid = 1000;
	assert_int_equal(top_filter_rows(r, 4, &f), 2);
	assert_int_equal(r[0].t.info.tid, 30);
	f.pid = 4;
	assert_int_equal(top_filter_rows(r, 2, &f), 1);
	assert_int_equal(r[0].t.info.tid, 40);
}

static void test_format(void **state)
{
	char b[64];

	(void)state;
	top_fmt_iso(b, sizeof(b), ISO_SCHED_ISO_RR, 10);
	assert_string_equal(b, "RR 10");
	top_fmt_iso(b, sizeof(b), ISO_SCHED_ISO_FIFO, 99);
	assert_string_equal(b, "FIFO 99");
	top_fmt_iso(b, sizeof(b), 0, 0);
	assert_string_equal(b, "-");
	top_fmt_kernel(b, sizeof(b), 0, 0);
	assert_string_equal(b, "OTHER");
	top_fmt_kernel(b, sizeof(b), 1 | 0x40000000, 19);
	assert_string_equal(b, "FIFO 19");
	top_fmt_kernel(b, sizeof(b), -1, 0);
	assert_string_equal(b, "-");
	top_fmt_duration(b, sizeof(b), 6.0198);
	assert_string_equal(b, "6.0 s");
	top_fmt_duration(b, sizeof(b), 42.4);
	assert_string_equal(b, "42 s");
	top_fmt_duration(b, sizeof(b), 185);
	assert_string_equal(b, "3 min 5 s");
	top_fmt_duration(b, sizeof(b), INFINITY);
	assert_string_equal(b, "never");
	top_fmt_bar(b, sizeof(b), 12, 50, 70);
	assert_string_equal(b, "[#####..|..]");
	top_fmt_bar(b, sizeof(b), 12, 100, 70);
	assert_string_equal(b, "[#######|##]");
	top_fmt_bar(b, sizeof(b), 12, 0, 100);
	assert_string_equal(b, "[..........]");
	top_fmt_bar(b, 5, 12, 0, 100); /* no room: nothing */
	assert_string_equal(b, "");
	assert_string_equal(top_event_name(ISO_EVENT_STRAY), "stray");
	assert_string_equal(top_demote_reason(ISO_DEMOTE_BUDGET), "over iso_cpu");
}

static const char *fake_name(uint32_t uid, char *buf, size_t cap)
{
	snprintf(buf, cap, "u%u", (unsigned)uid);
	return buf;
}

static struct iso_top_info info;
static struct top_row rows[40];

static void fill(struct top_view *v, size_t nthreads, uint32_t nevents)
{
	memset(&info, 0, sizeof(info));
	info.status = (struct iso_status_info){ .iso_cpu = 70, .iso_period_s = 5, .band_lo = 1,
						.band_hi = 98, .usage_milli = 40000, .ncpus = 2,
						.total = (uint32_t)nthreads,
						.count = (uint32_t)nthreads };
	info.users = (struct iso_users_info){ .user_cpu = 50, .share_milli = 35000, .total = 3,
					      .count = 3 };
	for (uint32_t i = 0; i < 3; i++)
		info.user_list[i] = (struct iso_user_info){ .uid = 1000 + i,
							    .usage_milli = 10000 * i,
							    .flags = i == 2 ? ISO_USER_OVER : 0 };
	info.nevents = nevents;
	for (uint32_t i = 0; i < nevents; i++)
		info.events[i] = (struct iso_event){ .seq = i + 1, .kind = ISO_EVENT_DEMOTE,
						     .time_ms = 3600000LL * 12 + 1000 * i,
						     .tid = 100, .pid = 100, .uid = 1000,
						     .value = ISO_DEMOTE_BUDGET };
	for (size_t i = 0; i < nthreads; i++)
		rows[i] = mk(100 + (int32_t)i, 100, 1000, "u1000", 10, 1.5, 0);
	memset(v, 0, sizeof(*v));
	v->up = true;
	v->info = &info;
	v->rows = rows;
	v->nrows = nthreads;
	v->user_name = fake_name;
	v->delay_s = 1;
	v->now_ms = 3600000LL * 12;
	v->keys = true;
}

static void test_frame_80x24(void **state)
{
	static char buf[64 * 256];
	int attr[64];
	struct top_view v;
	size_t n;

	(void)state;
	fill(&v, 30, 20);
	n = top_render(&v, 80, 24, buf, 64, attr);
	assert_int_equal(n, 24); /* exactly the screen */
	for (size_t i = 0; i < n; i++)
		assert_true(strlen(buf + i * 81) <= 80);
	assert_non_null(strstr(buf + 0 * 81, "iso_cpu 70%"));
	assert_non_null(strstr(buf + 0 * 81, "12:00:00"));
	assert_memory_equal(buf + 1 * 81, "ISO [", 5);
	assert_non_null(strstr(buf + 1 * 81, "40.0% of 70%"));
	assert_non_null(strstr(buf + 2 * 81, "next possible demotion in 3.5 s"));
	assert_non_null(strstr(buf + 3 * 81, "user_cpu 50%"));
	/* rows cut short, the events and the key line still there */
	{
		int more = 0, events = 0;

		for (size_t i = 0; i < n; i++) {
			more += strstr(buf + i * 81, "more") != NULL;
			events += strncmp(buf + i * 81, "EVENTS", 6) == 0;
		}
		assert_true(more >= 1);
		assert_int_equal(events, 1);
	}
	assert_non_null(strstr(buf + 23 * 81, "q quit"));
	assert_int_equal(attr[23], TOP_ATTR_HEAD);

	/* refractory: the restore time instead */
	info.status.refractory = 1;
	info.status.usage_milli = 75000;
	n = top_render(&v, 80, 24, buf, 64, attr);
	assert_non_null(strstr(buf + 2 * 81, "REFRACTORY"));
	assert_int_equal(attr[2], TOP_ATTR_WARN);
}

static void test_frame_wide_and_once(void **state)
{
	static char buf[128 * 201];
	struct top_view v;
	size_t n, max;
	int found = 0;

	(void)state;
	fill(&v, 5, 3);
	v.keys = false;
	max = top_render_max_lines(&v);
	assert_true(max <= 128);
	n = top_render(&v, 200, 0, buf, max, NULL);
	/* no height: every row and every event */
	for (size_t i = 0; i < n; i++) {
		found += strstr(buf + i * 201, "thread10") != NULL;
		assert_null(strstr(buf + i * 201, "q quit"));
	}
	assert_int_equal(found, 5 + 3); /* rows, and the events name the comm */
	/* not running */
	v.up = false;
	v.error = "Connection refused";
	v.socket = "/x.sock";
	n = top_render(&v, 80, 0, buf, top_render_max_lines(&v), NULL);
	assert_int_equal(n, 3);
	assert_string_equal(buf, "isod not running (/x.sock)");
}

static void test_json(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct top_view v;

	(void)state;
	fill(&v, 2, 1);
	snprintf(rows[0].comm, sizeof(rows[0].comm), "a\"b\\c\x01");
	top_print_json(f, &v);
	fclose(f);
	assert_non_null(strstr(out, "\"comm\":\"a\\\"b\\\\c\\u0001\""));
	assert_non_null(strstr(out, "\"time_to_restore\":0.000"));
	assert_non_null(strstr(out, "\"kind\":\"demote\""));
	assert_int_equal(out[len - 1], '\n');
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_and_cpu),
		cmocka_unit_test(test_sort_filter),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_frame_80x24),
		cmocka_unit_test(test_frame_wide_and_once),
		cmocka_unit_test(test_json),
	};
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
