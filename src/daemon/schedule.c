/* schedule.c — when the enforcer looks next (iso_plan.h): it sleeps until
 * the earliest moment a decision can change, and whatever changes the
 * plan's inputs (a grant, a release, an exit, a retune, and with BPF
 * accounting the kernel's report that a sleeping ISO thread runs) wakes
 * it to plan again. With no ISO thread it does not wake at all. */
#include "schedule.h"

#include <time.h>
#include <unistd.h>

#include "accounting_bpf.h"
#include "backend.h"
#include "grants.h"
#include "iso_plan.h"
#include "log.h"

/* The BPF accounting's reports (its waker thread, d->lock not held): a
 * tracked thread ran while isod slept armed (plan again: its look is due),
 * or one exits (forget it now, no /proc read: the kernel said so, for the
 * thread with that start time, so a reused TID is not taken for it). */
static void on_acct_event(void *ctx, const struct acct_event *ev)
{
	static long hz; /* sysconf's, read once (the waker thread only) */
	struct isod *d = ctx;
	struct tracked *e;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	pthread_mutex_lock(&d->lock);
	if (ev->kind == ACCT_EV_EXIT) {
		e = tasks_find(&d->tasks, (pid_t)ev->tid);
		if (e && (size_t)(e - d->tasks.t) == ev->slot &&
		    e->starttime == acct_start_ticks(ev->start_ns, hz)) {
			log_debug("thread %d exited (the kernel's report)", (int)e->tid);
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
		}
	}
	isod_replan(d);
	pthread_mutex_unlock(&d->lock);
}

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
	(void)acct_bpf_bind(d->tasks.t, on_acct_event, d, config_enforcer_prio(&d->cfg));
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
 * (acct_bpf_wake_overdue): this is only a last bound. */
#define QUIET_LOOK_NS 10000000000LL

int64_t isod_plan(const struct isod *d, int64_t now_ns)
{
	int64_t burst_ns = (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_plan p;
	int64_t at, base, checked_ns, woke;

	/* every thread that ran before it was read by it (iso_plan_guard);
	 * and if the kernel woke isod from a quiet plan since, no thread ran
	 * between the two (acct_look_quiet armed it only then), and any that
	 * had been on a CPU at the check has blocked: none can have run
	 * without blocking for longer than since the wake. Taken before
	 * quiet() below arms or disarms again. */
	checked_ns = d->engine.budget.started ? d->engine.budget.last_ns : now_ns;
	woke = acct_bpf_woken_ns();
	if (woke != INT64_MAX && woke > checked_ns && woke <= now_ns)
		checked_ns = woke;
	iso_plan_begin(&p);
	/* nothing runs, and the kernel says when something does
	 * (accounting.h) */
	p.quiet = d->tasks.used && d->acct->quiet && d->acct->quiet();
	for (size_t i = 0; i < d->tasks.end; i++) {
		const struct tracked *e = &d->tasks.t[i];

		if (!e->used)
			continue;
		iso_plan_task(&p, &d->engine, &e->core);
		iso_plan_guard(&p, &e->burst, burst_ns, checked_ns);
	}
	p.percpu = &d->percpu;
	at = iso_plan_end(&p, &d->engine, &d->share, now_ns, (int64_t)d->cfg.sample_ms * 1000000);
	/* a last bound on a quiet plan (QUIET_LOOK_NS), from the last
	 * check, so that re-plans cannot push it on */
	base = d->engine.budget.started ? d->engine.budget.last_ns : now_ns;
	if (p.quiet && at - base > QUIET_LOOK_NS)
		at = base + QUIET_LOOK_NS;
	/* scx_iso came, went or restarted with new maps (the server's look,
	 * backend.h): the check that moves every thread is due now */
	if (d->backend_look)
		at = now_ns;
	return at;
}
