/* escapetool — an unprivileged client trying to keep a thread kernel RT
 * in the band without isod policing it (tests/integration/escape). Every
 * mode asks ISO for one of its threads (ISO_FIFO, priority PRIO from the
 * environment ESC_PRIO, default 30) and then tries one way out. Each
 * program (and what it starts) lives until the test is over
 * (test_still_runs, tool_common.h), SECONDS at most (TOOL_MAX_SECONDS);
 * alarm(SECONDS + 2) survives exec.
 *
 *   escapetool idle SECONDS           (what the escapes exec) report, then
 *                                     sleep-spin (1 ms of 10) until SECONDS
 *   escapetool exec-thread SECONDS [PROG ARG...]
 *                                     a granted non-main thread execs PROG
 *                                     (default: this tool's idle)
 *   escapetool exec-main SECONDS [PROG ARG...]   the same from the main thread
 *   escapetool children SECONDS       a granted thread forks, vforks and
 *                                     clones (with and without CLONE_VM,
 *                                     CLONE_THREAD; clone3, with
 *                                     CLONE_INTO_CGROUP when it can); each
 *                                     child reports its policy and lives on
 *   escapetool spawn SECONDS          posix_spawn with
 *                                     POSIX_SPAWN_SETSCHEDULER (FIFO) and
 *                                     pthread_create with explicit FIFO
 *                                     attributes, from a granted thread
 *   escapetool setattr SECONDS        the granted thread's own
 *                                     sched_setattr: raise, FIFO->RR, lower,
 *                                     clear RESET_ON_FORK, util clamps; then
 *                                     it waits for a stdin line (or EOF)
 *                                     and spins
 *   escapetool prlimit SECONDS        raise RLIMIT_RTTIME and RLIMIT_RTPRIO
 *                                     soft limits, then exec-thread
 *   escapetool grant-wait SECONDS     a granted non-main thread, then wait
 *                                     (for isod restarts); stdin line "exec"
 *                                     makes that thread exec idle
 *
 * Output: "key value..." lines, flushed, for the shell. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"
#include "tool_common.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static int seconds;
static char **g_argv; /* exec target given on the command line, or NULL */
static int g_argc;

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

static int esc_prio(void)
{
	const char *p = getenv("ESC_PRIO");

	return p ? atoi(p) : 30;
}

static void report_self(const char *what)
{
	struct attr a = { 0 };
	int r = (int)syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0);

	say("%s pid %d tid %d policy %d prio %d reset %d", what, (int)getpid(), (int)gettid_(),
	    r < 0 ? -1 : (int)a.policy, (int)a.prio, r < 0 ? -1 : (int)(a.flags & FLAG_RESET_ON_FORK));
}

static int grant_self(void)
{
	struct iso_thread_info ti;
	int r = iso_set_thread(0, ISO_SCHED_FIFO, esc_prio(), 0, &ti);

	if (r < 0) {
		say("grant-failed %d %s", r, iso_last_error());
		return r;
	}
	say("granted tid %d kernel %d %d", (int)gettid_(), (int)ti.kernel_policy, (int)ti.kernel_prio);
	return 0;
}

static void exec_target(void)
{
	char secs[16];

	snprintf(secs, sizeof(secs), "%d", seconds);
	if (g_argc > 0) {
		execv(g_argv[0], g_argv);
	} else {
		char *args[] = { "escapetool", "idle", secs, NULL };
		execv("/proc/self/exe", args);
	}
	say("exec-failed %d", errno);
	_exit(3);
}

static void *exec_thread(void *arg)
{
	(void)arg;
	if (grant_self() < 0)
		_exit(2);
	exec_target();
	return NULL;
}

static int run_exec_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, exec_thread, NULL))
		return 1;
	pause();
	return 0;
}

static int run_exec_main(void)
{
	if (grant_self() < 0)
		return 2;
	exec_target();
	return 3;
}

/* children: each reports its own policy right away, then stays SECONDS */
static int child_body(void *what)
{
	report_self((const char *)what);
	idle_until(now_s() + seconds);
	return 0;
}

static int thread_body(void *what)
{
	report_self((const char *)what);
	idle_until(now_s() + seconds);
	syscall(SYS_exit, 0); /* this thread only */
	return 0;
}

static void *pthread_body(void *what)
{
	child_body(what);
	return NULL;
}

static void try_clone3(const char *what, uint64_t flags, int cgfd)
{
	struct clone_args ca;
	long r;

	memset(&ca, 0, sizeof(ca));
	ca.flags = flags;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = cgfd >= 0 ? (uint64_t)cgfd : 0;
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0) {
		child_body((void *)what);
		_exit(0);
	}
	if (r < 0)
		say("%s-failed %d", what, errno);
}

/* its own frame: nothing of the caller's can be clobbered by vfork */
static __attribute__((noinline)) void try_vfork(void)
{
	char secs[16];
	char *args[] = { "escapetool", "idle", secs, NULL };

	snprintf(secs, sizeof(secs), "%d", seconds);
	if (vfork() == 0) {
		/* only exec or _exit after vfork: exec the reporter */
		execv("/proc/self/exe", args);
		_exit(3);
	}
}

static void *children_thread(void *arg)
{
	static char stk[4][256 * 1024];
	char cg[512], path[600];
	int cgfd = -1;
	FILE *f;
	pid_t p;

	(void)arg;
	if (grant_self() < 0)
		_exit(2);
	p = fork();
	if (p == 0) {
		child_body("fork");
		_exit(0);
	}
	try_vfork();
	if (clone(child_body, stk[0] + sizeof(stk[0]), SIGCHLD, "clone") < 0)
		say("clone-failed %d", errno);
	if (clone(child_body, stk[1] + sizeof(stk[1]), CLONE_VM | SIGCHLD, "clone-vm") < 0)
		say("clone-vm-failed %d", errno);
	if (clone(thread_body, stk[2] + sizeof(stk[2]),
		  CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_FS | CLONE_FILES, "clone-thread") < 0)
		say("clone-thread-failed %d", errno);
	try_clone3("clone3", 0, -1);
	/* our own cgroup, so CLONE_INTO_CGROUP needs no write permission */
	f = fopen("/proc/self/cgroup", "re");
	while (f && cgfd < 0 && fgets(cg, sizeof(cg), f)) {
		if (strncmp(cg, "0::", 3))
			continue;
		cg[strcspn(cg, "\n")] = '\0';
		/* cgroup v2 alone, or hybrid (v2 under unified/) */
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s", cg + 3);
		cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0 || access("/sys/fs/cgroup/unified", F_OK) == 0) {
			if (cgfd >= 0)
				close(cgfd);
			snprintf(path, sizeof(path), "/sys/fs/cgroup/unified%s", cg + 3);
			cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
	}
	if (f)
		fclose(f);
	if (cgfd >= 0)
		try_clone3("clone3-cgroup", CLONE_INTO_CGROUP, cgfd);
	else
		say("clone3-cgroup-skipped");
	say("children-started");
	idle_until(now_s() + seconds);
	return NULL;
}

static void *spawn_thread(void *arg)
{
	posix_spawnattr_t sa;
	struct sched_param sp = { .sched_priority = esc_prio() };
	pthread_attr_t pa;
	pthread_t t;
	char secs[16];
	char *args[] = { "escapetool", "idle", secs, NULL };
	pid_t pid;
	int r;

	(void)arg;
	snprintf(secs, sizeof(secs), "%d", seconds);
	if (grant_self() < 0)
		_exit(2);
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedpolicy(&sa, SCHED_FIFO);
	posix_spawnattr_setschedparam(&sa, &sp);
	r = posix_spawn(&pid, "/proc/self/exe", NULL, &sa, args, NULL);
	say("spawn-setscheduler %d", r);
	posix_spawnattr_destroy(&sa);
	/* SETSCHEDPARAM alone: keeps the policy the child has (SCHED_OTHER
	 * after RESET_ON_FORK), asks for an RT priority */
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSCHEDPARAM);
	posix_spawnattr_setschedparam(&sa, &sp);
	r = posix_spawn(&pid, "/proc/self/exe", NULL, &sa, args, NULL);
	say("spawn-setschedparam %d", r);
	posix_spawnattr_destroy(&sa);
	pthread_attr_init(&pa);
	pthread_attr_setinheritsched(&pa, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&pa, SCHED_FIFO);
	pthread_attr_setschedparam(&pa, &sp);
	r = pthread_create(&t, &pa, pthread_body, "pthread-fifo");
	say("pthread-explicit-fifo %d", r);
	pthread_attr_destroy(&pa);
	/* inherited scheduling: the new thread gets RESET_ON_FORK's SCHED_OTHER */
	r = pthread_create(&t, NULL, pthread_body, "pthread-inherit");
	say("pthread-inherit %d", r);
	say("spawn-done");
	idle_until(now_s() + seconds);
	return NULL;
}

static int set_self(uint32_t policy, uint32_t prio, uint64_t flags, uint32_t umin, uint32_t umax)
{
	struct attr a = { .size = sizeof(a), .policy = policy, .flags = flags, .prio = prio,
			  .util_min = umin, .util_max = umax };

	return syscall(SYS_sched_setattr, 0, &a, 0) < 0 ? -errno : 0;
}

static void *setattr_thread(void *arg)
{
	struct attr a = { 0 };
	int kp;

	(void)arg;
	if (grant_self() < 0)
		_exit(2);
	syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0);
	kp = (int)a.prio;
	say("raise %d", set_self(SCHED_FIFO, (uint32_t)kp + 1, FLAG_RESET_ON_FORK, 0, 0));
	say("fifo-to-rr %d", set_self(SCHED_RR, (uint32_t)kp, FLAG_RESET_ON_FORK, 0, 0));
	say("clear-reset-on-fork %d", set_self(SCHED_FIFO, (uint32_t)kp, 0, 0, 0));
	say("uclamp %d", set_self(SCHED_FIFO, (uint32_t)kp,
				  FLAG_RESET_ON_FORK | FLAG_UTIL_CLAMP_MIN | FLAG_UTIL_CLAMP_MAX, 1024, 1024));
	say("lower %d", set_self(SCHED_FIFO, (uint32_t)kp - 1, FLAG_RESET_ON_FORK, 0, 0));
	report_self("after");
	/* quiet until the test has seen isod put its grant back (a line on
	 * stdin, or its end), then a runaway: isod must still police it
	 * (demote over budget) */
	{
		char line[64];

		if (!fgets(line, sizeof(line), stdin))
			say("stdin-closed");
	}
	report_self("spinning");
	spin_until(now_s() + seconds);
	return NULL;
}

static void *prlimit_thread(void *arg)
{
	struct rlimit rl;

	(void)arg;
	getrlimit(RLIMIT_RTTIME, &rl);
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 200000 : rl.rlim_max;
	say("raise-rttime %d", setrlimit(RLIMIT_RTTIME, &rl) < 0 ? -errno : 0);
	getrlimit(RLIMIT_RTPRIO, &rl);
	rl.rlim_cur = 99;
	say("raise-rtprio %d", setrlimit(RLIMIT_RTPRIO, &rl) < 0 ? -errno : 0);
	return exec_thread(NULL);
}

static void *grant_wait_thread(void *arg)
{
	char line[64];

	(void)arg;
	if (grant_self() < 0)
		_exit(2);
	while (fgets(line, sizeof(line), stdin))
		if (!strncmp(line, "exec", 4))
			exec_target();
	idle_until(now_s() + seconds);
	return NULL;
}

static int in_thread(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode;

	if (argc < 3) {
		fprintf(stderr, "usage: escapetool MODE SECONDS [PROG ARG...]\n");
		return 2;
	}
	mode = argv[1];
	seconds = atoi(argv[2]);
	if (seconds <= 0 || seconds > TOOL_MAX_SECONDS)
		seconds = TOOL_MAX_SECONDS;
	alarm((unsigned)seconds + 2); /* whatever happens */
	g_argv = argv + 3;
	g_argc = argc - 3;
	if (!strcmp(mode, "idle")) {
		report_self("exec");
		idle_until(now_s() + seconds);
		return 0;
	}
	if (!strcmp(mode, "exec-thread"))
		return run_exec_thread();
	if (!strcmp(mode, "exec-main"))
		return run_exec_main();
	if (!strcmp(mode, "children"))
		return in_thread(children_thread);
	if (!strcmp(mode, "spawn"))
		return in_thread(spawn_thread);
	if (!strcmp(mode, "setattr"))
		return in_thread(setattr_thread);
	if (!strcmp(mode, "prlimit"))
		return in_thread(prlimit_thread);
	if (!strcmp(mode, "grant-wait"))
		return in_thread(grant_wait_thread);
	fprintf(stderr, "escapetool: unknown mode %s\n", mode);
	return 2;
}
