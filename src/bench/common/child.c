/* child.c — what every process the benchmark forks does first: drop the
 * parent's signal handlers (they clean up the parent's children, not ours)
 * and die with the parent, so no hog, measuring child or private isod can
 * outlive the benchmark; and, for the clients, bounds and nobody's
 * credentials. Then waiting for them against a deadline. */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"

/* Read by the signal handler (cleanup.c), which must kill the child that
 * runs now: hence file scope, and volatile. */
static volatile pid_t tracked_child;

void child_track(pid_t p)
{
	tracked_child = p;
}

pid_t child_tracked(void)
{
	return tracked_child;
}

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
	int r;

	if (!child_bind_to_parent(parent, SIGKILL))
		return false;
	alarm(bound_s);
	setrlimit(RLIMIT_RTTIME, &rl);
	if (geteuid() == 0) {
		r = bench_drop_to_nobody();
		if (r < 0) {
			fprintf(stderr, "isobench: dropping privileges to nobody: %s\n",
				strerror(-r));
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
	if (setgroups(0, NULL) < 0 ||
	    setresgid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0 ||
	    setresuid(BENCH_NOBODY, BENCH_NOBODY, BENCH_NOBODY) < 0)
		return -errno;
	if (getuid() != BENCH_NOBODY || geteuid() != BENCH_NOBODY ||
	    getegid() != BENCH_NOBODY)
		return -EPERM;
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

int child_wait(pid_t p, uint64_t deadline_ns, uint64_t poll_ns,
	       void (*tick)(void *), void *arg, int *status)
{
	int r;

	*status = 0;
	while ((r = child_reap(p, deadline_ns, status)) == 0) {
		if (tick)
			tick(arg);
		bench_sleep_ns(poll_ns);
	}
	if (tracked_child == p)
		tracked_child = 0;
	return r < 0 ? -ETIMEDOUT : 0;
}

_Noreturn void hog_spin_cpu(void)
{
	volatile uint64_t x = 1;

	for (;;)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
}

pid_t child_spawn_hog(unsigned max_s, void (*body)(void))
{
	pid_t parent = getpid(), p = fork();

	if (p < 0)
		return -errno;
	if (p == 0) {
		struct sched_param sp = { 0 };

		if (!child_bind_to_parent(parent, SIGKILL))
			_exit(0);
		/* plain SCHED_OTHER, nice 0, whatever the benchmark runs as */
		sched_setscheduler(0, SCHED_OTHER, &sp);
		setpriority(PRIO_PROCESS, 0, 0);
		alarm(max_s);
		body();
		_exit(0);
	}
	return p;
}

void *shm_new(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p; /* anonymous maps are zeroed */
}

void shm_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}
