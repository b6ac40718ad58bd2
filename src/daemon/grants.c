/* grants.c — granting, policing and withdrawing ISO: the glue between the
 * task table, the pure engine and the actuator. */
#include "isod.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "backend.h"
#include "iso_band.h"
#include "iso_plan.h"
#include "iso_policy.h"
#include "log.h"
#include "procinfo.h"
#include "statefile.h"

int isod_init(struct isod *d, const struct isod_config *cfg)
{
	pthread_mutexattr_t ma;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct iso_share_user *users;
	int r;

	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	d->proc = "/proc";
	r = iso_engine_init(&d->engine, &cfg->tun, ncpus > 0 ? (unsigned)ncpus : 1);
	if (r == 0)
		r = iso_engine_set_stall(&d->engine, cfg->stall_ms);
	if (r < 0)
		return r;
	r = tasks_init(&d->tasks, cfg->max_threads);
	if (r < 0)
		return r;
	/* one uid per thread at most: the share table can never be short */
	users = calloc(cfg->max_threads, sizeof(*users));
	if (!users || iso_share_init(&d->share, users, cfg->max_threads, cfg->user_cpu) < 0) {
		free(users);
		tasks_free(&d->tasks);
		return -ENOMEM;
	}
	/* one line per thread at most 60 bytes, plus the header */
	d->state_cap = ((size_t)cfg->max_threads + 2) * 64;
	d->state_buf = malloc(d->state_cap);
	if (!d->state_buf) {
		tasks_free(&d->tasks);
		free(d->share.users);
		return -ENOMEM;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	r = -pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	if (r == 0)
		r = isod_schedule_init(d);
	return r;
}

void isod_destroy(struct isod *d)
{
	tasks_free(&d->tasks);
	free(d->share.users);
	free(d->state_buf);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->lock);
}

void isod_reconfigure(struct isod *d, const struct isod_config *n)
{
	struct isod_config *c = &d->cfg;

	if (n->band.lo != c->band.lo || n->band.hi != c->band.hi ||
	    n->sample_ms != c->sample_ms || n->enforcer_prio != c->enforcer_prio ||
	    strcmp(n->socket_path, c->socket_path) || strcmp(n->state_path, c->state_path) ||
	    n->max_threads != c->max_threads)
		log_warning("band, sample_ms, enforcer_prio, max_threads, socket and state_file take effect only after a restart");
	iso_engine_retune(&d->engine, &n->tun);
	c->tun = n->tun;
	iso_engine_set_stall(&d->engine, n->stall_ms);
	c->stall_ms = n->stall_ms;
	c->burst_ms = n->burst_ms; /* the guard follows at the next check */
	iso_share_retune(&d->share, n->user_cpu);
	c->user_cpu = n->user_cpu;
	isod_replan(d); /* the limits changed: so may the next check */
	c->inherit = n->inherit;
	c->sweep_orphans = n->sweep_orphans;
	c->audit_interval = n->audit_interval;
	c->max_threads_per_user = n->max_threads_per_user;
	c->max_limit = n->max_limit;
	c->rate_limit = n->rate_limit;
	c->rate_burst = n->rate_burst;
	memcpy(c->allow_users, n->allow_users, sizeof(c->allow_users));
	c->n_allow_users = n->n_allow_users;
	memcpy(c->allow_groups, n->allow_groups, sizeof(c->allow_groups));
	c->n_allow_groups = n->n_allow_groups;
	c->log_level = n->log_level;
	log_setup(c->log_level, c->use_syslog);
	log_info("configuration reloaded: iso_cpu %u%% over %us, user_cpu %u%%, inherit %s, %u threads per user",
		 c->tun.iso_cpu, c->tun.iso_period_s, c->user_cpu, c->inherit ? "yes" : "no",
		 c->max_threads_per_user);
}

/* Put the kernel in line with the engine's decision for e, checking the
 * thread's identity before and after, as rtkit does. On scx_iso the
 * scheduler keeps the budget per CPU (DESIGN.md: "per CPU where the
 * accounting backend can measure it"), so the engine's global decision is
 * not applied; it takes over again should scx_iso go (backend_switch). */
static int apply(struct isod *d, struct tracked *e)
{
	int r;

	(void)d;
	if (!tasks_alive(e))
		return -ESRCH;
	if (e->core.demoted && !backend_scx_active())
		r = actuator_demote(e->tid);
	else
		r = actuator_grant(e->tid, e->policy == ISO_POLICY_ISO_FIFO, e->kprio,
				   e->prio, e->core.limit);
	if (r == 0 && !tasks_alive(e))
		r = -ESRCH;
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

int isod_grant(struct isod *d, const struct grant *g, struct tracked **out)
{
	struct tracked *e = tasks_find(&d->tasks, g->tid), n;
	int kprio = iso_band_map(&d->cfg.band, g->prio), r;

	if (kprio < 0)
		return kprio;
	if (!e) {
		if (tasks_count_uid(&d->tasks, g->uid) >= d->cfg.max_threads_per_user ||
		    d->tasks.used >= d->tasks.cap)
			return -EAGAIN;
		memset(&n, 0, sizeof(n));
		r = tasks_open(d->proc, g->pid, g->tid, &n);
		if (r < 0)
			return r;
		r = isod_confirm(d, &n, g->by, g->starttime);
		if (r < 0) {
			close(n.statfd);
			return r;
		}
		n.uid = g->uid;
		iso_task_init(&n.core, 0);
		iso_burst_init(&n.burst);
		e = tasks_insert(&d->tasks, &n);
		if (!e)
			return -EAGAIN; /* cannot happen: capacity checked */
		/* its CPU time from now on counts, not what it used before */
		if (tasks_sample(e) == 0)
			iso_engine_account(&d->engine, &e->core, e->cpu_ns);
	} else {
		r = isod_confirm(d, e, g->by, g->starttime);
		if (r < 0)
			return r;
	}
	e->policy = g->policy;
	e->prio = g->prio;
	e->kprio = kprio;
	e->flags = g->flags;
	e->core.limit = g->limit;
	/* a newcomer joins the refractory state if the budget is spent, or
	 * its user's demotion if that user is over its share */
	iso_share_decide(&d->engine, &d->share, e->uid, &e->core);
	r = apply(d, e);
	if (r < 0) {
		log_debug_errno(r, "grant to thread %d failed", (int)g->tid);
		tasks_remove(&d->tasks, e);
		return r;
	}
	log_info("thread %d (pid %d, uid %u): %s priority %d (kernel %d)%s",
		 (int)e->tid, (int)e->pid, (unsigned)e->uid,
		 iso_policy_name(e->policy), e->prio, e->kprio,
		 e->core.demoted ? ", demoted while over budget" : "");
	/* The server writes the state file before it sends the reply (group
	 * commit, server.c): a daemon killed once the client has heard of the
	 * grant still finds this thread when it restarts. */
	atomic_store(&d->state_dirty, true);
	isod_replan(d); /* one more thread that can use the budget */
	if (out)
		*out = e;
	return 0;
}

int isod_recorded(struct isod *d, bool ok)
{
	int n = 0;

	for (size_t i = 0; i < d->tasks.end; i++) {
		struct tracked *e = &d->tasks.t[i];

		if (!e->used || e->recorded)
			continue;
		if (ok) {
			e->recorded = true;
			continue;
		}
		log_error("thread %d: grant undone, it could not be recorded", (int)e->tid);
		if (tasks_alive(e))
			(void)actuator_demote(e->tid);
		isod_forget(d, e);
		n++;
	}
	return n;
}

int isod_release(struct isod *d, pid_t tid)
{
	struct tracked *e = tasks_find(&d->tasks, tid);
	int r = 0;

	if (!e)
		return 0;
	if (tasks_alive(e))
		r = actuator_demote(tid);
	log_info("thread %d leaves ISO", (int)tid);
	isod_forget(d, e);
	atomic_store(&d->state_dirty, true);
	return r == -ESRCH ? 0 : r;
}

/* scx_iso came or went (backend.h): put every tracked thread on the
 * backend now in use, so none is lost to a scheduler that was unloaded. */
static void backend_switch(struct isod *d)
{
	bool scx = backend_scx_active();
	unsigned moved = 0;

	for (size_t i = 0; i < d->tasks.end; i++) {
		struct tracked *e = &d->tasks.t[i];
		int r;

		if (!e->used)
			continue;
		r = apply(d, e);
		if (r == -ESRCH) {
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
		} else if (r < 0) {
			log_warning_errno(r, "cannot move thread %d", (int)e->tid);
		} else {
			moved++;
		}
	}
	if (scx)
		log_info("scx_iso loaded: %u ISO threads now scheduled by it", moved);
	else
		log_warning("scx_iso gone: %u ISO threads back on kernel SCHED_FIFO/RR in the band",
			    moved);
}

/* Feed the burst guard one read of e (iso_burst.h) and hold e through
 * the engine while the guard says so. */
static void guard_feed(struct isod *d, struct tracked *e, int64_t now_ns)
{
	int64_t burst_ns = (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_burst_sample s = { now_ns, e->cpu_ns, e->wait_ns };
	uint64_t nv = 0;
	bool have_nv = false;
	int c;

	if (iso_burst_wants_nv(&e->burst, burst_ns, &s))
		have_nv = tasks_read_nvcsw(d->proc, e, &nv) == 0;
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
	/* A thread could start spinning just after a read: the schedule
	 * (iso_plan_guard) reads every thread at least every burst_ms/4
	 * while the guard is on, so a spinner is demoted within
	 * 1.25·burst_ms and two checks. */
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

void isod_enforce_step(struct isod *d, int64_t now_ns)
{
	struct tracked *t = d->tasks.t;
	bool was = iso_engine_refractory(&d->engine);
	bool was_stalled = iso_engine_stalled(&d->engine);
	int r;

	if (d->watchdog_fired) {
		d->watchdog_fired = false;
		log_info("the enforcer runs again");
	}
	if (backend_poll(now_ns))
		backend_switch(d);
	backend_scx_tune(d->engine.tun.iso_cpu, d->engine.tun.iso_period_s);

	iso_engine_begin(&d->engine);
	if (iso_share_on(&d->share))
		iso_share_begin(&d->share);
	for (size_t i = 0; i < d->tasks.end; i++) {
		/* every thread at every check: a check comes only when a
		 * decision can change, and then the whole budget counts */
		if (!t[i].used)
			continue;
		r = tasks_sample(&t[i]);
		if (r < 0) {
			/* gone — or unreadable, and what cannot be measured
			 * cannot be policed: fail safe, demote and forget it */
			if (r != -ESRCH && tasks_alive(&t[i])) {
				log_error_errno(r, "cannot sample thread %d; demoting it", (int)t[i].tid);
				(void)actuator_demote(t[i].tid);
			} else {
				log_debug("thread %d exited", (int)t[i].tid);
			}
			isod_forget(d, &t[i]);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		/* before the engine moves the baseline (iso_share.h) */
		if (iso_share_on(&d->share))
			(void)iso_share_account(&d->share, t[i].uid,
						iso_task_iso_delta(&t[i].core, t[i].cpu_ns));
		iso_engine_account(&d->engine, &t[i].core, t[i].cpu_ns);
		guard_feed(d, &t[i], now_ns);
	}
	iso_engine_commit(&d->engine, now_ns);
	share_commit(d, now_ns);
	for (size_t i = 0; i < d->tasks.end; i++) {
		if (!t[i].used ||
		    !iso_share_decide(&d->engine, &d->share, t[i].uid, &t[i].core))
			continue;
		r = apply(d, &t[i]);
		if (r == -ESRCH) {
			isod_forget(d, &t[i]);
			atomic_store(&d->state_dirty, true);
		} else if (r < 0) {
			log_warning_errno(r, "cannot %s thread %d; trying again next sample",
					  t[i].core.demoted ? "demote" : "restore",
					  (int)t[i].tid);
			/* the kernel did not follow: decide the same again */
			t[i].core.demoted = !t[i].core.demoted;
		}
	}
	if (was_stalled != iso_engine_stalled(&d->engine))
		log_info("stall cap: %s", was_stalled
			 ? "ISO restored"
			 : "ISO used more than iso_cpu of the machine for stall_ms, ISO threads demoted to SCHED_OTHER");
	if (was != iso_engine_refractory(&d->engine))
		log_info("ISO CPU use %.1f %%: %s", iso_engine_usage(&d->engine),
			 was ? "below 90 % of iso_cpu, ISO restored"
			     : "above iso_cpu, ISO threads demoted to SCHED_OTHER");
}

void isod_demote_all(struct isod *d)
{
	for (size_t i = 0; i < d->tasks.end; i++) {
		struct tracked *e = &d->tasks.t[i];
		if (!e->used)
			continue;
		if (tasks_alive(e))
			(void)actuator_demote(e->tid);
		isod_forget(d, e);
	}
	atomic_store(&d->state_dirty, true);
}

void isod_forget(struct isod *d, struct tracked *e)
{
	pid_t pid = e->pid;
	bool gone = !tasks_alive(e);

	tasks_remove(&d->tasks, e);
	isod_replan(d); /* perhaps the last one: then no check at all */
	if (!gone)
		return;
	for (unsigned i = 0; i < d->n_lost; i++)
		if (d->lost_pids[i] == pid)
			return;
	if (d->n_lost < sizeof(d->lost_pids) / sizeof(d->lost_pids[0]))
		d->lost_pids[d->n_lost++] = pid;
	else
		d->lost_overflow = true;
}

int isod_verify(struct isod *d)
{
	int n = 0;

	if (backend_scx_active())
		return 0; /* scx_iso's threads are SCHED_EXT, its own business */
	for (size_t i = 0; i < d->tasks.end; i++) {
		struct tracked *e = &d->tasks.t[i];
		int pol, prio, nice, want_pol, want_prio, r;

		if (!e->used || actuator_query(e->tid, &pol, &prio, &nice) < 0)
			continue;
		want_pol = e->core.demoted ? SCHED_OTHER
			   : e->policy == ISO_POLICY_ISO_FIFO ? SCHED_FIFO : SCHED_RR;
		want_prio = e->core.demoted ? 0 : e->kprio;
		if ((pol == want_pol && prio == want_prio) ||
		    (e->core.demoted && pol != SCHED_FIFO && pol != SCHED_RR))
			continue;
		r = apply(d, e);
		if (r == -ESRCH) {
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		log_info("thread %d (pid %d, uid %u) was changed to kernel policy %d priority %d by its owner: isod's %s %s",
			 (int)e->tid, (int)e->pid, (unsigned)e->uid, pol, prio,
			 e->core.demoted ? "demotion" : "grant", r < 0 ? "could not be put back" : "put back");
		n++;
	}
	return n;
}

void isod_watchdog(struct isod *d, int64_t now_ns)
{
	/* late for the check it planned: it sleeps until a decision can
	 * change, so only lateness tells a starved enforcer; a grant or an
	 * exit makes it due at once (isod_replan) */
	int64_t due = atomic_load(&d->due_ns);
	int64_t limit = 50 * (int64_t)d->cfg.sample_ms * 1000000;
	int n = 0;

	if (limit < 500000000)
		limit = 500000000;
	if (due == ISO_PLAN_NEVER || now_ns - due < limit ||
	    pthread_mutex_trylock(&d->lock) != 0)
		return;
	if (!d->watchdog_fired && atomic_load(&d->due_ns) == due) {
		d->watchdog_fired = true;
		for (size_t i = 0; i < d->tasks.end; i++) {
			struct tracked *e = &d->tasks.t[i];

			if (!e->used || e->core.demoted)
				continue;
			/* the engine sees it demoted, and restores it in the
			 * enforcer's first step while the budget allows. A
			 * thread whose handle fails is gone: its TID may be
			 * someone else's now; the enforcer forgets it */
			e->core.demoted = true;
			if (tasks_alive(e) && actuator_demote(e->tid) == 0)
				n++;
		}
		log_warning("the enforcer has not run for %lld ms past its planned check (starved by real-time tasks above priority %d?): %d ISO thread(s) demoted until it runs again",
			    (long long)((now_ns - due) / 1000000), config_enforcer_prio(&d->cfg), n);
	}
	pthread_mutex_unlock(&d->lock);
}

void isod_thread_info(const struct isod *d, const struct tracked *e,
		      struct iso_thread_info *o)
{
	int pol = -1, prio = 0, nice = 0;
	bool demoted = e->core.demoted;

	(void)d;
	memset(o, 0, sizeof(*o));
	o->tid = e->tid;
	o->pid = e->pid;
	o->uid = e->uid;
	o->policy = e->policy;
	o->prio = e->prio;
	o->limit = (int32_t)e->core.limit;
	o->cpu_ns = e->cpu_ns;
	(void)actuator_query(e->tid, &pol, &prio, &nice);
	/* on scx_iso demotion is the scheduler's, per CPU: SCHED_EXT means ISO */
	if (backend_scx_active())
		demoted = pol != 7;
	o->flags = e->flags | (demoted ? ISO_THREAD_DEMOTED : 0);
	o->kernel_policy = pol;
	o->kernel_prio = prio;
	o->user_prio = demoted ? iso_user_prio(ISO_POLICY_NORMAL, 0, nice)
				       : iso_user_prio(e->policy, e->prio, nice);
}

void isod_status_info(const struct isod *d, struct iso_status_info *o)
{
	memset(o, 0, sizeof(*o));
	o->iso_cpu = d->engine.tun.iso_cpu;
	o->iso_period_s = d->engine.tun.iso_period_s;
	o->band_lo = d->cfg.band.lo;
	o->band_hi = d->cfg.band.hi;
	o->usage_milli = (uint32_t)(iso_engine_usage(&d->engine) * 1000.0);
	/* the stall cap demotes every ISO thread as the budget does */
	o->refractory = iso_engine_refractory(&d->engine) || iso_engine_stalled(&d->engine);
	o->ncpus = d->engine.ncpus;
	o->sample_us = d->cfg.sample_ms * 1000;
	o->total = (uint32_t)d->tasks.used;
}
