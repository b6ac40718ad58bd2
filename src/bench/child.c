/* child.c — what every process the benchmark forks does first: drop the
 * parent's signal handlers (they clean up the parent's children, not ours)
 * and die with the parent, so no hog, measuring child or private isod can
 * outlive the benchmark. */
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
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
