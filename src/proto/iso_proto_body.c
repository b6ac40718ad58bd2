/* iso_proto_body.c — the reply bodies on the wire, field by field through
 * the bounds cursor (iso_proto_cur.h); iso_proto.c frames them. */
#include "iso_proto_body.h"

#include <errno.h>

void iso_body_put_thread(struct cur *c, const struct iso_thread_info *t)
{
	PUT(c, t->tid);
	PUT(c, t->pid);
	PUT(c, t->uid);
	PUT(c, t->policy);
	PUT(c, t->prio);
	PUT(c, t->limit);
	PUT(c, t->kernel_policy);
	PUT(c, t->kernel_prio);
	PUT(c, t->user_prio);
	PUT(c, t->flags);
	PUT(c, t->cpu_ns);
}

void iso_body_get_thread(struct cur *c, struct iso_thread_info *t)
{
	GET(c, t->tid);
	GET(c, t->pid);
	GET(c, t->uid);
	GET(c, t->policy);
	GET(c, t->prio);
	GET(c, t->limit);
	GET(c, t->kernel_policy);
	GET(c, t->kernel_prio);
	GET(c, t->user_prio);
	GET(c, t->flags);
	GET(c, t->cpu_ns);
}

void iso_body_put_status(struct cur *c, const struct iso_status_info *s)
{
	PUT(c, s->iso_cpu);
	PUT(c, s->iso_period_s);
	PUT(c, s->band_lo);
	PUT(c, s->band_hi);
	PUT(c, s->usage_milli);
	PUT(c, s->refractory);
	PUT(c, s->ncpus);
	PUT(c, s->sample_us);
	PUT(c, s->total);
	PUT(c, s->offset);
	PUT(c, s->count);
}

void iso_body_get_status(struct cur *c, struct iso_status_info *s)
{
	GET(c, s->iso_cpu);
	GET(c, s->iso_period_s);
	GET(c, s->band_lo);
	GET(c, s->band_hi);
	GET(c, s->usage_milli);
	GET(c, s->refractory);
	GET(c, s->ncpus);
	GET(c, s->sample_us);
	GET(c, s->total);
	GET(c, s->offset);
	GET(c, s->count);
}

/* USERS: the share, then count entries of three u32 each. */
void iso_body_put_users(struct cur *c, const struct iso_users_info *u)
{
	PUT(c, u->user_cpu);
	PUT(c, u->share_milli);
	PUT(c, u->total);
	PUT(c, u->offset);
	PUT(c, u->count);
}

void iso_body_get_users(struct cur *c, struct iso_users_info *u)
{
	GET(c, u->user_cpu);
	GET(c, u->share_milli);
	GET(c, u->total);
	GET(c, u->offset);
	GET(c, u->count);
}

void iso_body_put_user(struct cur *c, const struct iso_user_info *u)
{
	PUT(c, u->uid);
	PUT(c, u->usage_milli);
	PUT(c, u->flags);
}

void iso_body_get_user(struct cur *c, struct iso_user_info *u)
{
	GET(c, u->uid);
	GET(c, u->usage_milli);
	GET(c, u->flags);
}

void iso_body_put_event(struct cur *c, const struct iso_event *e)
{
	PUT(c, e->seq);
	PUT(c, e->kind);
	PUT(c, e->time_ms);
	PUT(c, e->tid);
	PUT(c, e->pid);
	PUT(c, e->uid);
	PUT(c, e->value);
}

void iso_body_get_event(struct cur *c, struct iso_event *e)
{
	GET(c, e->seq);
	GET(c, e->kind);
	GET(c, e->time_ms);
	GET(c, e->tid);
	GET(c, e->pid);
	GET(c, e->uid);
	GET(c, e->value);
}

/* STRAYS: 2 u32 (policing 0 or 1, reserved 0), 5 u64 counts. */
void iso_body_put_strays(struct cur *c, const struct iso_strays_info *s)
{
	PUT(c, s->policing);
	PUT(c, s->reserved);
	PUT(c, s->demoted);
	PUT(c, s->suppressed);
	PUT(c, s->exiting);
	PUT(c, s->lost);
	PUT(c, s->sweeps);
}

int iso_body_get_strays(struct cur *c, struct iso_strays_info *s)
{
	GET(c, s->policing);
	GET(c, s->reserved);
	GET(c, s->demoted);
	GET(c, s->suppressed);
	GET(c, s->exiting);
	GET(c, s->lost);
	GET(c, s->sweeps);
	return s->policing > 1 || s->reserved || s->suppressed > s->demoted ? -EBADMSG : 0;
}

/* TOP: status, users, uids, events, threads with their counters. */
int iso_body_put_top(struct cur *c, const struct iso_top_info *t)
{
	if (!t || t->status.count > ISO_TOP_THREADS || t->users.count > ISO_TOP_USERS ||
	    t->nevents > ISO_TOP_EVENTS)
		return -EINVAL;
	iso_body_put_status(c, &t->status);
	iso_body_put_users(c, &t->users);
	for (uint32_t i = 0; i < t->users.count; i++)
		iso_body_put_user(c, &t->user_list[i]);
	PUT(c, t->nevents);
	for (uint32_t i = 0; i < t->nevents; i++)
		iso_body_put_event(c, &t->events[i]);
	for (uint32_t i = 0; i < t->status.count; i++) {
		iso_body_put_thread(c, &t->threads[i].info);
		PUT(c, t->threads[i].demotions);
		PUT(c, t->threads[i].cpu_milli);
	}
	return 0;
}

/* Into t, or, when t is NULL, into scratch space: checked all the same. */
int iso_body_get_top(struct cur *c, struct iso_top_info *t)
{
	struct iso_status_info st;
	struct iso_users_info us;
	uint32_t nev;

	iso_body_get_status(c, &st);
	iso_body_get_users(c, &us);
	if (c->bad || st.count > ISO_TOP_THREADS || us.count > ISO_TOP_USERS)
		return -EBADMSG;
	if (t) {
		t->status = st;
		t->users = us;
	}
	for (uint32_t i = 0; i < us.count; i++) {
		struct iso_user_info u;

		iso_body_get_user(c, &u);
		if (t)
			t->user_list[i] = u;
	}
	GET(c, nev);
	if (c->bad || nev > ISO_TOP_EVENTS)
		return -EBADMSG;
	if (t)
		t->nevents = nev;
	for (uint32_t i = 0; i < nev; i++) {
		struct iso_event e;

		iso_body_get_event(c, &e);
		if (t)
			t->events[i] = e;
	}
	for (uint32_t i = 0; i < st.count; i++) {
		struct iso_top_thread th;

		iso_body_get_thread(c, &th.info);
		GET(c, th.demotions);
		GET(c, th.cpu_milli);
		if (t)
			t->threads[i] = th;
	}
	return 0;
}
