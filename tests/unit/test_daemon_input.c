/* isod's readers of outside input: /proc text, the state file and
 * configuration values. Bad input is an error and changes nothing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "accounting.h"
#include "config.h"
#include "procinfo.h"
#include "log.h"
#include "statefile.h"

static void test_status(void **state)
{
	struct thread_status st;
	const char *ok =
		"Name:\tjackd\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4250\n"
		"Uid:\t1000\t1000\t1000\t1000\nGid:\t29\t29\t29\t29\n"
		"Groups:\t29 100 \nNSpid:\t4250\t17\n";
	(void)state;
	assert_int_equal(parse_status_buf(ok, &st), 0);
	assert_int_equal(st.tgid, 4242);
	assert_int_equal(st.ruid, 1000);
	assert_int_equal(st.egid, 29);
	assert_int_equal(st.ngroups, 2);
	assert_int_equal(st.groups[1], 100);
	assert_int_equal(st.n_nspid, 2);
	assert_int_equal(st.nspid[1], 17);
	/* missing or malformed fields */
	assert_int_equal(parse_status_buf("Name:\tx\n", &st), -EBADMSG);
	assert_int_equal(parse_status_buf("Tgid:\tabc\nUid:\t1 1 1 1\nGid:\t1 1 1 1\n", &st), -EBADMSG);
	assert_int_equal(parse_status_buf("Tgid:\t5\nUid:\t1 1 1\nGid:\t1 1 1 1\n", &st), -EBADMSG);
	assert_int_equal(parse_status_buf("Tgid:\t-5\nUid:\t1 1 1 1\nGid:\t1 1 1 1\n", &st), -EBADMSG);
	assert_int_equal(parse_status_buf("Tgid:\t5\nUid:\t1 1 1 1\nGid:\t1 1 1 1\nNSpid:\t1 2 3 4 5 6 7 8 9\n", &st), -EBADMSG);
	assert_int_equal(parse_status_buf("", &st), -EBADMSG);
	/* a thread being released prints 0 for the pids it no longer has */
	assert_int_equal(parse_status_buf("Tgid:\t0\nUid:\t1 1 1 1\nGid:\t1 1 1 1\n", &st), -ESRCH);
	assert_int_equal(parse_status_buf("Tgid:\t5\nUid:\t1 1 1 1\nGid:\t1 1 1 1\nNSpid:\t0\n", &st), -ESRCH);
}

static void test_stat_and_schedstat(void **state)
{
	uint64_t v;
	/* a comm with spaces and a ')' of its own */
	const char *stat = "123 (evil) x (y) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 98765 0 0";
	(void)state;
	assert_int_equal(parse_stat_starttime(stat, &v), 0);
	assert_true(v == 98765);
	assert_int_equal(parse_stat_starttime("123 (x) S 1 2", &v), -EBADMSG);
	assert_int_equal(parse_stat_starttime("no paren", &v), -EBADMSG);
	assert_int_equal(parse_schedstat_buf("1824274 975534 3\n", &v), 0);
	assert_true(v == 1824274);
	assert_int_equal(parse_schedstat_buf("-1 0 0\n", &v), -EBADMSG);
	assert_int_equal(parse_schedstat_buf("12x 0 0\n", &v), -EBADMSG);
	assert_int_equal(parse_schedstat_buf("", &v), -EBADMSG);
	assert_int_equal(parse_schedstat_buf("99999999999999999999999 0 0", &v), -EBADMSG);
}

/* /proc/PID/limits text with the two realtime lines' soft values (and
 * RLIMIT_RTPRIO's hard one). */
static void limits_text_hard(char *buf, size_t cap, const char *rtprio, const char *hard,
			     const char *rttime)
{
	snprintf(buf, cap,
		 "Limit                     Soft Limit           Hard Limit           Units     \n"
		 "Max cpu time              unlimited            unlimited            seconds   \n"
		 "Max realtime priority     %-20s %-20s \n"
		 "Max realtime timeout      %-20s unlimited            us        \n",
		 rtprio, hard, rttime);
}

static void limits_text(char *buf, size_t cap, const char *rtprio, const char *rttime)
{
	limits_text_hard(buf, cap, rtprio, "0", rttime);
}

/* processor, field 39 of /proc/TID/stat (scope per-cpu): the CPU it last
 * ran on; the range against the CPU count is iso_percpu_charge's */
static void test_stat_processor(void **state)
{
	char line[512];
	int cpu = -5;
	const char *head = "4242 (a) b) R 1 4242 4242 0 -1 4194560 97 0 0 0 12 3 0 0 20 0 1 0 98765 "
			   "2453504 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 ";

	(void)state;
	snprintf(line, sizeof(line), "%s1 0 0 0 0 0 0 0 0 0 0 0 0 0\n", head);
	assert_int_equal(parse_stat_processor(line, &cpu), 0);
	assert_int_equal(cpu, 1);
	snprintf(line, sizeof(line), "%s63\n", head);
	assert_int_equal(parse_stat_processor(line, &cpu), 0);
	assert_int_equal(cpu, 63);
	const char *bad[] = { "-1 0", "x 0", "99999999999 0", "7x 0", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "%s%s", head, bad[i]);
		assert_int_equal(parse_stat_processor(line, &cpu), -EBADMSG);
	}
	assert_int_equal(parse_stat_processor("1 (x) S 1 2 3", &cpu), -EBADMSG);
	assert_int_equal(parse_stat_processor("no paren", &cpu), -EBADMSG);
	assert_int_equal(cpu, 63);
}

static void test_limits(void **state)
{
	char buf[1024];
	struct rt_limits l;

	(void)state;
	limits_text(buf, sizeof(buf), "0", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), 0);
	assert_int_equal(l.rtprio, 0);
	assert_int_equal(l.rttime_set, 0);
	/* rtkit's clients: RLIMIT_RTTIME set; a user's own rtprio */
	limits_text(buf, sizeof(buf), "95", "200000");
	assert_int_equal(parse_limits_buf(buf, &l), 0);
	assert_int_equal(l.rtprio, 95);
	assert_int_equal(l.rttime_set, 1);
	/* missing or mangled lines are refused */
	assert_int_equal(parse_limits_buf("Limit  Soft Limit\n", &l), -EBADMSG);
	limits_text(buf, sizeof(buf), "-3", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), -EBADMSG);
	limits_text(buf, sizeof(buf), "12x", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), -EBADMSG);
	/* the hard column: what the administrator allows */
	limits_text_hard(buf, sizeof(buf), "0", "95", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), 0);
	assert_int_equal(l.rtprio, 0);
	assert_int_equal(l.rtprio_hard, 95);
	limits_text_hard(buf, sizeof(buf), "0", "unlimited", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), 0);
	assert_int_equal(l.rtprio_hard, 99);
	limits_text_hard(buf, sizeof(buf), "0", "9q", "unlimited");
	assert_int_equal(parse_limits_buf(buf, &l), -EBADMSG);
}

static void test_state_line(void **state)
{
	struct state_line s;
	(void)state;
	assert_int_equal(statefile_parse_line("100 99 1000 12345 4 50 0\n", &s), 0);
	assert_int_equal(s.tid, 100);
	assert_int_equal(s.prio, 50);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 60\n", &s), 0);
	/* not ISO, bad priority, bad limit, trailing junk, truncated */
	assert_int_equal(statefile_parse_line("100 99 1000 12345 1 50 0\n", &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 4 0 0\n", &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 4 50 101\n", &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 4 50 0 x\n", &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000\n", &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("-1 99 1000 12345 4 50 0\n", &s), -EBADMSG);
	/* a reservation's runtime, deadline, period (reserve.h) */
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 1000000 5333000 5333000\n",
					      &s), 0);
	assert_true(s.runtime_ns == 1000000 && s.deadline_ns == 5333000 && s.period_ns == 5333000);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0\n", &s), 0);
	assert_true(s.runtime_ns == 0 && s.period_ns == 0);
	/* two of three, junk after, runtime over the deadline, a 50 us period */
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 1000000 5333000\n", &s),
			 -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 1000 5333000 5333000 x\n",
					      &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 6000000 5333000 5333000\n",
					      &s), -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 10000 50000 50000\n", &s),
			 -EBADMSG);
	assert_int_equal(statefile_parse_line("100 99 1000 12345 261 99 0 0 5333000 5333000\n", &s),
			 -EBADMSG);
}

static void test_state_record(void **state)
{
	struct state_line s;
	(void)state;
	assert_int_equal(statefile_parse_record("100 99 1000 12345 4 50 0", &s), STATE_REC_GRANT);
	assert_int_equal(s.tid, 100);
	assert_int_equal(statefile_parse_record("- 100 12345", &s), STATE_REC_RELEASE);
	assert_int_equal(s.tid, 100);
	assert_true(s.starttime == 12345);
	/* no space, no start time, junk after, a bad tid, a grant's damage */
	assert_int_equal(statefile_parse_record("-100 12345", &s), -EBADMSG);
	assert_int_equal(statefile_parse_record("- 100", &s), -EBADMSG);
	assert_int_equal(statefile_parse_record("- 100 12345 7", &s), -EBADMSG);
	assert_int_equal(statefile_parse_record("- 0 12345", &s), -EBADMSG);
	assert_int_equal(statefile_parse_record("- -5 12345", &s), -EBADMSG);
	assert_int_equal(statefile_parse_record("100 99 1000 12345 1 50 0", &s), -EBADMSG);
}

static int parse_log_str(const char *text, struct state_line **live, size_t *n, bool *torn)
{
	return statefile_parse_log(text, strlen(text), live, n, torn);
}

static void test_state_log(void **state)
{
	struct state_line *live;
	size_t n;
	bool torn;
	(void)state;

	/* the old format (a compacted log is the same): every line live */
	assert_int_equal(parse_log_str("# isod state\n10 9 1000 1 4 50 0\n11 9 1000 2 4 50 0\n",
				       &live, &n, &torn), 0);
	assert_int_equal(n, 2);
	assert_false(torn);
	assert_int_equal(live[0].tid, 10);
	assert_int_equal(live[1].tid, 11);
	free(live);
	/* a release ends a grant; a later grant of the same tid (a reused
	 * one, or a new priority) wins; order: of each tid's last record */
	assert_int_equal(parse_log_str("10 9 1000 1 4 50 0\n11 9 1000 2 4 50 0\n- 10 1\n"
				       "12 9 1000 3 4 50 0\n11 9 1000 2 4 60 0\n- 12 3\n"
				       "10 9 1000 77 4 20 0\n",
				       &live, &n, &torn), 0);
	assert_int_equal(n, 2);
	assert_int_equal(live[0].tid, 11);
	assert_int_equal(live[0].prio, 60);
	assert_int_equal(live[1].tid, 10);
	assert_true(live[1].starttime == 77);
	free(live);
	/* an append cut short: ignored, not damage; the rest is used */
	assert_int_equal(parse_log_str("10 9 1000 1 4 50 0\n- 10 1\n11 9 10", &live, &n, &torn), 0);
	assert_true(torn);
	assert_int_equal(n, 0);
	free(live);
	assert_int_equal(parse_log_str("10 9 1000 1 4 50 0\n- 10", &live, &n, &torn), 0);
	assert_true(torn);
	assert_int_equal(n, 1); /* the cut release is not believed */
	free(live);
	/* damage in the middle: the readable records are used, -EBADMSG */
	assert_int_equal(parse_log_str("10 9 1000 1 4 50 0\nxx\n11 9 1000 2 4 50 0\n",
				       &live, &n, &torn), -EBADMSG);
	assert_int_equal(n, 2);
	free(live);
	/* an empty log, a NUL inside a line, a line too long */
	assert_int_equal(statefile_parse_log("", 0, &live, &n, &torn), 0);
	assert_int_equal(n, 0);
	free(live);
	assert_int_equal(statefile_parse_log("10 9\0 1000 1 4 50 0\n", 21, &live, &n, &torn),
			 -EBADMSG);
	assert_int_equal(n, 0);
	free(live);
	{
		char longline[400];

		memset(longline, '1', sizeof(longline) - 2);
		longline[sizeof(longline) - 2] = '\n';
		longline[sizeof(longline) - 1] = '\0';
		assert_int_equal(parse_log_str(longline, &live, &n, &torn), -EBADMSG);
		assert_int_equal(n, 0);
		free(live);
	}
}

static void test_config_values(void **state)
{
	struct isod_config c, before;
	const char *why;
	(void)state;
	config_defaults(&c);
	assert_int_equal(config_validate(&c, &why), 0);
	before = c;
	const char *bad[][2] = {
		{ "iso_cpu", "0" }, { "iso_cpu", "101" }, { "iso_cpu", "7x" }, { "iso_cpu", "-5" },
		{ "iso_period", "0" }, { "iso_period", "3601" }, { "band_lo", "0" }, { "band_hi", "99" },
		{ "sample_ms", "0" }, { "inherit", "maybe" }, { "max_threads", "0" },
		{ "socket", "relative/path" }, { "log_level", "loud" },
		{ "allow_users", "no-such-user-isosched" },
		{ "scope", "percpu" }, { "scope", "" }, { "scope", "per-cpu " },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(config_set(&c, bad[i][0], bad[i][1], &why) < 0);
		assert_non_null(why);
	}
	assert_int_equal(config_set(&c, "no_such_key", "1", &why), -ENOKEY);
	assert_int_equal(c.tun.iso_cpu, before.tun.iso_cpu);
	assert_int_equal(config_set(&c, "iso_cpu", "80", &why), 0);
	assert_int_equal(c.tun.iso_cpu, 80);
	assert_int_equal(config_set(&c, "allow_groups", "0, root", &why), 0);
	assert_int_equal(c.n_allow_groups, 2);
	assert_int_equal(c.scope, ISO_SCOPE_GLOBAL);
	assert_int_equal(config_set(&c, "scope", "per-cpu", &why), 0);
	assert_int_equal(c.scope, ISO_SCOPE_PER_CPU);
	assert_int_equal(config_set(&c, "scope", "Global", &why), 0);
	assert_int_equal(c.scope, ISO_SCOPE_GLOBAL);
	/* cross-field: the band above the enforcer, a band upside down */
	assert_int_equal(config_set(&c, "band_lo", "50", &why), 0);
	assert_int_equal(config_validate(&c, &why), -EINVAL);
	assert_non_null(why);
	config_defaults(&c);
	assert_int_equal(config_set(&c, "enforcer_prio", "30", &why), 0);
	assert_int_equal(config_validate(&c, &why), -EINVAL);
}

/* SIGHUP: reloadable keys are taken over, restart-only ones are named
 * (config.c's table) and left as they run. */
static void test_config_reload_keys(void **state)
{
	struct isod_config cur, n;
	const char *why;
	char names[256];

	(void)state;
	config_defaults(&cur);
	n = cur;
	assert_int_equal(config_take_reloadable(&cur, &n, names, sizeof(names)), 0);
	assert_string_equal(names, "");
	assert_int_equal(config_set(&n, "iso_cpu", "50", &why), 0);
	assert_int_equal(config_set(&n, "allow_users", "0", &why), 0);
	assert_int_equal(config_set(&n, "backend", "scx", &why), 0);
	assert_int_equal(config_set(&n, "syslog", "yes", &why), 0);
	assert_int_equal(config_set(&n, "state_file", "/tmp/x.state", &why), 0);
	assert_int_equal(config_set(&n, "scope", "per-cpu", &why), 0);
	assert_int_equal(config_take_reloadable(&cur, &n, names, sizeof(names)), 4);
	assert_string_equal(names, "state_file, scope, backend, syslog");
	assert_int_equal(cur.scope, ISO_SCOPE_GLOBAL);
	assert_int_equal(cur.tun.iso_cpu, 50);
	assert_int_equal(cur.n_allow_users, 1);
	assert_false(cur.use_syslog);
	assert_string_equal(cur.state_path, ISOD_DEFAULT_STATE);
	/* every key of the table says what a bad value is */
	for (size_t i = 0; config_key_at(i); i++)
		assert_non_null(config_key_at(i)->why);
}

static void test_config_file(void **state)
{
	char path[] = "/tmp/isod-conf-XXXXXX";
	struct isod_config c;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	(void)state;
	fputs("[isod]\niso_cpu = 60\nsample_ms = 5\n", f);
	fclose(f);
	config_defaults(&c);
	assert_int_equal(config_load_file(&c, path, false), 0);
	assert_int_equal(c.tun.iso_cpu, 60);
	assert_int_equal(c.sample_ms, 5);
	/* one bad line: the whole file is refused, nothing changes */
	f = fopen(path, "w");
	fputs("[isod]\niso_cpu = 50\niso_period = never\n", f);
	fclose(f);
	assert_int_equal(config_load_file(&c, path, false), -EINVAL);
	assert_int_equal(c.tun.iso_cpu, 60);
	f = fopen(path, "w");
	fputs("[other]\niso_cpu = 50\n", f);
	fclose(f);
	assert_int_equal(config_load_file(&c, path, false), -EINVAL);
	unlink(path);
	assert_int_equal(config_load_file(&c, path, true), 0);   /* optional default */
	assert_true(config_load_file(&c, path, false) < 0);       /* named: must exist */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_stat_and_schedstat),
		cmocka_unit_test(test_stat_processor),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_state_line),
		cmocka_unit_test(test_state_record),
		cmocka_unit_test(test_state_log),
		cmocka_unit_test(test_config_values),
		cmocka_unit_test(test_config_reload_keys),
		cmocka_unit_test(test_config_file),
	};
	log_setup(LOG_EMERG, false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
