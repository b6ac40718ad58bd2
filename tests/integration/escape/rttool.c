/* rttool — an unprivileged client changing its kernel RT policy itself,
 * below the band, across RT policies, with the administrator's
 * RLIMIT_RTPRIO (tests/integration/escape, issue 28). Each program (and
 * what it execs) lives until the test is over (test_still_runs,
 * tool_common.h), SECONDS at most (TOOL_MAX_SECONDS); alarm(SECONDS + 2)
 * survives exec.
 *
 *   rttool idle SECONDS                report, then run 1 ms in 10 until
 *                                      SECONDS (what the others exec)
 *   rttool lower SECONDS fifo|rr KPRIO stay|exec|wait
 *                                      a non-main thread asks ISO_FIFO
 *                                      (priority ESC_PRIO, default 30),
 *                                      then sets itself kernel POLICY
 *                                      KPRIO (sched_setattr, as any RT
 *                                      thread may when it lowers itself;
 *                                      RR needs a hard RLIMIT_RTPRIO > 0)
 *                                      and stays (running 1 ms in 10),
 *                                      execs idle, or waits for a stdin
 *                                      line "exec" and execs idle then
 *   rttool self SECONDS fifo|rr KPRIO  no isod: raises its soft
 *                                      RLIMIT_RTPRIO to the hard one and
 *                                      sets itself POLICY KPRIO
 *
 * Output: "key value..." lines, one write each, for the shell. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"
#include "tool_common.h"

/* the command line's, set once in main before any thread starts */
static int seconds, want_policy, want_prio;
static const char *then; /* stay, exec or wait */

static void report_self(const char *what, int r)
{
	struct attr a = { 0 };
	int q = (int)syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0);

	say("%s %d pid %d tid %d policy %d prio %d", what, r, (int)getpid(),
	    (int)syscall(SYS_gettid), q < 0 ? -1 : (int)a.policy, (int)a.prio);
}

static int set_self(int policy, int prio)
{
	struct attr a = { .size = sizeof(a), .policy = (uint32_t)policy,
			  .flags = FLAG_RESET_ON_FORK, .prio = (uint32_t)prio };

	return syscall(SYS_sched_setattr, 0, &a, 0) < 0 ? -errno : 0;
}

static void exec_idle(void)
{
	char secs[16];
	char *args[] = { "rttool", "idle", secs, NULL };

	snprintf(secs, sizeof(secs), "%d", seconds);
	execv("/proc/self/exe", args);
	say("exec-failed %d", errno);
	_exit(3);
}

static void *lower_thread(void *arg)
{
	struct iso_thread_info ti;
	const char *p = getenv("ESC_PRIO");
	int r = iso_set_thread(0, ISO_SCHED_FIFO, p ? atoi(p) : 30, 0, &ti);

	(void)arg;
	if (r < 0) {
		say("grant-failed %d %s", r, iso_last_error());
		_exit(2);
	}
	say("granted tid %d kernel %d %d", (int)syscall(SYS_gettid), (int)ti.kernel_policy,
	    (int)ti.kernel_prio);
	report_self("lowered", set_self(want_policy, want_prio));
	if (!strcmp(then, "exec"))
		exec_idle();
	if (!strcmp(then, "wait")) {
		char line[64];

		while (fgets(line, sizeof(line), stdin))
			if (!strncmp(line, "exec", 4))
				exec_idle();
	}
	idle_until(now_s() + seconds);
	report_self("end", 0);
	_exit(0);
}

static int parse_policy(const char *s)
{
	return !strcmp(s, "fifo") ? 1 : !strcmp(s, "rr") ? 2 : -1;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 3) {
		fprintf(stderr, "usage: rttool MODE SECONDS [fifo|rr KPRIO [stay|exec]]\n");
		return 2;
	}
	seconds = atoi(argv[2]);
	if (seconds <= 0 || seconds > TOOL_MAX_SECONDS)
		seconds = TOOL_MAX_SECONDS;
	alarm((unsigned)seconds + 2); /* whatever happens */
	if (!strcmp(argv[1], "idle")) {
		report_self("exec", 0);
		idle_until(now_s() + seconds);
		return 0;
	}
	if (argc < 5 || (want_policy = parse_policy(argv[3])) < 0 ||
	    (want_prio = atoi(argv[4])) < 1 || want_prio > 99) {
		fprintf(stderr, "rttool: %s needs fifo|rr KPRIO\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[1], "self")) {
		struct rlimit rl;

		getrlimit(RLIMIT_RTPRIO, &rl);
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_RTPRIO, &rl);
		report_self("self", set_self(want_policy, want_prio));
		idle_until(now_s() + seconds);
		report_self("end", 0);
		return 0;
	}
	if (!strcmp(argv[1], "lower") && argc >= 6) {
		then = argv[5];
		if (pthread_create(&t, NULL, lower_thread, NULL))
			return 1;
		pause();
		return 0;
	}
	fprintf(stderr, "rttool: unknown mode %s\n", argv[1]);
	return 2;
}
