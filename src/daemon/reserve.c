/* reserve.c — declared reservations in isod (reserve.h). */
#include "reserve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actuator.h"
#include "iso_policy.h"
#include "log.h"

int reserve_init(struct isod *d, const struct isod_config *cfg)
{
	/* one reservation per tracked thread at most: never short */
	struct iso_reserve_entry *e = calloc(cfg->max_threads, sizeof(*e));

	if (!e)
		return -ENOMEM;
	if (iso_reserve_init(&d->reserve, e, cfg->max_threads, cfg->reserve_cpu, cfg->reserve_user,
			     d->engine.ncpus ? d->engine.ncpus : 1) < 0) {
		free(e);
		d->reserve.e = NULL;
		return -EINVAL;
	}
	return 0;
}

void reserve_free(struct isod *d)
{
	free(d->reserve.e);
	d->reserve.e = NULL;
	d->reserve.cap = 0;
}

int reserve_request(const struct iso_req *req, struct iso_req *set, struct iso_reserve_params *p,
		    struct iso_reply *rep)
{
	*p = (struct iso_reserve_params){ .runtime_ns = req->u.reserve.runtime_ns,
					  .deadline_ns = req->u.reserve.deadline_ns,
					  .period_ns = req->u.reserve.period_ns };
	memset(set, 0, sizeof(*set));
	set->type = ISO_MSG_SET;
	set->seq = req->seq;
	set->u.set.pid = req->u.reserve.pid;
	set->u.set.tid = req->u.reserve.tid;
	set->u.set.policy = ISO_POLICY_ISO_FIFO;
	set->u.set.prio = req->u.reserve.prio ? req->u.reserve.prio : RESERVE_FALLBACK_PRIO;
	set->u.set.limit = 0;
	if (req->u.reserve.flags != 0) {
		rep->err = -EINVAL;
		snprintf(rep->text, sizeof(rep->text), "unknown reservation flags 0x%x",
			 (unsigned)req->u.reserve.flags);
		return -EINVAL;
	}
	if (iso_reserve_check(p) < 0) {
		rep->err = -EINVAL;
		snprintf(rep->text, sizeof(rep->text),
			 "reservation %llu/%llu/%llu ns (runtime/deadline/period) is invalid: runtime >= 1024 ns, runtime <= deadline <= period, 100 us <= period <= 4 s",
			 (unsigned long long)p->runtime_ns, (unsigned long long)p->deadline_ns,
			 (unsigned long long)p->period_ns);
		return -EINVAL;
	}
	if (iso_reserve_bw(p) > ISO_RESERVE_BW_ONE * ISO_RESERVE_ONE_MAX / 100) {
		rep->err = -EINVAL;
		snprintf(rep->text, sizeof(rep->text),
			 "a reservation takes at most %u %% of a CPU (runtime/period)",
			 ISO_RESERVE_ONE_MAX);
		return -EINVAL;
	}
	return 0;
}

void reserve_refusal(const struct isod *d, const struct iso_reserve_params *p, uint64_t left,
		     char *buf, size_t n)
{
	uint64_t want = iso_reserve_bw_milli_pct(iso_reserve_bw(p)),
		 have = iso_reserve_bw_milli_pct(left);

	if (d->reserve.reserve_cpu == 0) {
		snprintf(buf, n, "reservations are off (reserve_cpu 0)");
		return;
	}
	snprintf(buf, n,
		 "reservation of %.3f %% of a CPU refused: %.3f %% left (at most %llu us every %llu us; reserve_cpu %u %%, reserve_user %u %%)",
		 (double)want / 1000.0, (double)have / 1000.0,
		 (unsigned long long)(iso_reserve_runtime_for(left, p->period_ns) / 1000),
		 (unsigned long long)(p->period_ns / 1000), d->reserve.reserve_cpu,
		 d->reserve.reserve_user);
}

void reserve_describe(const struct isod *d, const struct tracked *e, char *buf, size_t n)
{
	if (e->dl_why) {
		snprintf(buf, n, "reservation not served by SCHED_DEADLINE (%s): runs as ISO_FIFO %d",
			 reserve_why_name(e->dl_why), e->prio);
		return;
	}
	snprintf(buf, n, "reserved %llu us every %llu us (deadline %llu us): %.3f %% of a CPU; %.3f %% of all CPUs reserved",
		 (unsigned long long)(e->dl.runtime_ns / 1000),
		 (unsigned long long)(e->dl.period_ns / 1000),
		 (unsigned long long)(e->dl.deadline_ns / 1000),
		 (double)iso_reserve_bw_milli_pct(iso_reserve_bw(&e->dl)) / 1000.0,
		 (double)iso_reserve_bw_milli_pct(d->reserve.total_bw) / 1000.0 / d->reserve.ncpus);
}

int reserve_take(struct isod *d, struct tracked *e, const struct iso_reserve_params *dl,
		 uint64_t *left)
{
	struct iso_reserve_params p;
	int r;

	if (!dl) {
		reserve_drop(d, e);
		return 0;
	}
	p = *dl;
	r = iso_reserve_admit(&d->reserve, e->tid, e->charged, &p, left);
	if (r < 0)
		return r == -ENOSPC ? -EAGAIN : r;
	e->dl = p;
	e->dl_why = 0;
	return 0;
}

void reserve_drop(struct isod *d, struct tracked *e)
{
	if (e->dl.runtime_ns)
		(void)iso_reserve_release(&d->reserve, e->tid);
	e->dl = (struct iso_reserve_params){ 0 };
	e->dl_why = 0;
}

const char *reserve_why_name(unsigned why)
{
	switch (why) {
	case ISO_RESERVE_WHY_AFFINITY:
		return "its CPU affinity does not span its root domain";
	case ISO_RESERVE_WHY_KERNEL:
		return "the kernel's DEADLINE admission refused it (EBUSY)";
	case ISO_RESERVE_WHY_BACKEND:
		return "the scx backend runs ISO: no DEADLINE there";
	case ISO_RESERVE_WHY_REFUSED:
		return "the kernel refused SCHED_DEADLINE";
	case ISO_RESERVE_WHY_CAP:
		return "over reserve_cpu";
	default:
		return "unknown";
	}
}

/* DEADLINE cannot serve e: give its bandwidth back, note why, say so. */
static void fall_back(struct isod *d, struct tracked *e, unsigned why)
{
	log_warning("thread %d (pid %d, uid %u): reservation %llu/%llu ns not served by SCHED_DEADLINE (%s): runs as ISO_FIFO %d",
		    (int)e->tid, (int)e->pid, (unsigned)e->uid,
		    (unsigned long long)e->dl.runtime_ns, (unsigned long long)e->dl.period_ns,
		    reserve_why_name(why), e->prio);
	reserve_drop(d, e);
	e->dl_why = why;
}

int reserve_grant(struct isod *d, struct tracked *e, const struct backend *b,
		  const struct backend_grant *g)
{
	struct backend_grant band = *g;
	int r;

	if (b->owns_budget) {
		fall_back(d, e, ISO_RESERVE_WHY_BACKEND);
	} else {
		r = actuator_grant(b, e->tid, g);
		/* EPERM to a process with CAP_SYS_NICE: the affinity rule
		 * (a DEADLINE task's CPUs must span its root domain) */
		if (r != -EPERM && r != -EBUSY && r != -EINVAL)
			return r;
		fall_back(d, e, r == -EPERM   ? ISO_RESERVE_WHY_AFFINITY
				: r == -EBUSY ? ISO_RESERVE_WHY_KERNEL
					      : ISO_RESERVE_WHY_REFUSED);
	}
	band.dl_runtime = band.dl_deadline = band.dl_period = 0;
	return actuator_grant(b, e->tid, &band);
}

uint32_t reserve_flags(const struct tracked *e)
{
	if (e->dl.runtime_ns)
		return ISO_THREAD_RESERVED;
	if (e->dl_why)
		return ISO_THREAD_RESERVE_FALLBACK | (uint32_t)(e->dl_why & 0xfu) << 8;
	return 0;
}
