/* iso_reserve.c — admission of declared reservations (iso_reserve.h). */
#include "iso_reserve.h"

#include <errno.h>

int iso_reserve_init(struct iso_reserve *r, struct iso_reserve_entry *e, size_t cap,
		     unsigned reserve_cpu, unsigned reserve_user, unsigned ncpus)
{
	if ((cap && !e) || ncpus == 0)
		return -EINVAL;
	r->e = e;
	r->cap = cap;
	r->n = 0;
	r->total_bw = 0;
	r->ncpus = ncpus;
	for (size_t i = 0; i < cap; i++)
		e[i] = (struct iso_reserve_entry){ 0 };
	return iso_reserve_retune(r, reserve_cpu, reserve_user);
}

int iso_reserve_retune(struct iso_reserve *r, unsigned reserve_cpu, unsigned reserve_user)
{
	if (reserve_cpu > ISO_RESERVE_CPU_MAX || reserve_user < 1 || reserve_user > 100)
		return -EINVAL;
	r->reserve_cpu = reserve_cpu;
	r->reserve_user = reserve_user;
	return 0;
}

int iso_reserve_check(struct iso_reserve_params *p)
{
	if (p->deadline_ns == 0)
		p->deadline_ns = p->period_ns;
	if (p->runtime_ns < ISO_RESERVE_RUNTIME_MIN_NS ||
	    p->period_ns < ISO_RESERVE_PERIOD_MIN_NS ||
	    p->period_ns > ISO_RESERVE_PERIOD_MAX_NS ||
	    p->runtime_ns > p->deadline_ns || p->deadline_ns > p->period_ns)
		return -EINVAL;
	return 0;
}

uint64_t iso_reserve_bw(const struct iso_reserve_params *p)
{
	/* period <= 4 s < 2^32 and runtime <= period: no overflow */
	if (p->period_ns == 0)
		return 0;
	return (p->runtime_ns << ISO_RESERVE_BW_SHIFT) / p->period_ns;
}

uint64_t iso_reserve_cap_total(const struct iso_reserve *r)
{
	return (uint64_t)r->ncpus * ISO_RESERVE_BW_ONE * r->reserve_cpu / 100;
}

uint64_t iso_reserve_cap_user(const struct iso_reserve *r)
{
	return iso_reserve_cap_total(r) * r->reserve_user / 100;
}

uint64_t iso_reserve_user_bw(const struct iso_reserve *r, uint32_t uid, int32_t tid)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < r->cap; i++)
		if (r->e[i].used && r->e[i].uid == uid && (tid == 0 || r->e[i].tid != tid))
			sum += r->e[i].bw;
	return sum;
}

const struct iso_reserve_entry *iso_reserve_find(const struct iso_reserve *r, int32_t tid)
{
	for (size_t i = 0; i < r->cap; i++)
		if (r->e[i].used && r->e[i].tid == tid)
			return &r->e[i];
	return NULL;
}

static uint64_t room(uint64_t cap, uint64_t used)
{
	return used >= cap ? 0 : cap - used;
}

uint64_t iso_reserve_left(const struct iso_reserve *r, uint32_t uid, int32_t tid)
{
	const struct iso_reserve_entry *old = tid ? iso_reserve_find(r, tid) : NULL;
	uint64_t total = r->total_bw - (old ? old->bw : 0);
	uint64_t machine = room(iso_reserve_cap_total(r), total);
	uint64_t user = room(iso_reserve_cap_user(r), iso_reserve_user_bw(r, uid, tid));

	return machine < user ? machine : user;
}

uint64_t iso_reserve_runtime_for(uint64_t bw, uint64_t period_ns)
{
	if (bw > ISO_RESERVE_BW_ONE)
		bw = ISO_RESERVE_BW_ONE;
	/* period <= 4 s < 2^32, bw <= 2^20: the product fits */
	return (bw * period_ns) >> ISO_RESERVE_BW_SHIFT;
}

uint64_t iso_reserve_bw_milli_pct(uint64_t bw)
{
	return bw * 100000 / ISO_RESERVE_BW_ONE;
}

int iso_reserve_admit(struct iso_reserve *r, int32_t tid, uint32_t uid,
		      struct iso_reserve_params *p, uint64_t *left)
{
	struct iso_reserve_entry *slot = NULL, *old = NULL;
	uint64_t bw, l;
	int err = iso_reserve_check(p);

	if (err < 0 || tid <= 0)
		return -EINVAL;
	bw = iso_reserve_bw(p);
	if (bw > ISO_RESERVE_BW_ONE * ISO_RESERVE_ONE_MAX / 100)
		return -EINVAL;
	l = iso_reserve_left(r, uid, tid);
	if (left)
		*left = l;
	if (r->reserve_cpu == 0 || bw > l)
		return -EBUSY;
	for (size_t i = 0; i < r->cap; i++) {
		if (r->e[i].used && r->e[i].tid == tid) {
			old = &r->e[i];
			break;
		}
		if (!r->e[i].used && !slot)
			slot = &r->e[i];
	}
	if (old) {
		r->total_bw -= old->bw;
		slot = old;
	} else if (!slot) {
		return -ENOSPC;
	} else {
		r->n++;
	}
	*slot = (struct iso_reserve_entry){ .used = true, .tid = tid, .uid = uid, .bw = bw };
	r->total_bw += bw;
	if (left)
		*left = l - bw;
	return 0;
}

bool iso_reserve_release(struct iso_reserve *r, int32_t tid)
{
	for (size_t i = 0; i < r->cap; i++) {
		if (r->e[i].used && r->e[i].tid == tid) {
			r->total_bw -= r->e[i].bw;
			r->e[i] = (struct iso_reserve_entry){ 0 };
			r->n--;
			return true;
		}
	}
	return false;
}
