/* grants.c — granting and withdrawing ISO, and keeping the scheduler
 * where isod put each thread: the glue between the task table, the pure
 * engine's decisions and the backend (through the actuator). */
#include "grants.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "actuator.h"
#include "charge.h"
#include "iso_band.h"
#include "iso_policy.h"
#include "proc_conn.h"
#include "leave.h"
#include "log.h"
#include "schedule.h"
#include "procinfo.h"
#include "reserve.h"

static struct backend_grant grant_of(const struct tracked *e)
{
	return (struct backend_grant){
		.fifo = e->policy == ISO_POLICY_ISO_FIFO, .kprio = e->kprio,
		.prio = e->prio, .limit = e->core.limit,
		.dl_runtime = e->dl.runtime_ns, .dl_deadline = e->dl.deadline_ns,
		.dl_period = e->dl.period_ns,
	};
}

/* What e's scheduler should have now, on backend b: the engine's decision,
 * except that a backend keeping the budget itself is told only the burst
 * guard's (held): scx_iso's budget is per CPU and its own, but a spinner
 * that never blocks must not hold a CPU until that budget runs out. */
enum applied grants_wanted(const struct backend *b, const struct tracked *e)
{
	bool out = b->owns_budget ? e->core.held : e->core.demoted;

	return out ? APPLIED_OTHER : APPLIED_ISO;
}

/* Put the scheduler in line with the engine's decision for e, checking
 * the thread's identity before and after, as rtkit does, and note what was
 * applied. The engine takes over again should a backend that kept the
 * budget go (backend_switch). */
int grants_apply(struct isod *d, struct tracked *e)
{
	const struct backend *b = backend_current();
	enum applied want = grants_wanted(b, e);
	int r;

	(void)d;
	if (!tasks_alive(e))
		return -ESRCH;
	if (want == APPLIED_OTHER) {
		r = actuator_demote(b, e->tid);
	} else {
		struct backend_grant g = grant_of(e);

		r = g.dl_runtime ? reserve_grant(d, e, b, &g) : actuator_grant(b, e->tid, &g);
	}
	if (r == 0 && !tasks_alive(e))
		r = -ESRCH;
	if (r == 0)
		e->applied = want;
	return r;
}

int isod_confirm(struct isod *d, const struct tracked *e, uid_t by, uint64_t starttime)
{
	struct thread_status st;
	int r;

	if (starttime && e->starttime != starttime)
		return -ESRCH;
	r = read_thread_status(d->proc, e->tid, &st);
	if (r < 0)
		return r;
	if (st.tgid != e->pid)
		return -ESRCH;
	if (by != 0 && st.ruid != by && st.euid != by)
		return -EPERM;
	/* the handle still works: what we read was the pinned thread's, not
	 * a successor's under a reused TID */
	return tasks_alive(e) ? 0 : -ESRCH;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* isod_grant's steps (grants.h), in the order it runs them. */

int grant_check(struct isod *d, const struct grant *g, struct tracked *e)
{
	int kprio = iso_band_map(&d->cfg.band, g->prio), r;

	if (kprio < 0 || !e)
		return kprio;
	r = isod_confirm(d, e, g->by, g->starttime);
	if (r == 0)
		r = iso_task_set_limit(&e->core, g->limit);
	return r < 0 ? r : kprio;
}

int grant_admit(struct isod *d, const struct grant *g, uid_t *charged)
{
	/* the person it counts for (charge.h), read through the thread
	 * being granted */
	(void)read_charged_uid(d->proc, g->tid, g->uid, charged);
	if (tasks_count_uid(&d->tasks, *charged) >= d->cfg.max_threads_per_user ||
	    d->tasks.used >= d->tasks.cap)
		return -EAGAIN;
	return 0;
}

/* The new thread pinned into n (its handle open) and confirmed: taken
 * from g->pin when the caller pinned it, else opened here. */
static int grant_pin(struct isod *d, const struct grant *g, struct tracked *n)
{
	int r;

	if (g->pin && g->pin->statfd >= 0 && g->pin->tid == g->tid && g->pin->pid == g->pid) {
		/* what the caller read after pinning it is the pinned
		 * thread's if the handle works now (tasks_open) */
		*n = *g->pin;
		g->pin->statfd = -1;
		r = tasks_alive(n) && (!g->starttime || n->starttime == g->starttime) ? 0 : -ESRCH;
	} else {
		memset(n, 0, sizeof(*n));
		r = tasks_open(d->proc, g->pid, g->tid, n);
		if (r < 0)
			return r;
		r = isod_confirm(d, n, g->by, g->starttime);
	}
	if (r < 0)
		close(n->statfd);
	return r;
}

int grant_join(struct isod *d, const struct grant *g, uid_t charged, struct tracked **out)
{
	struct tracked n, *e;
	int r = grant_pin(d, g, &n);

	if (r < 0)
		return r;
	n.uid = g->uid;
	n.charged = charged;
	r = iso_task_init(&n.core, g->limit);
	if (r < 0) {
		close(n.statfd);
		return r;
	}
	iso_burst_init(&n.burst);
	e = tasks_insert(&d->tasks, &n);
	if (!e)
		return -EAGAIN; /* cannot happen: capacity checked */
	/* counted (and no stray) before grants_apply puts it in the band */
	d->acct->track(d->acct, e);
	/* follow forks and execs again (if not already), before the kernel
	 * makes it RT: an exec before that is not an escape */
	forkwatch_follow(d, true);
	/* its CPU time from now on counts, not what it used before */
	if (d->acct->sample(d->acct, e, 0) == 0) {
		iso_engine_account(&d->engine, &e->core, e->cpu_ns);
		/* and the burst guard's first read: its next look is
		 * burst_ms/4 away (iso_plan_guard), so a grant does not make
		 * the enforcer read every thread at once. The guard goes on
		 * from what this thread, or another of its user, left lately:
		 * asking again resets nothing */
		isod_guard_resume(d, e, mono_ns());
	}
	*out = e;
	return 0;
}

int grant_apply(struct isod *d, const struct grant *g, struct tracked *e, int kprio, bool fresh)
{
	int r;

	/* admit or give back a reservation (reserve.h); refused, a tracked
	 * thread keeps what it had */
	r = reserve_take(d, e, g->dl, g->dl_left);
	if (r < 0) {
		if (fresh) {
			d->acct->untrack(d->acct, e);
			tasks_remove(&d->tasks, e);
		}
		return r;
	}
	e->policy = g->policy;
	e->prio = g->prio;
	e->kprio = kprio;
	e->flags = g->flags;
	/* a newcomer joins the refractory state if the budget is spent, or
	 * its user's demotion if that user is over its share */
	iso_share_decide(&d->engine, &d->share, e->charged, &e->core);
	r = grants_apply(d, e);
	if (r < 0) {
		log_debug_errno(r, "grant to thread %d failed", (int)g->tid);
		reserve_drop(d, e);
		d->acct->untrack(d->acct, e);
		tasks_remove(&d->tasks, e);
		return r;
	}
	/* A new thread's baseline again, now that it is in the band: the
	 * kernel brought its run time up to date when it changed its class
	 * (a running thread's /proc figure lags up to a tick until then, and
	 * that lag was counted as ISO time: demotions came ~5 ms before the
	 * exact average crossed), and what it ran before the change was not
	 * ISO. */
	if (fresh && d->acct->sample(d->acct, e, 0) == 0)
		iso_task_rebase(&e->core, e->cpu_ns, mono_ns());
	return 0;
}

void grant_record(struct isod *d, const struct tracked *e)
{
	events_add(&d->events, ISO_EVENT_GRANT, e->tid, e->pid, e->uid, e->prio);
	/* The server appends this record to the state file before it sends
	 * the reply (group commit, server.c): a daemon killed once the client
	 * has heard of the grant still finds this thread when it restarts. */
	statefile_note_grant(d, e);
}

void grant_announce(struct isod *d, struct tracked *e, bool fresh)
{
	log_info("thread %d (pid %d, uid %u): %s priority %d (kernel %d)%s",
		 (int)e->tid, (int)e->pid, (unsigned)e->uid,
		 iso_policy_name(e->policy), e->prio, e->kprio,
		 e->core.held	   ? ", held by the burst guard"
		 : e->core.demoted ? ", demoted while over budget"
				   : "");
	/* one more thread that can use the budget; a tracked one's limit
	 * may be lower now: the enforcer plans it all again */
	if (fresh)
		isod_replan_if_sooner(d, e);
	else
		isod_replan(d);
}

int isod_grant(struct isod *d, const struct grant *g, struct tracked **out)
{
	struct tracked *e = tasks_find(&d->tasks, g->tid);
	bool fresh = !e;
	uid_t charged;
	int kprio, r;

	r = kprio = grant_check(d, g, e);
	if (r >= 0 && fresh)
		r = grant_admit(d, g, &charged);
	if (r >= 0 && fresh)
		r = grant_join(d, g, charged, &e);
	if (r >= 0)
		r = grant_apply(d, g, e, kprio, fresh);
	if (r < 0)
		return r;
	grant_record(d, e);
	grant_announce(d, e, fresh);
	if (out)
		*out = e;
	return 0;
}

/* e's grant is in the state file (ok), or could not be written: undone.
 * 1 when undone. */
static int settle_record(struct isod *d, struct tracked *e, bool ok)
{
	if (ok) {
		e->recorded = true;
		return 0;
	}
	log_error("thread %d: grant undone, it could not be recorded", (int)e->tid);
	if (tasks_alive(e))
		(void)actuator_demote(backend_current(), e->tid);
	isod_forget(d, e);
	return 1;
}

int isod_recorded(struct isod *d, bool ok)
{
	int n = 0;

	TASKS_FOREACH(&d->tasks, e) {
		if (e->recorded)
			continue;
		n += settle_record(d, e, ok);
	}
	return n;
}

int isod_recorded_keys(struct isod *d, const struct state_key *keys, unsigned n, bool ok)
{
	int undone = 0;

	for (unsigned i = 0; i < n; i++) {
		struct tracked *e = tasks_find(&d->tasks, keys[i].tid);

		/* gone since, or another grant of the same tid: nothing to do */
		if (!e || e->recorded || e->starttime != keys[i].starttime)
			continue;
		undone += settle_record(d, e, ok);
	}
	return undone;
}

void isod_commit_end(struct isod *d, enum state_commit how, bool ok)
{
	const struct state_batch *w = &d->state.writing;

	if (how == STATE_REWRITE)
		(void)isod_recorded(d, ok);
	else
		(void)isod_recorded_keys(d, w->grants, w->ngrants, ok);
	statefile_end(d);
}

int isod_release(struct isod *d, pid_t tid)
{
	struct tracked *e = tasks_find(&d->tasks, tid);
	int r = 0;

	if (!e)
		return 0;
	if (tasks_alive(e))
		r = actuator_demote(backend_current(), tid);
	log_info("thread %d leaves ISO", (int)tid);
	isod_forget(d, e);
	atomic_store(&d->state_dirty, true);
	return r == -ESRCH ? 0 : r;
}

void isod_demote_all(struct isod *d)
{
	TASKS_FOREACH(&d->tasks, e) {
		if (tasks_alive(e))
			(void)actuator_demote(backend_current(), e->tid);
		isod_forget(d, e);
	}
	atomic_store(&d->state_dirty, true);
}

void isod_forget(struct isod *d, struct tracked *e)
{
	pid_t pid = e->pid;
	bool gone = !tasks_alive(e);

	/* every untrack charges: what it ran since its last sample, and the
	 * burst guard's record for its next grant (leave.h) */
	isod_leave(d, e);
	reserve_drop(d, e);
	statefile_note_release(d, e);
	d->acct->untrack(d->acct, e);
	tasks_remove(&d->tasks, e);
	/* no re-plan: with a thread less no decision can change sooner
	 * (iso_plan_end is monotone in the threads: fewer terms, a lower
	 * most-ISO-can-run), so the enforcer's plan holds; at its check it
	 * finds what is left, and with nothing left plans no check at all.
	 * A release thus costs no hand-off of d->lock */
	if (d->tasks.used == 0)
		forkwatch_follow(d, false); /* nothing to adopt or check */
	if (!gone)
		return;
	for (unsigned i = 0; i < d->n_lost; i++)
		if (d->lost_pids[i] == pid)
			return;
	if (d->n_lost < sizeof(d->lost_pids) / sizeof(d->lost_pids[0]))
		d->lost_pids[d->n_lost++] = pid;
	else
		d->lost_overflow = true;
	/* the server may be asleep (nothing tracked): check it now */
	if (d->server_wake >= 0)
		(void)eventfd_write(d->server_wake, 1);
}

int isod_verify(struct isod *d, bool full)
{
	const struct backend *b = backend_current();
	bool seen = !full && b->placed_as && d->acct->seen_policy;
	int n = 0;

	TASKS_FOREACH(&d->tasks, e) {
		struct backend_thread now;
		int r, policy, prio;

		struct backend_grant g = grant_of(e);
		if (e->applied == APPLIED_NONE)
			continue;
		/* what the kernel showed at its last switch, off the CPU
		 * since: no system call per sleeping thread (1024 of them
		 * cost 0.2 % of a CPU a second, issue 13) */
		if (seen && d->acct->seen_policy(d->acct, e, &policy, &prio) == 0 &&
		    b->placed_as(&g, e->applied == APPLIED_OTHER, policy, prio))
			continue;
		if (b->placed(e->tid, &g, e->applied == APPLIED_OTHER, &now))
			continue;
		r = grants_apply(d, e);
		if (r == -ESRCH) {
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		log_info("thread %d (pid %d, uid %u) was changed to kernel policy %d priority %d by its owner: isod's %s %s",
			 (int)e->tid, (int)e->pid, (unsigned)e->uid, now.policy, now.prio,
			 e->applied == APPLIED_OTHER ? "demotion" : "grant",
			 r < 0 ? "could not be put back" : "put back");
		n++;
	}
	return n;
}
