/* leave.h — what a thread's run is charged to (isod_account), and a
 * thread leaving ISO (isod_forget: released, exited, exec'd,
 * gone, demoted as a stray, its record failed, isod stopping) is charged
 * what it ran since its last sample, and leaves the burst guard's record
 * for the next fresh grant of it, its process or its user (iso_recent.h,
 * issue 28: re-grant cycling gains nothing). Caller holds d->lock.
 *
 * Return contract: none (what cannot be read is not charged; said here). */
#ifndef ISOD_LEAVE_H
#define ISOD_LEAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "isod.h"

/* Charge e's CPU time since its previous sample (e->cpu_ns, just read)
 * to all that counts it: its user's share, its CPU's budget (scope
 * per-cpu), the engine's budget and stall cap, its statistics. In a step
 * (leaving false, between iso_engine_begin and commit) the engine places
 * it in the step; a thread that leaves ISO (isod_forget) is charged at
 * any moment, between steps too, and counted at the next commit
 * (iso_engine_charge). One function for both, so that leaving charges
 * what a step would have. Caller holds d->lock. */
void isod_account(struct isod *d, struct tracked *e, int64_t now_ns, bool leaving);
/* e leaves: sample it (if it can still be read), charge that, keep its
 * guard's record. Before e's entry goes. */
void isod_leave(struct isod *d, struct tracked *e);
/* e is a fresh grant, just sampled (e->cpu_ns, e->wait_ns) at now_ns:
 * its guard from this first read, continuing what it, its process or its
 * user left; e->core.held set from it (a back-off still running, or a
 * run already past burst_ms: it starts SCHED_OTHER until it blocks). */
void isod_guard_resume(struct isod *d, struct tracked *e, int64_t now_ns);

#endif
