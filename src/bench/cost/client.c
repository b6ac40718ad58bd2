/* client.c — --daemon-cost's client, a process of user nobody: N threads,
 * each granted ISO_FIFO and then asleep (blocked on a condition variable)
 * for the whole measurement — or, with --iso-load, waking once a period
 * (staggered) for a share of busy work, so that together they use that
 * much of the machine as ISO; then its main thread makes R requests
 * iso_set_thread(0, ISO_FIFO 50) — timed from the call to its return, on
 * the connection libisosched keeps for the process — and checks that the kernel
 * then runs it as SCHED_FIFO; each is followed by a release to
 * SCHED_OTHER (timed separately). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/child.h"
#include "common/clock.h"
#include "cost.h"
#include "isosched.h"

/* The client's state, on its main thread's stack: its sleepers wait on
 * done. */
struct client {
	struct cost_shared *sh;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	atomic_int started; /* sleepers started: each one's place in the period */
	atomic_bool stop;   /* the workers' end */
};

static int64_t thread_cpu_ns(void)
{
	return (int64_t)bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Once a period, at its own offset, sh->work_ns of CPU time; until stop. */
static void work_periodically(struct client *c, int index)
{
	const struct cost_shared *sh = c->sh;
	int64_t next = (int64_t)bench_clock_ns(CLOCK_MONOTONIC) + sh->period_ns +
		       sh->period_ns * index / (sh->n ? sh->n : 1);

	while (!atomic_load(&c->stop)) {
		struct timespec ts = { next / 1000000000, next % 1000000000 };
		int64_t until;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		until = thread_cpu_ns() + sh->work_ns;
		while (thread_cpu_ns() < until)
			;
		next += sh->period_ns;
	}
}

static void cost_error(struct cost_shared *sh, const char *fmt, const char *a)
{
	if (atomic_flag_test_and_set(&sh->error_taken))
		return;
	snprintf(sh->error, sizeof(sh->error), fmt, a);
}

/* iso_set_thread, again after EAGAIN (a rate limit), uncounted */
static int set_retry(int policy, int prio, uint64_t *eagain)
{
	int r;

	for (int i = 0; i < 2000; i++) {
		r = iso_set_thread(0, policy, prio, 0, NULL);
		if (r != -EAGAIN)
			return r;
		(*eagain)++;
		bench_sleep_ns(5000000);
	}
	return r;
}

static void *sleeper(void *arg)
{
	struct client *c = arg;
	struct cost_shared *sh = c->sh;
	uint64_t ea = 0;
	int r;

	r = set_retry(ISO_SCHED_ISO_FIFO, 10, &ea);
	if (r < 0) {
		cost_error(sh, "iso_set_thread: %s", strerror(-r));
		atomic_fetch_add(&sh->failed, 1);
	} else if (bench_kernel_policy() != SCHED_FIFO) {
		cost_error(sh, "granted thread not SCHED_FIFO%s", "");
		atomic_fetch_add(&sh->failed, 1);
	} else {
		atomic_fetch_add(&sh->granted, 1);
	}
	if (sh->work_ns > 0) {
		work_periodically(c, atomic_fetch_add(&c->started, 1));
		return NULL;
	}
	pthread_mutex_lock(&c->mu);
	while (!c->done)
		pthread_cond_wait(&c->cv, &c->mu);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* One request, timed from call to return; refusals by isod's rate limit
 * (EAGAIN) are counted in *ea and retried after 5 ms. */
static int timed_set(int policy, int prio, uint64_t *ea, uint64_t *dt)
{
	for (;;) {
		uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
		int r = iso_set_thread(0, policy, prio, 0, NULL);

		*dt = bench_clock_ns(CLOCK_MONOTONIC) - t0;
		if (r != -EAGAIN)
			return r;
		(*ea)++;
		bench_sleep_ns(5000000);
	}
}

static _Noreturn void client_main(struct cost_shared *sh, pid_t parent,
				   unsigned bound_s)
{
	struct client c = { .sh = sh, .mu = PTHREAD_MUTEX_INITIALIZER,
			    .cv = PTHREAD_COND_INITIALIZER };
	pthread_attr_t attr;
	pthread_t th;
	uint64_t ea = 0;

	if (!child_become_rt_nobody(parent, bound_s, 2000000))
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < sh->n; i++) {
		int r = pthread_create(&th, &attr, sleeper, &c);

		if (r) {
			cost_error(sh, "pthread_create: %s", strerror(r));
			_exit(1);
		}
	}
	while (atomic_load(&sh->granted) + atomic_load(&sh->failed) <
	       sh->n)
		bench_sleep_ns(5000000);
	atomic_store(&sh->ready, 1);
	while (atomic_load(&sh->phase) < 1)
		bench_sleep_ns(5000000);
	for (int i = 0; i < sh->requests; i++) {
		uint64_t dt;
		int r;

		r = timed_set(ISO_SCHED_ISO_FIFO, BENCH_PRIO, &ea, &dt);
		if (r < 0) {
			sh->request_errors++;
			cost_error(sh, "request: iso_set_thread: %s", strerror(-r));
			continue;
		}
		if (bench_kernel_policy() != SCHED_FIFO)
			sh->policy_errors++;
		hist_add(&sh->set, dt);
		r = timed_set(ISO_SCHED_NORMAL, 0, &ea, &dt);
		if (r < 0) {
			sh->request_errors++;
			cost_error(sh, "release: iso_set_thread: %s", strerror(-r));
			continue;
		}
		if (bench_kernel_policy() != SCHED_OTHER)
			sh->policy_errors++;
		hist_add(&sh->rel, dt);
	}
	sh->eagain = ea;
	atomic_store(&c.stop, true);
	atomic_store(&sh->phase, 2);
	pthread_mutex_lock(&c.mu);
	c.done = 1;
	pthread_cond_broadcast(&c.cv);
	pthread_mutex_unlock(&c.mu);
	_exit(0);
}


pid_t cost_client_start(struct cost_shared *sh, unsigned bound_s)
{
	pid_t parent = getpid(), p;

	fflush(NULL);
	p = fork();
	if (p < 0)
		return -errno;
	if (p == 0)
		client_main(sh, parent, bound_s);
	child_track(p);
	return p;
}
