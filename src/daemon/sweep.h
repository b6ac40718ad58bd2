/* sweep.h — the fail-safe for a lost or stale state file. isod records
 * every grant before acknowledging it (and undoes grants it cannot
 * record); still, if the record is lost or damaged while isod is down,
 * threads it made RT would run unpoliced. At start-up, after recovering
 * what the file lists, isod therefore demotes every other thread that
 * looks like one of its grants and that nobody else can account for:
 *
 *   - kernel SCHED_FIFO/RR at a priority inside the band, with
 *     SCHED_RESET_ON_FORK (isod always sets it);
 *   - owned by a non-root user (real and effective uid);
 *   - whose process could not have asked for it itself (RLIMIT_RTPRIO
 *     below the priority) and is not served by rtkit (no RLIMIT_RTTIME).
 *
 * Root's threads and users' own RLIMIT_RTPRIO/rtkit threads are never
 * touched. Turned off with sweep_orphans = no.
 *
 * Return contract: the number of threads demoted, or a negative errno. */
#ifndef ISOD_SWEEP_H
#define ISOD_SWEEP_H

#include "isod.h"

/* Caller holds d->lock (tracked threads are skipped). */
int sweep_orphans(struct isod *d);

#endif
