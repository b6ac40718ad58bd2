/* schedule.c — when the enforcer looks next (iso_plan.h): it sleeps until
 * the earliest moment a decision can change, and whatever changes the
 * plan's inputs (a grant, a release, an exit, a retune) wakes it to plan
 * again. With no ISO thread it does not wake at all. */
#include "schedule.h"

#include <time.h>

#include "iso_plan.h"

int isod_schedule_init(struct isod *d)
{
	pthread_condattr_t ca;
	int r;

	pthread_condattr_init(&ca);
	/* the plan is in CLOCK_MONOTONIC, as the engine's steps */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	r = -pthread_cond_init(&d->wake, &ca);
	pthread_condattr_destroy(&ca);
	atomic_store(&d->due_ns, ISO_PLAN_NEVER);
	return r;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void isod_replan(struct isod *d)
{
	int64_t now = mono_ns();

	d->replan = true;
	/* the enforcer is due now: if it cannot run (starved), the watchdog
	 * counts from here */
	if (atomic_load(&d->due_ns) > now)
		atomic_store(&d->due_ns, now);
	pthread_cond_signal(&d->wake);
}

int64_t isod_plan(const struct isod *d, int64_t now_ns)
{
	int64_t burst_ns = (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_plan p;

	iso_plan_begin(&p);
	for (size_t i = 0; i < d->tasks.end; i++) {
		const struct tracked *e = &d->tasks.t[i];

		if (!e->used)
			continue;
		iso_plan_task(&p, &d->engine, &e->core);
		iso_plan_guard(&p, &e->burst, burst_ns);
	}
	p.percpu = &d->percpu;
	return iso_plan_end(&p, &d->engine, &d->share, now_ns,
			    (int64_t)d->cfg.sample_ms * 1000000);
}
