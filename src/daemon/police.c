/* police.c — the enforcer's step: sample every due thread, account it,
 * let the engine (and the per-user shares, the burst guard) decide, then
 * reconcile the scheduler with the decisions; and the watchdog for an
 * enforcer that does not run. */
#include "police.h"

#include <errno.h>
#include <unistd.h>

#include "actuator.h"
#include "grants.h"
#include "leave.h"
#include "iso_plan.h"
#include "log.h"
#include "percpu.h"
#include "schedule.h"

/* scx_iso came or went (backend.h): put every tracked thread on the
 * backend now in use, so none is lost to a scheduler that was unloaded. */
static void backend_switch(struct isod *d)
{
	const struct backend *b = backend_current();
	unsigned moved = 0;

	TASKS_FOREACH(&d->tasks, e) {
		int r;

		/* on the new backend nothing is applied yet: a failure is
		 * retried by the enforcer's reconciliation */
		e->applied = APPLIED_NONE;
		r = grants_apply(d, e);
		if (r == -ESRCH) {
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
		} else if (r < 0) {
			log_warning_errno(r, "cannot move thread %d", (int)e->tid);
		} else {
			moved++;
		}
	}
	if (b->owns_budget)
		log_info("scx_iso loaded: %u ISO threads now scheduled by it", moved);
	else
		log_warning("scx_iso gone: %u ISO threads back on kernel SCHED_FIFO/RR in the band",
			    moved);
}

/* Feed the burst guard one read of e (iso_burst.h) and hold e through
 * the engine while the guard says so. */
static void guard_feed(struct isod *d, struct tracked *e, int64_t now_ns)
{
	/* not for a reservation (reserve.h): the kernel throttles a
	 * DEADLINE thread at its runtime every period, so it cannot hold a
	 * CPU, and one that works to its runtime and then yields or waits
	 * for its throttle never blocks — the guard would make it SCHED_OTHER
	 * for doing what it declared */
	int64_t burst_ns = e->dl.runtime_ns ? 0 : (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_burst_sample s = { .now_ns = now_ns, .cpu_ns = e->cpu_ns, .wait_ns = e->wait_ns,
				      .has_block = e->has_block, .block_cpu_ns = e->block_cpu_ns };
	uint64_t nv = 0;
	bool have_nv = false;
	int c;

	if (e->has_block) {
		/* the count read with the block point (accounting_bpf.c) */
		nv = e->block_nv;
		have_nv = true;
	} else if (iso_burst_wants_nv(&e->burst, burst_ns, &s)) {
		have_nv = d->acct->voluntary_switches(d->acct, d->proc, e, &nv) == 0;
	}
	c = iso_burst_feed(&e->burst, burst_ns, &s, have_nv, nv);
	e->core.held = iso_burst_demoted(&e->burst);
	if (c == ISO_BURST_DEMOTE)
		log_info("thread %d ran %lld ms without blocking: burst guard, SCHED_OTHER until it blocks (or a trial in %lld ms)",
			 (int)e->tid, (long long)(e->burst.allowance_ns / 1000000),
			 (long long)((e->burst.until_ns - now_ns) / 1000000));
	else if (c == ISO_BURST_RESTORE)
		log_info("thread %d: burst guard lifted (%s)", (int)e->tid,
			 burst_ns == 0 ? "guard switched off"
			 : e->burst.phase == ISO_BURST_RUNNING ? "trial after back-off"
							       : "it blocked");
	/* A thread could start spinning just after a read: with /proc the
	 * schedule (iso_plan_guard) reads every thread at least every
	 * burst_ms/4 while the guard is on, so a spinner is demoted within
	 * 1.25·burst_ms and two checks. With BPF the read has the point
	 * where its run began (has_block): it is demoted at the first check
	 * past burst_ms of CPU without blocking, and the schedule plans that
	 * check from the CPU time it has left; with no thread running, its
	 * first switch-in wakes the schedule. */
}

/* The per-user averages (user_cpu), with a line whenever a user goes
 * over its share or comes back under it. */
static void share_commit(struct isod *d, int64_t now_ns)
{
	struct iso_share *s = &d->share;

	if (!iso_share_on(s)) /* off: no cost at all */
		return;
	(void)iso_share_commit(s, &d->engine.tun, now_ns, d->engine.ncpus);
	for (size_t i = 0; i < s->end; i++) {
		const struct iso_share_user *u = &s->users[i];

		if (u->used && u->changed)
			log_info("user %u: ISO CPU use %.1f %%: %s", (unsigned)u->uid, u->usage,
				 u->over ? "above its share (user_cpu), its ISO threads demoted"
					 : "below 90 % of its share, its ISO threads restored");
	}
}

/* e was just demoted or restored: count it and keep the event. */
static void note_change(struct isod *d, struct tracked *e)
{
	if (e->core.demoted)
		e->stats.demotions++;
	events_add(&d->events, e->core.demoted ? ISO_EVENT_DEMOTE : ISO_EVENT_RESTORE, e->tid,
		   e->pid, e->uid, e->core.demoted ? isod_demote_reason(d, e) : 0);
}

void isod_enforce_step(struct isod *d, int64_t now_ns)
{
	struct tracked *t = d->tasks.t;
	const struct backend *b;
	bool was = iso_engine_refractory(&d->engine);
	bool was_stalled = iso_engine_stalled(&d->engine);
	int r;

	if (d->watchdog_fired) {
		d->watchdog_fired = false;
		log_info("the enforcer runs again");
	}
	d->backend_look = false;
	if (backend_poll(now_ns))
		backend_switch(d);
	backend_current()->tune(d->engine.tun.iso_cpu, d->engine.tun.iso_period_s);

	iso_engine_begin(&d->engine);
	if (iso_share_on(&d->share))
		iso_share_begin(&d->share);
	if (d->acct->look_begin)
		d->acct->look_begin(d->acct, (uint64_t)now_ns);
	for (size_t i = 0; i < d->tasks.end; i++) {
		/* every thread at every check: a check comes only when a
		 * decision can change, and then the whole budget counts. A
		 * thread the BPF accounting saw neither run nor exit since its
		 * last read is not read again: its figures stand */
		if (!t[i].used)
			continue;
		r = d->acct->look_needed && !d->acct->look_needed(d->acct, &t[i], i) ? 0
									    : d->acct->sample(d->acct, &t[i], (uint64_t)now_ns);
		if (r < 0) {
			/* gone — or unreadable, and what cannot be measured
			 * cannot be policed: fail safe, demote and forget it */
			if (r != -ESRCH && tasks_alive(&t[i])) {
				log_error_errno(r, "cannot sample thread %d; demoting it", (int)t[i].tid);
				(void)actuator_demote(backend_current(), t[i].tid);
			} else {
				log_debug("thread %d exited", (int)t[i].tid);
			}
			isod_forget(d, &t[i]);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		isod_account(d, &t[i], now_ns, false);
		guard_feed(d, &t[i], now_ns);
	}
	iso_engine_commit(&d->engine, now_ns);
	share_commit(d, now_ns);
	isod_percpu_commit(d, now_ns);
	b = backend_current();
	for (size_t i = 0; i < d->tasks.end; i++) {
		if (!t[i].used)
			continue;
		(void)isod_decide(d, &t[i]);
		/* reconcile: the decision changed, or the kernel did not
		 * follow it last time, or the watchdog demoted meanwhile */
		if (grants_wanted(b, &t[i]) == t[i].applied)
			continue;
		r = grants_apply(d, &t[i]);
		if (r == -ESRCH) {
			isod_forget(d, &t[i]);
			atomic_store(&d->state_dirty, true);
		} else if (r < 0) {
			log_warning_errno(r, "cannot %s thread %d; trying again next sample",
					  t[i].core.demoted ? "demote" : "restore",
					  (int)t[i].tid);
		} else {
			note_change(d, &t[i]);
		}
	}
	if (was_stalled != iso_engine_stalled(&d->engine))
		log_info("stall cap: %s", was_stalled
			 ? "ISO restored"
			 : "ISO used more than iso_cpu of the machine for stall_ms, ISO threads demoted to SCHED_OTHER");
	/* per CPU, the global average decides only for a thread whose CPU
	 * is not known: each CPU says its own line (percpu.c) */
	if (was != iso_engine_refractory(&d->engine) && !d->percpu.on)
		log_info("ISO CPU use %.1f %%: %s", iso_engine_usage(&d->engine),
			 was ? "below 90 % of iso_cpu, ISO restored"
			     : "above iso_cpu, ISO threads demoted to SCHED_OTHER");
}

/* How late the enforcer may be for its planned check before the watchdog
 * takes over: 50 samples, at least half a second. */
static int64_t watchdog_limit_ns(const struct isod *d)
{
	int64_t limit = 50 * (int64_t)d->cfg.sample_ms * 1000000;

	return limit < 500000000 ? 500000000 : limit;
}

/* The enforcer's next check as the watchdog sees it: the one it planned,
 * or a quiet plan's at the kernel's wake (schedule.c). */
static int64_t watchdog_due_ns(const struct isod *d)
{
	int64_t due = atomic_load(&d->due_ns), woke = accounting_woken_ns(d->acct);

	return woke < due ? woke : due;
}

int64_t isod_watchdog_at(const struct isod *d)
{
	int64_t due = watchdog_due_ns(d);

	return due == ISO_PLAN_NEVER ? ISO_PLAN_NEVER : due + watchdog_limit_ns(d);
}

void isod_watchdog(struct isod *d, int64_t now_ns)
{
	/* late for the check it planned: it sleeps until a decision can
	 * change, so only lateness tells a starved enforcer; a grant or an
	 * exit makes it due at once (isod_replan) */
	int64_t due = watchdog_due_ns(d), woke = accounting_woken_ns(d->acct);
	int n = 0;

	if (due == ISO_PLAN_NEVER || now_ns - due < watchdog_limit_ns(d) ||
	    pthread_mutex_trylock(&d->lock) != 0)
		return;
	if (!d->watchdog_fired && (atomic_load(&d->due_ns) == due || woke == due)) {
		d->watchdog_fired = true;
		TASKS_FOREACH(&d->tasks, e) {
			if (e->applied == APPLIED_OTHER)
				continue;
			/* the engine's decision stands: the enforcer's first
			 * step finds the kernel apart from it and restores
			 * the thread while the budget allows. A thread whose
			 * handle fails is gone: its TID may be someone
			 * else's now; the enforcer forgets it */
			if (tasks_alive(e) && actuator_demote(backend_current(), e->tid) == 0) {
				e->applied = APPLIED_OTHER;
				n++;
			}
		}
		log_warning("the enforcer has not run for %lld ms past its planned check (starved by real-time tasks above priority %d?): %d ISO thread(s) demoted until it runs again",
			    (long long)((now_ns - due) / 1000000), config_enforcer_prio(&d->cfg), n);
	}
	pthread_mutex_unlock(&d->lock);
}

/* The BPF accounting's reports (its waker thread, d->lock not held): a
 * tracked thread ran while isod slept armed (plan again: its look is due),
 * or one exits (forget it now, no /proc read: the kernel said so, for the
 * thread with that start time, so a reused TID is not taken for it). */
static void on_kernel_report(void *ctx, const struct acct_event *ev)
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

int isod_police_reports(struct isod *d)
{
	return accounting_bind(d->acct, d->tasks.t, on_kernel_report, d, config_enforcer_prio(&d->cfg));
}
