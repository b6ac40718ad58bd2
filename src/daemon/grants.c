/* grants.c — granting, policing and withdrawing ISO: the glue between the
 * task table, the pure engine and the actuator. */
#include "isod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "backend.h"
#include "iso_band.h"
#include "iso_policy.h"
#include "log.h"
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
	return r;
}

void isod_destroy(struct isod *d)
{
	tasks_free(&d->tasks);
	free(d->share.users);
	free(d->state_buf);
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
	iso_share_retune(&d->share, n->user_cpu);
	c->user_cpu = n->user_cpu;
	c->inherit = n->inherit;
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
		n.uid = g->uid;
		iso_task_init(&n.core, 0);
		e = tasks_insert(&d->tasks, &n);
		if (!e)
			return -EAGAIN; /* cannot happen: capacity checked */
		/* its CPU time from now on counts, not what it used before */
		if (tasks_sample(e) == 0)
			iso_engine_account(&d->engine, &e->core, e->cpu_ns);
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
		tasks_remove(&d->tasks, e);
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
	tasks_remove(&d->tasks, e);
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
			tasks_remove(&d->tasks, e);
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
		if (!t[i].used || !iso_engine_due(&d->engine, &t[i].core))
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
			tasks_remove(&d->tasks, &t[i]);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		/* before the engine moves the baseline (iso_share.h) */
		if (iso_share_on(&d->share))
			(void)iso_share_account(&d->share, t[i].uid,
						iso_task_iso_delta(&t[i].core, t[i].cpu_ns));
		iso_engine_account_read(&d->engine, &t[i].core, t[i].cpu_ns, now_ns);
	}
	iso_engine_commit(&d->engine, now_ns);
	share_commit(d, now_ns);
	for (size_t i = 0; i < d->tasks.end; i++) {
		if (!t[i].used ||
		    !iso_share_decide(&d->engine, &d->share, t[i].uid, &t[i].core))
			continue;
		r = apply(d, &t[i]);
		if (r == -ESRCH) {
			tasks_remove(&d->tasks, &t[i]);
			atomic_store(&d->state_dirty, true);
		} else if (r < 0) {
			log_warning_errno(r, "cannot %s thread %d; trying again next sample",
					  t[i].core.demoted ? "demote" : "restore",
					  (int)t[i].tid);
			/* the kernel did not follow: decide the same again */
			t[i].core.demoted = !t[i].core.demoted;
		}
	}
	if (was != iso_engine_refractory(&d->engine))
		log_info("ISO CPU use %.1f %%: %s", iso_engine_usage(&d->engine),
			 was ? "below 90 % of iso_cpu, ISO restored"
			     : "above iso_cpu, ISO threads demoted to SCHED_OTHER");
}

void isod_demote_all(struct isod *d)
{
	for (size_t i = 0; i < d->tasks.end; i++) {
		struct tracked *e = &d->tasks.t[i];
		if (e->used && tasks_alive(e))
			(void)actuator_demote(e->tid);
		tasks_remove(&d->tasks, e);
	}
	atomic_store(&d->state_dirty, true);
}

void isod_watchdog(struct isod *d, int64_t now_ns)
{
	int64_t last = atomic_load(&d->last_step_ns);
	int64_t limit = 50 * (int64_t)d->cfg.sample_ms * 1000000;
	int n = 0;

	if (limit < 500000000)
		limit = 500000000;
	if (last == 0 || now_ns - last < limit || pthread_mutex_trylock(&d->lock) != 0)
		return;
	if (!d->watchdog_fired && atomic_load(&d->last_step_ns) == last) {
		d->watchdog_fired = true;
		for (size_t i = 0; i < d->tasks.end; i++) {
			struct tracked *e = &d->tasks.t[i];

			if (!e->used || e->core.demoted)
				continue;
			/* the engine sees it demoted, and restores it in the
			 * enforcer's first step while the budget allows */
			e->core.demoted = true;
			if (actuator_demote(e->tid) == 0)
				n++;
		}
		log_warning("the enforcer has not run for %lld ms (starved by real-time tasks above priority %d?): %d ISO thread(s) demoted until it runs again",
			    (long long)((now_ns - last) / 1000000), config_enforcer_prio(&d->cfg), n);
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
	o->refractory = iso_engine_refractory(&d->engine);
	o->ncpus = d->engine.ncpus;
	o->sample_us = d->cfg.sample_ms * 1000;
	o->total = (uint32_t)d->tasks.used;
}
