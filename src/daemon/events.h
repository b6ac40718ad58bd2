/* events.h — what isoctl top shows of isod's recent past: a small ring of
 * events (grant, demote, restore, refused, stray) and per-thread counters
 * (demotions, CPU use over the last window of about a second), and the
 * TOP reply built from them and the task table.
 *
 * Not locked here: the caller holds the daemon's lock (isod.h). */
#ifndef ISOD_EVENTS_H
#define ISOD_EVENTS_H

#include <stdint.h>
#include <sys/types.h>

#include "isosched.h"

/* Twice what a TOP reply carries: a burst of demotions (the whole
 * table going refractory) still leaves the events just before it. */
#define EVENTS_RING 64
#define EVENTS_CPU_WINDOW_NS 1000000000LL

struct event_ring {
	struct iso_event ev[EVENTS_RING];
	uint32_t head;     /* the slot the next event takes */
	uint32_t count;    /* slots in use, up to EVENTS_RING */
	uint32_t last_seq; /* the last event's number; 0: none yet */
};

/* Record one event, stamped with the wall clock now. */
void events_add(struct event_ring *r, uint32_t kind, pid_t tid, pid_t pid, uid_t uid,
		int32_t value);
/* The most recent events, at most cap, oldest first; returns how many. */
uint32_t events_recent(const struct event_ring *r, struct iso_event *out, uint32_t cap);

struct thread_stats {
	uint32_t demotions;   /* since the grant */
	uint32_t cpu_milli;   /* over the last full window, thousandths of % of a CPU */
	int64_t win_start_ns; /* monotonic; 0: no read yet */
	uint64_t win_cpu_ns;  /* cumulative CPU time then */
};

/* A read of the thread's cumulative CPU time at now_ns (monotonic): once
 * a window is full, its average becomes cpu_milli. */
void thread_stats_sample(struct thread_stats *s, uint64_t cpu_ns, int64_t now_ns);

struct isod;
struct tracked;
/* Why e was just demoted (ISO_DEMOTE_*), for its event. */
int32_t isod_demote_reason(const struct isod *d, const struct tracked *e);
/* The TOP reply: status, per-user shares, recent events and the tracked
 * threads from offset on (ISO_TOP_THREADS at most). Caller holds d->lock. */
void isod_top_page(struct isod *d, uint32_t offset, struct iso_top_info *out);

#endif
