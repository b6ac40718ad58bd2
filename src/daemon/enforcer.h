/* enforcer.h — the enforcement thread: at each check it reads every ISO
 * thread's CPU time, steps the engine and demotes or restores. Checks come
 * at the earliest moment a decision can change (iso_plan.h), never closer
 * than sample_ms, and not at all while no thread has ISO; a grant, a
 * release, an exit or a retune wakes it to plan again (isod_replan).
 * It runs as kernel SCHED_FIFO above the band, so no runaway ISO thread
 * can starve it; its work is a pread per thread and arithmetic.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ENFORCER_H
#define ISOD_ENFORCER_H

#include "isod.h"

int enforcer_start(struct isod *d, pthread_t *th);

#endif
