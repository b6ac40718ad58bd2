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
/* Called by the server thread: if the enforcer is late by a long while
 * for the check it planned (starved by RT tasks above it), nothing
 * polices the budget, so
 * demote every ISO thread until it runs again. Takes d->lock itself (or
 * gives up this time if it is held). */
void isod_watchdog(struct isod *d, int64_t now_ns);
/* When isod_watchdog would act if the enforcer kept to its present plan
 * (monotonic ns), or ISO_PLAN_NEVER: the server sleeps no longer. */
int64_t isod_watchdog_at(const struct isod *d);

/* Hand the BPF accounting's reports to the enforcer's side (a tracked
 * thread's exit: forget it; a wake: plan again). Main thread, once, after
 * isod_init; undone by isod_destroy. 0 or a negative errno. */
int isod_police_reports(struct isod *d);

#endif
