/* events.c — the recent events and per-thread counters isoctl top shows,
 * and its reply (events.h). */
#include "events.h"

#include <string.h>
#include <time.h>

#include "info.h"
#include "isod.h"

void events_add(struct event_ring *r, uint32_t kind, pid_t tid, pid_t pid, uid_t uid,
		int32_t value)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* after 2^32 events the numbers start again from 1: top compares
	 * them only to see which events are new since its last frame */
	if (++r->last_seq == 0)
		r->last_seq = 1;
	r->ev[r->head] = (struct iso_event){
		.seq = r->last_seq,
		.kind = kind,
		.time_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
		.tid = tid,
		.pid = pid,
		.uid = uid,
		.value = value,
	};
	r->head = (r->head + 1) % EVENTS_RING;
	if (r->count < EVENTS_RING)
		r->count++;
}

uint32_t events_recent(const struct event_ring *r, struct iso_event *out, uint32_t cap)
{
	uint32_t n = r->count < cap ? r->count : cap;

	for (uint32_t i = 0; i < n; i++)
		out[i] = r->ev[(r->head + EVENTS_RING - n + i) % EVENTS_RING];
	return n;
}

void thread_stats_sample(struct thread_stats *s, uint64_t cpu_ns, int64_t now_ns)
{
	int64_t dt = now_ns - s->win_start_ns;

	if (s->win_start_ns == 0 || cpu_ns < s->win_cpu_ns || dt < 0) {
		s->win_start_ns = now_ns;
		s->win_cpu_ns = cpu_ns;
		return;
	}
	if (dt < EVENTS_CPU_WINDOW_NS)
		return;
	/* percent of one CPU, in thousandths: 100 000 is a CPU's all */
	s->cpu_milli = (uint32_t)((double)(cpu_ns - s->win_cpu_ns) * 100000.0 / (double)dt);
	s->win_start_ns = now_ns;
	s->win_cpu_ns = cpu_ns;
}

int32_t isod_demote_reason(const struct isod *d, const struct tracked *e)
{
	if (e->core.held)
		return ISO_DEMOTE_BURST;
	if (iso_engine_stalled(&d->engine))
		return ISO_DEMOTE_STALL;
	if (iso_percpu_applies(&d->percpu, e->cpu) ? iso_percpu_over(&d->percpu, e->cpu)
						   : iso_engine_refractory(&d->engine))
		return ISO_DEMOTE_BUDGET;
	if (iso_share_on(&d->share) && iso_share_over(&d->share, e->charged))
		return ISO_DEMOTE_SHARE;
	return ISO_DEMOTE_LIMIT;
}

void isod_top_page(struct isod *d, uint32_t offset, struct iso_top_info *out)
{
	uint32_t skip = offset, n = 0, nu;

	isod_status_info(d, &out->status);
	for (size_t i = 0; i < d->tasks.end && n < ISO_TOP_THREADS; i++) {
		const struct tracked *e = &d->tasks.t[i];

		if (!e->used)
			continue;
		if (skip) {
			skip--;
			continue;
		}
		isod_thread_info(d, e, &out->threads[n].info);
		out->threads[n].demotions = e->stats.demotions;
		out->threads[n].cpu_milli = e->stats.cpu_milli;
		n++;
	}
	out->status.offset = offset;
	out->status.count = n;
	/* the first uids only: top has no room for more (users.total says
	 * how many there are; `isoctl status` lists them all) */
	nu = isod_users_page(d, 0, &out->users, d->user_page);
	if (nu > ISO_TOP_USERS)
		nu = ISO_TOP_USERS;
	memcpy(out->user_list, d->user_page, nu * sizeof(out->user_list[0]));
	out->users.count = nu;
	out->nevents = events_recent(&d->events, out->events, ISO_TOP_EVENTS);
}
