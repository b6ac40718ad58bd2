/* enforcer.h — the sampling/enforcement thread: every sample_ms it reads
 * every ISO thread's CPU time, steps the engine and demotes or restores.
 * It runs as kernel SCHED_FIFO above the band, so no runaway ISO thread
 * can starve it; its work is a pread per thread and arithmetic.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ENFORCER_H
#define ISOD_ENFORCER_H

#include "isod.h"

int enforcer_start(struct isod *d, pthread_t *th);

#endif
