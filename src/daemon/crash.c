/* crash.c — the fatal-signal handler (crash.h). Nothing here allocates or
 * locks once a signal arrived: the stacks are mapped beforehand, the state
 * is three atomics. */
#include "crash.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

/* Room for the gasp (a loop over the task table and system calls) with a
 * good margin; SIGSTKSZ is no longer a constant in recent glibc. */
#define CRASH_STACK_BYTES (256u * 1024u)
/* How long a second faulting thread waits for the first one's gasp. */
#define CRASH_WAIT_MS 2000

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
/* Process-wide by nature (signal dispositions are, and a handler has no
 * argument to reach anything else by): gasp, ctx and old are set once by
 * crash_catch before any other thread exists, only read afterwards;
 * state is the handlers' own (0: no crash yet, 1: a gasp is running, 2:
 * it finished). */
static struct {
	void (*gasp)(void *ctx);
	void *ctx;
	struct sigaction old[NSIG];
	atomic_int state;
} crash;

static void sleep_1ms(void)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	(void)nanosleep(&ts, NULL);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, expected = 0;

	(void)uc;
	if (atomic_compare_exchange_strong(&crash.state, &expected, 1)) {
		crash.gasp(crash.ctx);
		atomic_store(&crash.state, 2);
	} else {
		for (int i = 0; i < CRASH_WAIT_MS && atomic_load(&crash.state) == 1; i++)
			sleep_1ms();
	}
	sigaction(sig, &crash.old[sig], NULL);
	errno = saved;
	/* a sent signal is sent again; a real fault recurs on return */
	if (si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
}

int crash_thread_stack(void)
{
	stack_t ss = { .ss_size = CRASH_STACK_BYTES };

	ss.ss_sp = mmap(NULL, CRASH_STACK_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (ss.ss_sp == MAP_FAILED)
		return -errno;
	if (sigaltstack(&ss, NULL) < 0) {
		int r = -errno;

		munmap(ss.ss_sp, CRASH_STACK_BYTES);
		return r;
	}
	return 0;
}

int crash_catch(void (*gasp)(void *ctx), void *ctx)
{
	struct sigaction sa = { .sa_sigaction = on_fatal,
				.sa_flags = SA_SIGINFO | SA_ONSTACK };

	crash.gasp = gasp;
	crash.ctx = ctx;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (sigaction(crash_sigs[i], &sa, &crash.old[crash_sigs[i]]) < 0)
			return -errno;
	return crash_thread_stack();
}
