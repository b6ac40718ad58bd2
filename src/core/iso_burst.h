/* iso_burst.h — two rules that bound how long normal tasks can be stalled
 * by ISO tasks, on top of the patch's average over iso_period (issue 17).
 * Pure: time, CPU time and switch counts are handed in.
 *
 * 1. The burst guard, per task: a thread that has run burst_ms of CPU time
 *    without blocking loses ISO (never killed). It gets ISO back as soon as
 *    it is seen to have blocked, or, while it keeps running, after a
 *    back-off (1 s, doubling up to 32 s) for a trial of burst_ms/16: if it
 *    has still not blocked by then, it is demoted again.
 *
 *    "Without blocking" is decided from what /proc gives cheaply: at every
 *    read, cumulative CPU time (schedstat field 1) and run-queue wait
 *    (field 2); the time a thread spent neither running nor waiting to run
 *    is time it slept. Only a thread that looks as if it never slept — the
 *    suspect — needs its voluntary context-switch count (/proc status,
 *    ~10 us to read), and that count alone decides: a thread is demoted
 *    only when the count did not change over burst_ms of CPU time, so a
 *    thread that blocks is never demoted by the guard, whatever the
 *    sampling jitter. iso_burst_wants_nv says when to read it.
 *
 * 2. The stall cap, global: ISO tasks together may use more than iso_cpu
 *    of the machine for at most stall_ms at a time. A bucket fills with
 *    the ISO share above iso_cpu and drains with the share below it; full
 *    (all CPUs ISO for stall_ms) demotes every ISO task until it is empty
 *    again (all CPUs free for stall_ms·(100−iso_cpu)/iso_cpu). A load that
 *    blocks but keeps ISO near 100 % is thus cut into stall_ms slices
 *    instead of the ~1 s freezes the patch's 5 s average allows at each
 *    restoration.
 *
 * Return contract: int functions give 0 or a positive value on success,
 * -EINVAL for invalid input.
 */
#ifndef ISO_BURST_H
#define ISO_BURST_H

#include <stdbool.h>
#include <stdint.h>

#define ISO_BURST_MS_DEFAULT 200
#define ISO_STALL_MS_DEFAULT 200
#define ISO_BURST_MS_MAX 10000
#define ISO_BURST_BACKOFF_NS 1000000000LL      /* first back-off */
#define ISO_BURST_BACKOFF_MAX_NS 32000000000LL /* doubling stops here */
#define ISO_BURST_TRIAL_DIV 16                 /* trial after a back-off: burst/16 */
/* Time a spinner may seem to have slept between reads: schedstat's CPU
 * time of a running thread lags by up to a scheduler tick (4 ms at
 * HZ=250) at each end, and a wait in progress is not yet counted. */
#define ISO_BURST_SLACK_NS 10000000LL

/* ---- the burst guard ---------------------------------------------------- */

/* One read of a thread, cumulative counters. */
struct iso_burst_sample {
	int64_t now_ns;  /* monotonic time of the read */
	uint64_t cpu_ns; /* CPU time (schedstat field 1) */
	uint64_t wait_ns; /* time runnable but waiting (schedstat field 2) */
	/* Exact, when the accounting knows it (BPF: the kernel's own sum
	 * at the thread's last voluntary switch, with the voluntary switch
	 * count nv read with it): the CPU time at which it last blocked.
	 * Then a run's start is known, not guessed from reads: the guard
	 * demotes after exactly burst_ms of CPU without blocking, and the
	 * schedule need not look every burst_ms/4 for runs that begin
	 * between reads (iso_plan_guard). */
	bool has_block;
	uint64_t block_cpu_ns;
};

enum iso_burst_phase {
	ISO_BURST_IDLE,    /* not running continuously as far as seen */
	ISO_BURST_RUNNING, /* looks as if it has not slept since start */
	ISO_BURST_DEMOTED, /* lost ISO to the guard */
};

enum iso_burst_change { ISO_BURST_KEEP, ISO_BURST_DEMOTE, ISO_BURST_RESTORE };

struct iso_burst {
	enum iso_burst_phase phase;
	bool has_prev;
	struct iso_burst_sample prev;  /* the previous read */
	struct iso_burst_sample start; /* RUNNING: where the run began;
					* DEMOTED: the last look at its switches */
	uint64_t nv;          /* voluntary switches at start / at demotion;
			       * idle: at the last read that had them */
	bool nv_known;        /* nv was read (iso_burst_leave) */
	int64_t allowance_ns; /* RUNNING: CPU time allowed without blocking */
	int64_t until_ns;     /* DEMOTED: when the back-off ends */
	int64_t backoff_ns;   /* the next back-off */
	uint32_t demotions;   /* by the guard, ever */
	/* The state before the last block the guard saw, when it was one
	 * block alone (iso_burst_leave): that block may be the one a thread
	 * makes as it asks isod to release it, seen by a check before isod
	 * handles the request — its own, not a block that ends a run. */
	bool ask_block;       /* a fresh grant's: the block of the ask itself
			       * may come after the baseline was read (the
			       * client blocks for isod's reply once isod has
			       * read it); one block at the grant — before
			       * the thread ran ISO_BURST_ASK_CPU_NS, or with
			       * no sleep to speak of — is not counted */
	struct iso_burst_sample ask_at; /* the grant's read */
	bool undo_ok;
	enum iso_burst_phase undo_phase;
	struct iso_burst_sample undo_start, undo_prev;
	uint64_t undo_nv;
	int64_t undo_allowance_ns, undo_until_ns, undo_backoff_ns;
};

void iso_burst_init(struct iso_burst *b);
bool iso_burst_demoted(const struct iso_burst *b);

/* Does feeding s need the thread's voluntary switch count? (burst_ns 0:
 * the guard is off, never.) */
bool iso_burst_wants_nv(const struct iso_burst *b, int64_t burst_ns,
			const struct iso_burst_sample *s);
/* Feed one read. nv is the voluntary switch count, valid only if have_nv
 * (with s->has_block it must come from the same read as block_cpu_ns)
 * (pass it when iso_burst_wants_nv said so; if it could not be read, the
 * guard neither demotes nor, lacking proof of a block, restores early).
 * A read that goes back in time or counters that go backwards only reset
 * the baseline. burst_ns 0 turns the guard off (a demoted task is
 * restored). Returns an enum iso_burst_change, or -EINVAL. */
int iso_burst_feed(struct iso_burst *b, int64_t burst_ns,
		   const struct iso_burst_sample *s, bool have_nv, uint64_t nv);
/* The earliest time the guard's decision could change without the task
 * blocking: when a running task could reach its allowance (if it used a
 * whole CPU from its last read on), or when a demoted one's back-off
 * ends. INT64_MAX when the guard is off. For a schedule that reads each
 * task just in time (issue 13). */
int64_t iso_burst_earliest_ns(const struct iso_burst *b, int64_t burst_ns);
/* The same where the last read had the run's start exactly (has_block)
 * and the thread has not run since unless it was read again: from now_ns
 * (a check that did not read it), it can reach its allowance no sooner
 * than the CPU time it has left. INT64_MAX when the guard is off; the
 * plain bound when the last read was not exact. */
int64_t iso_burst_earliest_exact_ns(const struct iso_burst *b, int64_t burst_ns, int64_t now_ns);

/* ---- across a release: what the guard remembers ------------------------ */

/* A thread that leaves ISO (released, exited, forgotten) and is granted
 * again must not come back with a clean record: a spinner that releases
 * and re-asks every 150 ms would never run burst_ms "without blocking".
 * What the guard had seen of it is kept (iso_recent.h) and handed to the
 * next fresh grant of that thread, or of its process or user: the run so
 * far, or the back-off. A block the leaving or the asking itself causes
 * (the thread waits for isod's reply) is not a block; any other is, as
 * it would be while ISO. */
struct iso_burst_carry {
	bool demoted;         /* in a back-off when it left */
	int64_t ran_ns;       /* not demoted: CPU time run without a block */
	int64_t allowance_ns; /* that run's allowance (a trial's is shorter) */
	int64_t until_ns;     /* demoted: when its back-off ends */
	int64_t backoff_ns;   /* the next back-off */
	bool has_nv;          /* nv: its voluntary switches as it left */
	uint64_t nv;
	int64_t left_ns;      /* when it left */
	int64_t keep_until_ns; /* worth remembering until then: the back-off
				* window (at least ISO_BURST_BACKOFF_NS) */
};

/* Blocks the leaving or the asking may cause by themselves (each
 * request's wait for isod's reply), before or after isod reads the
 * count. */
#define ISO_BURST_OWN_BLOCKS 1
/* CPU time a client uses between isod's read at its grant and its wait
 * for the reply, at most */
#define ISO_BURST_ASK_CPU_NS 1000000LL

/* What b should leave behind as its task goes, read at s (nv if
 * have_nv). false: nothing — the guard is off, no run and no back-off to
 * carry, or the task blocked (more
 * than ISO_BURST_OWN_BLOCKS times since the guard's baseline, or seemed
 * to sleep when the count is not known) and so starts clean anyway. */
bool iso_burst_leave(const struct iso_burst *b, int64_t burst_ns,
		     const struct iso_burst_sample *s, bool have_nv, uint64_t nv,
		     struct iso_burst_carry *c);
/* A fresh grant's guard: initialised from its first read s (nv its
 * voluntary switches then), continuing c if not NULL. same_thread: c is
 * this thread's own, and a block between its leaving and now (beyond the
 * ask's own) wipes it. Returns ISO_BURST_DEMOTE when the task must start
 * held (a back-off not over, or a run already past its allowance), else
 * ISO_BURST_KEEP; -EINVAL for bad input. */
int iso_burst_resume(struct iso_burst *b, int64_t burst_ns, const struct iso_burst_carry *c,
		     bool same_thread, const struct iso_burst_sample *s, uint64_t nv);

/* ---- the stall cap ------------------------------------------------------ */

struct iso_stall {
	int64_t level_ns; /* machine-time ISO used above iso_cpu, net */
	bool over;        /* full, not yet drained */
};

void iso_stall_init(struct iso_stall *st);
/* ISO tasks used iso_cpu_ns of CPU time on ncpus CPUs over dt_ns. stall_ns
 * 0 turns the cap off. Returns 1 when st->over changed, else 0, or
 * -EINVAL. */
int iso_stall_feed(struct iso_stall *st, int64_t stall_ns, unsigned iso_cpu,
		   int64_t dt_ns, uint64_t iso_cpu_ns, unsigned ncpus);
/* The same, knowing that only `ran` threads used ISO CPU time in the
 * interval, so ISO held at most ran/ncpus of the machine at any moment
 * (0 or ncpus and more: unknown, all of it). Exact for any dt_ns in the
 * sense that matters: the level is the highest any spread of the
 * interval's use over time could have left. */
int iso_stall_feed_ran(struct iso_stall *st, int64_t stall_ns, unsigned iso_cpu,
		       int64_t dt_ns, uint64_t iso_cpu_ns, unsigned ncpus, unsigned ran);

#endif
