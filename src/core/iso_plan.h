/* iso_plan.h — when must isod look next? The earliest moment any decision
 * of the engine (iso_engine.h), the per-user shares (iso_share.h) or the
 * burst guard and stall cap (iso_burst.h) can change, from what was known
 * at the last step (issue 13). Until then no read can change a decision,
 * so the enforcer sleeps instead of sampling on a fixed tick.
 *
 * The budget is an exponential average with time constant τ = iso_period,
 * and what it averages, ISO's share of the CPUs, can be at most M: 100 %,
 * or less when fewer ISO threads run than there are CPUs (M = 100·n/ncpus,
 * plus ISO_PLAN_LAG_PCT for the CPU-time counters' lag). From usage u:
 *   - a limit L (iso_cpu, an own limit, a user's share) can be passed no
 *     earlier than  τ·ln((M − u)/(M − L))   (never when M <= L);
 *   - once over, usage can fall below the restore point 0.9·L no earlier
 *     than  τ·ln(u/(0.9·L))  (the average falls at most as fast as with
 *     no ISO use at all).
 * The stall cap's bucket can fill no faster than with M of the machine ISO
 * and drain no faster than with none. The burst guard's horizons are its
 * own (iso_plan_guard). The plan is the minimum of all of these, floored
 * at the sampling interval: that becomes a minimum, not a period (a
 * crossing predicted inside it is still checked at its time, see
 * ISO_PLAN_CONFIRM_NS).
 *
 * Use, after a step's decisions:
 *     iso_plan_begin(&p);
 *     for each task: iso_plan_task(&p, e, &task->core);
 *                    iso_plan_guard(&p, &task->burst, burst_ns, checked_ns);
 *     next = iso_plan_end(&p, e, share, now_ns, floor_ns);
 * A grant, a release, an exit or a retune changes the inputs: plan again
 * (a plan may be due at once). Pure, like the engine. */
#ifndef ISO_PLAN_H
#define ISO_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "iso_burst.h"
#include "iso_engine.h"
#include "iso_horizon.h" /* iso_plan_rise_s, iso_plan_fall_s */
#include "iso_share.h"

struct iso_percpu;

#define ISO_PLAN_NEVER INT64_MAX
/* Percent points on top of 100·n/ncpus: schedstat's CPU time of a running
 * thread lags by up to a tick, so one interval can show a little more
 * than the thread can use (what it shows less in another). */
#define ISO_PLAN_LAG_PCT 1.0
/* A check is planned this far past the earliest possible change: at that
 * moment itself the worst case has only reached the limit (a change needs
 * usage above it), just after it the worst case has changed a decision. */
#define ISO_PLAN_PAST_NS 1000
/* The least time between two checks when the second confirms a predicted
 * crossing of a limit (the budget's, a thread's, a user's share, the stall
 * cap) that falls inside the floor (sample_ms): a runaway is demoted about
 * when the exact model says, not up to sample_ms later. Such checks come
 * after a gap of a floor or in a converging chain (each less than half as
 * far as the gap before): a few per floor at most (iso_plan_end). The
 * enforcer also rests as long as its last check took (enforcer.c). */
#define ISO_PLAN_CONFIRM_NS 1000000

struct iso_plan {
	bool any;            /* a task was planned */
	unsigned running;    /* tasks not demoted: what can count against the budget */
	unsigned up_limit;   /* lowest own limit below iso_cpu of a running task (0: none) */
	unsigned down_limit; /* highest own limit below iso_cpu of a demoted task (0: none) */
	int64_t guard_ns;    /* earliest burst guard horizon, absolute */
	/* Set by the caller after iso_plan_begin: no task runs now, and the
	 * caller learns when one starts to run and plans again then (the BPF
	 * accounting's wake, accounting.h). Until then no use can rise: only
	 * falls (restores) and the guard's demotions have horizons. */
	bool quiet;
	/* scope per-cpu: each CPU's average too (iso_percpu.h); the caller
	 * sets it after iso_plan_begin, NULL: none */
	const struct iso_percpu *percpu;
};

void iso_plan_begin(struct iso_plan *p);
void iso_plan_task(struct iso_plan *p, const struct iso_engine *e, const struct iso_task *t);
/* The burst guard of one task (burst_ns 0: off): a running thread can
 * reach its allowance (iso_burst_earliest_ns), a demoted one's back-off
 * ends; and a thread not seen running, or demoted, is read at least every
 * burst_ns/ISO_PLAN_GUARD_DIV — a run begins (and a block is seen) only at
 * a read, so a spinner is demoted within (1 + 1/DIV)·burst_ns, as with
 * fixed sampling. With p->quiet only a thread the guard demoted needs a
 * horizon (its back-off, a look for its block): any other reaches its
 * allowance only by running, and the plan is made again when it runs.
 * A thread whose last read had its run's start exactly (has_block, BPF)
 * needs no such looks: a run that begins later is measured from its real
 * start at whatever read comes next, so its horizon is the CPU time it
 * has left, counted from checked_ns — the last check, which read every
 * thread that had run since its previous read (a thread not read then
 * has not run since its last read). */
#define ISO_PLAN_GUARD_DIV 4
void iso_plan_guard(struct iso_plan *p, const struct iso_burst *b, int64_t burst_ns,
		    int64_t checked_ns);

/* The time of the next check, absolute (the clock of the engine's steps):
 * never before the last step plus floor_ns (now_ns before the first
 * step, which starts the average) —
 * except a predicted crossing of a limit inside the floor, checked at its
 * time but no sooner than ISO_PLAN_CONFIRM_NS after the last step — or
 * ISO_PLAN_NEVER when no task was planned. share may be NULL. */
int64_t iso_plan_end(const struct iso_plan *p, const struct iso_engine *e,
		     const struct iso_share *share, int64_t now_ns, int64_t floor_ns);

#endif
