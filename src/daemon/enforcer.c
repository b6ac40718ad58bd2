/* enforcer.c — the high-priority sampling loop. */
#include "enforcer.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

#include "crash.h"
#include "log.h"
#include "police.h"

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void *enforcer_main(void *arg)
{
	struct isod *d = arg;
	struct timespec next, t0, t1, c0, c1;
	int64_t step = (int64_t)d->cfg.sample_ms * 1000000LL;

	/* the crash handler needs a stack of its own in every thread */
	if (crash_thread_stack() < 0)
		log_warning("enforcer: no alternate signal stack; a stack overflow here would not demote");
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&d->stop)) {
		int64_t n = ts_ns(&next) + step;

		next.tv_sec = n / 1000000000LL;
		next.tv_nsec = n % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		/* the cost counted is CPU time: preemption is not isod's cost */
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		pthread_mutex_lock(&d->lock);
		/* the step's time is taken once the lock is held, right before
		 * the reads: a wait for the lock must not make the CPU time read
		 * look like more than the interval allowed */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		isod_enforce_step(d, ts_ns(&t0));
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		d->samples++;
		atomic_store(&d->last_step_ns, ts_ns(&t0));
		d->sample_ns_total += (uint64_t)(ts_ns(&c1) - ts_ns(&c0));
		pthread_mutex_unlock(&d->lock);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* after a long stall (suspend, SIGSTOP) resume from now rather
		 * than replaying missed steps */
		if (ts_ns(&t1) - ts_ns(&next) > 10 * step)
			next = t1;
	}
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
