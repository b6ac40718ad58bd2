/* crashprobe — drives isod's crash handler (src/daemon/crash.c) and the
 * actuator's dying flag with real faults, for crash_gasp.sh. Root only:
 * it makes TID kernel SCHED_FIFO at KPRIO first, then crashes; its gasp is
 * isod's (actuator_die, then demote TID), so TID must end SCHED_OTHER.
 *
 *   crashprobe overflow TID KPRIO       a thread overflows its stack
 *   crashprobe overflow-main TID KPRIO  the main thread does
 *   crashprobe race TID KPRIO           a thread promotes TID in a loop
 *                                       while the main thread gets SIGSEGV
 * Exits by the signal (status 139 in a shell); 2 on misuse or set-up
 * failure. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actuator.h"
#include "crash.h"

static pid_t target;
static int kprio;

static void gasp(void *ctx)
{
	(void)ctx;
	actuator_die();
	(void)actuator_demote_signal_safe(target);
}

/* Deep enough to overflow any stack; volatile so nothing is folded. */
static volatile unsigned long depth_limit = ~0ul;

static unsigned long recurse(unsigned long n)
{
	volatile char frame[512];

	frame[0] = (char)n;
	if (n >= depth_limit)
		return frame[0];
	return recurse(n + 1) + frame[0];
}

static void *overflow_thread(void *arg)
{
	(void)arg;
	if (crash_thread_stack() < 0)
		exit(2);
	(void)recurse(0);
	return NULL;
}

static void *promote_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (actuator_promote(target, true, kprio) < 0)
			return NULL; /* -ECANCELED once dying */
}

int main(int argc, char **argv)
{
	pthread_t th;
	struct timespec ts = { .tv_nsec = 20000000 };

	if (argc != 4)
		return 2;
	target = (pid_t)atoi(argv[2]);
	kprio = atoi(argv[3]);
	if (crash_catch(gasp, NULL) < 0 || actuator_promote(target, true, kprio) < 0) {
		perror("crashprobe: set-up");
		return 2;
	}
	if (!strcmp(argv[1], "overflow")) {
		pthread_create(&th, NULL, overflow_thread, NULL);
		pthread_join(th, NULL);
	} else if (!strcmp(argv[1], "overflow-main")) {
		(void)recurse(0);
	} else if (!strcmp(argv[1], "race")) {
		pthread_create(&th, NULL, promote_loop, NULL);
		nanosleep(&ts, NULL);
		raise(SIGSEGV);
	}
	return 2;
}
