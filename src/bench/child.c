/* child.c — what every process the benchmark forks does first: drop the
 * parent's signal handlers (they clean up the parent's children, not ours)
 * and die with the parent, so no hog, measuring child or private isod can
 * outlive the benchmark; and, for the clients, bounds and nobody's
 * credentials. */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

bool child_bind_to_parent(pid_t parent, int deathsig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, deathsig);
	/* the parent may have died before prctl took effect */
	return getppid() == parent;
}

bool child_become_rt_nobody(pid_t parent, unsigned bound_s, uint64_t rt_us)
{
	struct rlimit rl = { rt_us, rt_us + 1000000 };

	if (!child_bind_to_parent(parent, SIGKILL))
		return false;
	alarm(bound_s);
	setrlimit(RLIMIT_RTTIME, &rl);
	if (geteuid() == 0) {
		if (bench_drop_to_nobody() < 0) {
			fprintf(stderr, "isobench: dropping privileges to nobody: %s\n",
				strerror(errno));
			return false;
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			return false;
	}
	return true;
}

int bench_drop_to_nobody(void)
{
	if (setgroups(0, NULL) < 0)
		return -1;
	if (setresgid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0)
		return -1;
	if (setresuid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0)
		return -1;
	if (getuid() != BENCH_NOBODY || geteuid() != BENCH_NOBODY ||
	    getegid() != BENCH_NOBODY)
		return -1;
	return 0;
}

int child_reap(pid_t p, uint64_t deadline_ns, int *status)
{
	pid_t w = waitpid(p, status, WNOHANG);

	if (w == p || (w < 0 && errno != EINTR))
		return 1;
	if (bench_clock_ns(CLOCK_MONOTONIC) > deadline_ns) {
		kill(p, SIGKILL);
		waitpid(p, status, 0);
		return -1;
	}
	return 0;
}
