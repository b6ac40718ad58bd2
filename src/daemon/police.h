/* police.h — the enforcer's step and its watchdog (police.c).
 * Caller holds d->lock for isod_enforce_step. */
#ifndef ISOD_POLICE_H
#define ISOD_POLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "isod.h"

/* One check: read every thread, account, decide, reconcile the
 * scheduler with the decisions (and with a backend that came or went). */
void isod_enforce_step(struct isod *d, int64_t now_ns);
/* Charge e's CPU time since its previous sample (e->cpu_ns, just read)
 * to all that counts it: its user's share, its CPU's budget (scope
 * per-cpu), the engine's budget and stall cap, its statistics. In a step
 * (leaving false, between iso_engine_begin and commit) the engine places
 * it in the step; a thread that leaves ISO (isod_forget) is charged at
 * any moment, between steps too, and counted at the next commit
 * (iso_engine_charge). One function for both, so that leaving charges
 * what a step would have. Caller holds d->lock. */
void isod_account(struct isod *d, struct tracked *e, int64_t now_ns, bool leaving);
/* Called by the server thread: if the enforcer is late by a long while
 * for the check it planned (starved by RT tasks above it), nothing
 * polices the budget, so
 * demote every ISO thread until it runs again. Takes d->lock itself (or
 * gives up this time if it is held). */
void isod_watchdog(struct isod *d, int64_t now_ns);
/* When isod_watchdog would act if the enforcer kept to its present plan
 * (monotonic ns), or ISO_PLAN_NEVER: the server sleeps no longer. */
int64_t isod_watchdog_at(const struct isod *d);

#endif
