/* spin — a bounded test workload: N threads that spin (or run a duty
 * cycle) for a fixed time, optionally asking isod for ISO through
 * libisosched first. Never runs longer than --seconds (+ a hard alarm), so
 * no test can leave a spinning real-time thread behind.
 *
 *   spin [--threads N] [--seconds S] [--iso rr|fifo] [--prio P]
 *        [--limit PCT] [--duty PCT] [--fork] [--sleep-first MS]
 *        [--idle-after S] [--period-us US]
 *
 * Prints "tid TID" per thread once it is set up ("ready" after all), and at
 * the end "cpu TID SECONDS" per thread. Exit 0, or 2 if a request failed. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"

static int nthreads = 1, policy = -1, prio = 10, limit = 0, duty = 100;
static double seconds = 1.0;
static int sleep_first_ms;
static int period_us = 10000; /* of the duty cycle */
static double idle_after; /* stay alive, blocked, this long after spinning */
static atomic_int failed, ready_count;

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	double end, period = period_us / 1e6, cpu;
	(void)arg;

	if (policy >= 0) {
		int r = iso_set_thread(0, policy, prio, limit, NULL);
		if (r < 0) {
			fprintf(stderr, "spin: iso_set_thread: %s: %s\n",
				strerror(-r), iso_last_error());
			atomic_store(&failed, 1);
		}
	}
	printf("tid %d\n", (int)gettid());
	fflush(stdout);
	atomic_fetch_add(&ready_count, 1);
	if (sleep_first_ms)
		usleep((useconds_t)sleep_first_ms * 1000);
	end = now_s(CLOCK_MONOTONIC) + seconds;
	while (now_s(CLOCK_MONOTONIC) < end) {
		/* run duty % of each period (10 ms by default), sleep the rest */
		double busy_end = now_s(CLOCK_MONOTONIC) + period * duty / 100.0;
		while (now_s(CLOCK_MONOTONIC) < busy_end)
			;
		if (duty < 100)
			usleep((useconds_t)(period * (100 - duty) / 100.0 * 1e6));
	}
	cpu = now_s(CLOCK_THREAD_CPUTIME_ID);
	printf("cpu %d %.3f\n", (int)gettid(), cpu);
	fflush(stdout);
	if (idle_after > 0)
		usleep((useconds_t)(idle_after * 1e6));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[256];
	int do_fork = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--threads") && v) nthreads = atoi(v), i++;
		else if (!strcmp(a, "--seconds") && v) seconds = atof(v), i++;
		else if (!strcmp(a, "--iso") && v) {
			policy = !strcmp(v, "fifo") ? ISO_SCHED_ISO_FIFO : ISO_SCHED_ISO_RR;
			i++;
		} else if (!strcmp(a, "--prio") && v) prio = atoi(v), i++;
		else if (!strcmp(a, "--limit") && v) limit = atoi(v), i++;
		else if (!strcmp(a, "--duty") && v) duty = atoi(v), i++;
		else if (!strcmp(a, "--sleep-first") && v) sleep_first_ms = atoi(v), i++;
		else if (!strcmp(a, "--idle-after") && v) idle_after = atof(v), i++;
		else if (!strcmp(a, "--period-us") && v) period_us = atoi(v), i++;
		else if (!strcmp(a, "--fork")) do_fork = 1;
		else {
			fprintf(stderr, "spin: bad argument '%s'\n", a);
			return 64;
		}
	}
	if (nthreads < 1 || nthreads > 256 || seconds <= 0 || seconds > 120 || idle_after < 0 || idle_after > 60 ||
	    duty < 1 || duty > 100 || period_us < 100 || period_us > 1000000) {
		fprintf(stderr, "spin: out of range\n");
		return 64;
	}
	/* The hard bound: whatever happens, this process dies in time. */
	alarm((unsigned)(seconds + idle_after) + 10);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (do_fork) {
		/* an ISO parent that forks a child and creates threads in it */
		pid_t c;
		if (policy >= 0 && iso_set_thread(0, policy, prio, limit, NULL) < 0)
			return 2;
		printf("parent %d\n", (int)getpid());
		c = fork();
		if (c == 0) {
			printf("child %d\n", (int)getpid());
			policy = -1; /* the child asks nothing: inherits or not */
			/* isod adopts the child asynchronously (proc connector);
			 * threads created before that cannot inherit ISO: wait
			 * for it (the kernel policy leaves SCHED_OTHER), 5 s at
			 * most (inherit=no: never), and say which it was */
			int adopted = 0;
			for (int ms = 0; ms < 5000 && !adopted; ms++) {
				adopted = (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) != SCHED_OTHER;
				if (!adopted)
					usleep(1000);
			}
			printf("%s\n", adopted ? "adopted" : "not adopted");
			for (int i = 0; i < nthreads; i++)
				pthread_create(&th[i], NULL, worker, NULL);
			for (int i = 0; i < nthreads; i++)
				pthread_join(th[i], NULL);
			_exit(0);
		}
		waitpid(c, NULL, 0);
		return 0;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	while (atomic_load(&ready_count) < nthreads)
		usleep(1000);
	printf("ready\n");
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&failed) ? 2 : 0;
}
