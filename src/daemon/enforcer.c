/* enforcer.c — the high-priority enforcement loop: a check (read every
 * ISO thread, step the engine, act) at the earliest moment a decision can
 * change (schedule.c), sleeping in between. */
#include "enforcer.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

#include "crash.h"
#include "iso_plan.h"
#include "log.h"
#include "schedule.h"
#include "police.h"

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* Sleep (lock released) until due, a re-plan or the stop. */
static void sleep_until(struct isod *d, int64_t due)
{
	struct timespec at;

	if (due == ISO_PLAN_NEVER) {
		/* no ISO thread: nothing can change until one comes */
		pthread_cond_wait(&d->wake, &d->lock);
	} else {
		at.tv_sec = due / 1000000000LL;
		at.tv_nsec = due % 1000000000LL;
		(void)pthread_cond_timedwait(&d->wake, &d->lock, &at);
	}
	d->wakeups++;
}

/* A debug line when the enforcer goes to sleep for long (no check
 * planned, or the next one a second or more away) with a plan it has not
 * reported yet: the tests wait on it ("the enforcer has planned with the
 * new thread, and sleeps") instead of on time. Short sleeps (a thread
 * running) say nothing: they would be a line every few ms. */
static void note_sleep(const struct isod *d, int64_t due, int64_t now, int64_t *last_due,
		       size_t *last_n)
{
	bool quiet = due == ISO_PLAN_NEVER || due - now >= 1000000000LL;

	if (quiet && (due != *last_due || d->tasks.used != *last_n)) {
		if (due == ISO_PLAN_NEVER)
			log_debug("enforcer: sleeps with %zu ISO threads, no check planned",
				  d->tasks.used);
		else
			log_debug("enforcer: sleeps with %zu ISO threads, next check in %lld ms",
				  d->tasks.used, (long long)((due - now) / 1000000));
	}
	*last_due = due;
	*last_n = d->tasks.used;
}

static void *enforcer_main(void *arg)
{
	struct isod *d = arg;
	struct timespec t0, t1, c0, c1;
	int64_t due = ISO_PLAN_NEVER;
	/* rest at least as long as the last check took: a check of many
	 * threads can take longer than the least gap the plan allows, and
	 * back to back the enforcer would hold the lock (and a CPU) for good */
	int64_t rest_until = 0;
	/* the last sleep's plan (note_sleep): -1 is none yet */
	int64_t last_due = -1;
	size_t last_n = 0;

	/* the crash handler needs a stack of its own in every thread */
	if (crash_thread_stack() < 0)
		log_warning("enforcer: no alternate signal stack; a stack overflow here would not demote");
	pthread_mutex_lock(&d->lock);
	d->replan = true;
	while (!atomic_load(&d->stop)) {
		/* the step's time is taken with the lock held, right before
		 * the reads: a wait for the lock must not make the CPU time
		 * read look like more than the interval allowed */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (d->replan) {
			d->replan = false;
			due = isod_plan(d, ts_ns(&t0));
			atomic_store(&d->due_ns, due);
		}
		if (due > ts_ns(&t0) || rest_until > ts_ns(&t0)) {
			note_sleep(d, due, ts_ns(&t0), &last_due, &last_n);
			sleep_until(d, due > rest_until ? due : rest_until);
			continue;
		}
		/* the cost counted is CPU time: preemption is not isod's cost */
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		isod_enforce_step(d, ts_ns(&t0));
		d->samples++;
		atomic_store(&d->last_step_ns, ts_ns(&t0));
		/* the step's own changes (exits) are in this plan already; a
		 * long stall (suspend, SIGSTOP) is one long interval, no steps
		 * are replayed */
		d->replan = false;
		due = isod_plan(d, ts_ns(&t0));
		atomic_store(&d->due_ns, due);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		rest_until = 2 * ts_ns(&t1) - ts_ns(&t0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		d->sample_ns_total += (uint64_t)(ts_ns(&c1) - ts_ns(&c0));
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int enforcer_start(struct isod *d, pthread_t *th)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = config_enforcer_prio(&d->cfg) };
	int r;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	r = pthread_create(th, &a, enforcer_main, d);
	if (r == EPERM && d->cfg.dry_run) {
		log_warning("dry run without privilege: enforcer runs SCHED_OTHER");
		pthread_attr_setinheritsched(&a, PTHREAD_INHERIT_SCHED);
		r = pthread_create(th, &a, enforcer_main, d);
	}
	pthread_attr_destroy(&a);
	if (r)
		return log_error_errno(-r, "cannot start the enforcer at SCHED_FIFO %d",
				       sp.sched_priority);
	return 0;
}
