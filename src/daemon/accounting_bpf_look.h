/* accounting_bpf_look.h — which tracked threads a check must read, from
 * what the BPF program saw (bpf/acct_maps.h: ran_bits, on_cpu, armed,
 * lost), and the program's reports on the ring buffer "events" (a wake,
 * an exit). Internal to the BPF accounting (accounting_bpf.c,
 * accounting_bpf_look.c); called under d->lock unless said otherwise. */
#ifndef ISOD_ACCOUNTING_BPF_LOOK_H
#define ISOD_ACCOUNTING_BPF_LOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include "accounting.h"

struct isod_acct;
struct ring_buffer;

/* Whom the ring buffer's callbacks (fixed when the buffer is made) hand a
 * stray or lineage report to: set by acct_bpf_take_reports for the length
 * of one call. */
struct acct_take {
	void (*fn)(void *ctx, const struct acct_stray *s);
	void (*lineage)(void *ctx, const struct acct_lineage *l);
	void *ctx;
	int n;
};

/* The BPF accounting's whole state, owned by its instance: allocated by
 * acct_bpf_load, which hands out iface (whose self points back here), and
 * freed by its close. Every operation reaches it through its first
 * argument (a->self); the ring buffers' callbacks and the waker thread
 * through the pointer they were given. */
struct acct_bpf {
	struct accounting iface;   /* the door the daemon holds (accounting.h) */
	/* the loader's (accounting_bpf.c): written only by load/unload (main
	 * thread, before and after the other threads); read under d->lock or
	 * by the server thread */
	struct isod_acct *skel;    /* the loaded program; NULL when none */
	struct ring_buffer *rb;    /* strays and lineage */
	struct acct_cpu *cpu_buf;  /* one per possible CPU: a per-CPU map read */
	struct acct_thread *threads; /* the map "threads", mapped: by slot */
	size_t n_threads, threads_len;
	int ncpus;
	struct acct_take taker;
	/* the look's (accounting_bpf_look.c): what the last look took, per
	 * slot of the task table. Allocated by acct_look_init, then used
	 * under d->lock; the event callback's target is set once by
	 * acct_bpf_bind before the server runs */
	uint64_t *ran_now;         /* words: the bits taken by acct_look_begin */
	uint8_t *must_read;        /* per slot: not seen by the program yet */
	uint32_t *filter_tid;      /* per slot: the TID it counts in tid_filter (0: none) */
	size_t n_must, cap_slots, n_words;
	int ncpus_seen;
	bool pending_all;          /* the next check reads every thread */
	bool read_all;             /* this check's */
	bool ran_last;             /* this check's: some thread ran since the last */
	uint64_t last_full_ns;
	const struct tracked *table;
	bool quiet_armed;          /* the last plan armed the kernel (read by the server thread) */
	int64_t armed_at;          /* then (CLOCK_MONOTONIC ns): an older wake is not this one's */
	void (*event_fn)(void *ctx, const struct acct_event *ev);
	void *event_ctx;
	/* The waker: a thread at the enforcer's priority that sleeps on the
	 * ring buffer "events" and hands its reports on (event_fn). Not the
	 * server thread: that one runs SCHED_OTHER, and ISO threads on every
	 * CPU would starve the very wake that lets isod police them. Started
	 * and stopped by acct_bpf_bind / acct_bpf_unbind (main thread). */
	struct ring_buffer *ev_rb;
	int waker_stop, waker_ep;
	pthread_t waker;
	bool waker_on;
};

static inline struct acct_bpf *acct_bpf_of(const struct accounting *a)
{
	return a->self;
}

/* accounting.h's bind, unbind, woken_ns, wake_overdue and quiet_since
 * (the waker's: any thread) */
int acct_bpf_bind(const struct accounting *a, const struct tracked *table,
		  void (*fn)(void *ctx, const struct acct_event *ev), void *ctx, int prio);
void acct_bpf_unbind(const struct accounting *a);
int64_t acct_bpf_woken_ns(const struct accounting *a);
bool acct_bpf_wake_overdue(const struct accounting *a, int64_t now_ns);
int64_t acct_bpf_quiet_since(const struct accounting *a);

/* After the program loaded (ncpus possible CPUs, cap = max_threads) /
 * before it is unloaded. */
int acct_look_init(struct acct_bpf *ab, size_t cap, int ncpus);
void acct_look_free(struct acct_bpf *ab);
/* The ring buffer "events"'s callback (libbpf ring_buffer__add; ctx:
 * the struct acct_bpf). */
int acct_look_event(void *ctx, void *data, size_t size);

/* e joins the task table: its slot for the map's value, and whether it
 * is on a CPU already (read it until the program has seen it switch). */
uint32_t acct_look_slot(const struct acct_bpf *ab, const struct tracked *e);
void acct_look_track(struct acct_bpf *ab, const struct tracked *e, uint32_t slot, bool in_map);
/* slot's TID counted in the program's tid_filter (bpf/acct_maps.h):
 * before it goes into "tracked"; uncounted after it left it. */
void acct_look_filter_add(struct acct_bpf *ab, uint32_t slot, pid_t tid);
void acct_look_filter_remove(struct acct_bpf *ab, uint32_t slot);
void acct_look_untrack(struct acct_bpf *ab, const struct tracked *e);
/* A read of e found its map entry seen by the program (or not). */
void acct_look_seen(struct acct_bpf *ab, const struct tracked *e, bool seen);
/* Must e's read go to /proc too (its wait, and whether it is still
 * there)? Yes at a check that reads everything (the program lost a
 * report, or the full read is due) and until the program has seen it;
 * otherwise the map's counters and the exit reports say all of it. */
bool acct_look_proc_needed(const struct acct_bpf *ab, const struct tracked *e);
/* Did the program last see e preempted (runnable, off its CPU: on_cpu
 * holds it)? Such a thread can be running again without a switch-in the
 * program saw: the kernel (6.18, its fair server) has been seen to put
 * an RT thread back on its CPU with no sched_switch event at all. */
bool acct_look_preempted(const struct acct_bpf *ab, const struct tracked *e);

/* accounting.h's look_begin, look_needed and quiet */
void acct_look_begin(const struct accounting *a, uint64_t now_ns);
bool acct_look_needed(const struct accounting *a, const struct tracked *e, size_t slot);
bool acct_look_quiet(const struct accounting *a);

#endif
