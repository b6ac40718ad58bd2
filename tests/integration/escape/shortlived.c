/* shortlived — programs isod grants ISO to that end soon, every way a
 * thread can go (tests/integration/escape/quiet_exit.sh): none of them
 * is a stray, and isod must not say so.
 *
 *   shortlived threads N MS   N threads, each asks ISO_FIFO, runs MS ms
 *                             (sleeping 1 ms in 2) and exits while ISO;
 *                             the main thread (SCHED_OTHER) joins them
 *   shortlived main-first MS  the main thread and one other ask ISO_FIFO;
 *                             the main thread exits first (pthread_exit:
 *                             a zombie leader, still kernel FIFO), the
 *                             other runs MS ms more, then the process ends
 *   shortlived herd N         no ISO: N threads (small stacks) wait on one
 *                             condition; "ready pid P" once all wait; a
 *                             line on stdin wakes them all at once, each
 *                             then waits for good (a herd of strays-to-be
 *                             switching in together: the kernel's ring)
 *   shortlived zombie-leader MS  no ISO: the main thread exits first, the
 *                             other says "survivor tid T" and lives MS ms
 *                             asleep (a stray-to-be beside a zombie leader)
 *
 * Priority ESC_PRIO (default 30). Output: "granted tid T" per grant,
 * "done" at the end.
 * Bounded: alarm(10), herd alarm(30). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"

static int ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int grant(void)
{
	const char *p = getenv("ESC_PRIO");
	int r = iso_set_thread(0, ISO_SCHED_FIFO, p ? atoi(p) : 30, 0, NULL);

	if (r < 0) {
		printf("grant-failed %d %s\n", r, iso_last_error());
		return r;
	}
	printf("granted tid %d\n", (int)syscall(SYS_gettid));
	fflush(stdout);
	return 0;
}

/* run ms, 1 ms on, 1 ms asleep: never the burst guard's */
static void run(void)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		double t = now_ms() + 1;
		struct timespec nap = { 0, 1000000 };

		while (now_ms() < t)
			;
		nanosleep(&nap, NULL);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	if (grant() == 0)
		run();
	return NULL; /* exits while ISO */
}

static pthread_barrier_t both_granted;

static void *survivor(void *arg)
{
	(void)arg;
	(void)grant();
	pthread_barrier_wait(&both_granted);
	run(); /* outlives the main thread */
	printf("done\n");
	fflush(stdout);
	exit(0);
}

static pthread_mutex_t herd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t herd_go = PTHREAD_COND_INITIALIZER, herd_stay = PTHREAD_COND_INITIALIZER;
static int herd_waiting, herd_gone;

static void *herd_member(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&herd_lock);
	herd_waiting++;
	while (!herd_gone)
		pthread_cond_wait(&herd_go, &herd_lock);
	for (;;) /* asleep until the process ends */
		pthread_cond_wait(&herd_stay, &herd_lock);
	return NULL;
}

static int run_herd(int n)
{
	pthread_attr_t a;
	pthread_t t;
	char line[16];
	int w;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, &a, herd_member, NULL))
			return 1;
	do {
		struct timespec nap = { 0, 10000000 };

		nanosleep(&nap, NULL);
		pthread_mutex_lock(&herd_lock);
		w = herd_waiting;
		pthread_mutex_unlock(&herd_lock);
	} while (w < n);
	printf("ready pid %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	pthread_mutex_lock(&herd_lock);
	herd_gone = 1;
	pthread_cond_broadcast(&herd_go);
	pthread_mutex_unlock(&herd_lock);
	printf("woken\n");
	fflush(stdout);
	pause();
	return 0;
}

static void *sleeper(void *arg)
{
	struct timespec nap = { ms / 1000, (ms % 1000) * 1000000L };

	(void)arg;
	printf("survivor tid %d\n", (int)syscall(SYS_gettid));
	fflush(stdout);
	nanosleep(&nap, NULL);
	exit(0);
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n;

	alarm(10);
	if (argc == 4 && !strcmp(argv[1], "threads")) {
		n = atoi(argv[2]);
		ms = atoi(argv[3]);
		if (n < 1 || n > 64 || ms < 0 || ms > 5000)
			return 2;
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				return 1;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("done\n");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "main-first")) {
		ms = atoi(argv[2]);
		if (ms < 0 || ms > 5000)
			return 2;
		pthread_barrier_init(&both_granted, NULL, 2);
		if (grant() < 0 || pthread_create(&t[0], NULL, survivor, NULL))
			return 1;
		pthread_barrier_wait(&both_granted);
		pthread_exit(NULL); /* the leader goes, the process lives on */
	}
	if (argc == 3 && !strcmp(argv[1], "herd")) {
		n = atoi(argv[2]);
		if (n < 1 || n > 8000)
			return 2;
		alarm(30);
		return run_herd(n);
	}
	if (argc == 3 && !strcmp(argv[1], "zombie-leader")) {
		ms = atoi(argv[2]);
		if (ms < 0 || ms > 8000 || pthread_create(&t[0], NULL, sleeper, NULL))
			return 2;
		pthread_exit(NULL);
	}
	fprintf(stderr, "usage: shortlived threads N MS | main-first MS | herd N | zombie-leader MS\n");
	return 2;
}
