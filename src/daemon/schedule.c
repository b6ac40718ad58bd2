/* schedule.c — when the enforcer looks next (iso_plan.h): it sleeps until
 * the earliest moment a decision can change, and whatever changes the
 * plan's inputs (a grant, a release, an exit, a retune, and with BPF
 * accounting the kernel's report that a sleeping ISO thread runs) wakes
 * it to plan again. With no ISO thread it does not wake at all. */
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
	/* at once, never held until the server's reply is out: the server
	 * runs SCHED_OTHER, and the threads just granted can starve it
	 * before it sends it (a held wake then waited for the watchdog) */
	pthread_cond_signal(&d->wake);
}

/* The longest a quiet plan sleeps (iso_plan.h: quiet). The kernel's
 * wake comes through a thread at the enforcer's priority, and the
 * server's once-a-second look replans should one not arrive
 * (accounting_wake_overdue): this is only a last bound. */
#define QUIET_LOOK_NS 10000000000LL

/* The moment every thread had been read by (iso_plan_guard): the last
 * check; and if the kernel woke isod from a quiet plan since, no thread
 * ran between the two (acct_look_quiet armed it only then), and any that
 * had been on a CPU at the check has blocked: none can have run without
 * blocking for longer than since the wake. Taken before quiet() arms or
 * disarms again. */
static int64_t checked_ns(const struct isod *d, int64_t now_ns)
{
	int64_t checked = d->engine.budget.started ? d->engine.budget.last_ns : now_ns;
	int64_t woke = accounting_woken_ns(d->acct);

	if (woke != INT64_MAX && woke > checked && woke <= now_ns)
		checked = woke;
	return checked;
}

/* nothing runs, and the kernel says when something does (accounting.h) */
static bool plan_quiet(const struct isod *d)
{
	return d->tasks.used && d->acct->quiet && d->acct->quiet(d->acct);
}

static void plan_thread(const struct isod *d, struct iso_plan *p, const struct tracked *e,
			int64_t checked)
{
	iso_plan_task(p, &d->engine, &e->core);
	iso_plan_guard(p, &e->burst, (int64_t)d->cfg.burst_ms * 1000000, checked);
}

/* From the threads' part of a plan to the time of the check. */
static int64_t plan_finish(const struct isod *d, struct iso_plan *p, int64_t now_ns)
{
	int64_t at, base;

	p->percpu = &d->percpu;
	at = iso_plan_end(p, &d->engine, &d->share, now_ns, (int64_t)d->cfg.sample_ms * 1000000);
	/* a last bound on a quiet plan (QUIET_LOOK_NS), from the last
	 * check, so that re-plans cannot push it on */
	base = d->engine.budget.started ? d->engine.budget.last_ns : now_ns;
	if (p->quiet && at - base > QUIET_LOOK_NS)
		at = base + QUIET_LOOK_NS;
	/* scx_iso came, went or restarted with new maps (the server's look,
	 * backend.h): the check that moves every thread is due now */
	if (d->backend_look)
		at = now_ns;
	return at;
}

int64_t isod_plan(struct isod *d, int64_t now_ns)
{
	int64_t checked = checked_ns(d, now_ns);
	struct iso_plan p;

	iso_plan_begin(&p);
	p.quiet = plan_quiet(d);
	for (size_t i = 0; i < d->tasks.end; i++)
		if (d->tasks.t[i].used)
			plan_thread(d, &p, &d->tasks.t[i], checked);
	/* kept for a grant's plan (isod_replan_if_sooner) */
	d->plan_threads = p;
	d->plan_threads_ok = true;
	return plan_finish(d, &p, now_ns);
}

/* A new thread's grant, from the request path: its plan is the
 * enforcer's last one's threads' part with this thread added (O(1), no
 * scan of the table), and the enforcer is woken only if a decision can
 * now change before the check it sleeps to (d->due_ns). Otherwise its
 * plan still holds — nothing can change before the later time planned
 * here — and at that check it plans again, with this thread. A wake
 * costs the request a hand-off of d->lock (the enforcer's re-plan while
 * the server waits to record the grant): ~10 us of its p50 on the 2-CPU
 * VM.
 * The kept part is never later than the threads' own now: since it was
 * made, threads only left (fewer terms, fewer running: no sooner) or
 * came through here (added to it); everything else that changes a
 * thread's terms (a check, a limit, a retune, the kernel's wake) plans
 * again with the enforcer (isod_replan), and a thread kept with an
 * earlier checked time has no later guard. A quiet look that answers
 * otherwise than the kept part's is planned by the enforcer; the look's
 * side effect (arming or disarming the kernel's wake) is the one its
 * plan would have had. */
void isod_replan_if_sooner(struct isod *d, const struct tracked *e)
{
	int64_t now, checked;
	struct iso_plan p;

	if (d->replan)
		return; /* a plan is due already, with d->lock: it sees e */
	now = mono_ns();
	checked = checked_ns(d, now);
	if (!d->plan_threads_ok || plan_quiet(d) != d->plan_threads.quiet) {
		isod_replan(d);
		return;
	}
	p = d->plan_threads;
	plan_thread(d, &p, e, checked);
	d->plan_threads = p;
	if (plan_finish(d, &p, now) < atomic_load(&d->due_ns))
		isod_replan(d);
}
