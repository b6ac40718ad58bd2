/* info.c — a tracked thread and the budget as the protocol's records
 * (info.h). */
#include "info.h"

#include <string.h>

#include "backend.h"
#include "iso_policy.h"
#include "reserve.h"

void isod_thread_info(const struct isod *d, const struct tracked *e,
		      struct iso_thread_info *o)
{
	const struct backend *b = backend_current();
	struct backend_thread k = { .policy = -1 };
	/* what it runs as, not the decision (they differ while a change
	 * waits for a retry, or after the watchdog) */
	bool demoted = e->applied == APPLIED_OTHER;

	(void)d;
	memset(o, 0, sizeof(*o));
	o->tid = e->tid;
	o->pid = e->pid;
	o->uid = e->uid;
	o->policy = e->policy;
	o->prio = e->prio;
	o->limit = (int32_t)e->core.limit;
	o->cpu_ns = e->cpu_ns;
	(void)b->query(e->tid, &k);
	/* a backend that owns the budget demotes by itself, per CPU (and
	 * isod only for the burst guard, which unmarks the thread) */
	if (b->owns_budget)
		demoted = !k.iso;
	o->flags = e->flags | (demoted ? ISO_THREAD_DEMOTED : 0) | reserve_flags(e);
	o->kernel_policy = k.policy;
	o->kernel_prio = k.prio;
	o->user_prio = demoted ? iso_user_prio(ISO_POLICY_NORMAL, 0, k.nice)
				       : iso_user_prio(e->policy, e->prio, k.nice);
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
