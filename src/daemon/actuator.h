/* actuator.h — the only way isod changes a thread's scheduling: the
 * backend's operations (backend.h) behind the crash handler's guard, so
 * no grant lands after the handler has demoted everything.
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone). */
#ifndef ISOD_ACTUATOR_H
#define ISOD_ACTUATOR_H

#include <stdbool.h>
#include <sys/types.h>

#include "backend.h"

/* Nothing is changed and every call succeeds (tests without privilege). */
void actuator_set_dry_run(bool dry);
/* Kernel SCHED_FIFO (fifo) or SCHED_RR at kernel priority kprio,
 * whatever the backend. */
int actuator_promote(pid_t tid, bool fifo, int kprio);
/* ISO through backend b (the caller's backend_current()). */
int actuator_grant(const struct backend *b, pid_t tid, const struct backend_grant *g);
/* Back to SCHED_OTHER at the thread's own nice level, through b. */
int actuator_demote(const struct backend *b, pid_t tid);
/* For the crash handler (crash.h), async-signal-safe both: */
/* Demote with system calls only — no lock, no allocation, on any backend. */
int actuator_demote_signal_safe(pid_t tid);
/* From now on every promotion and grant fails with -ECANCELED; one already
 * under way is waited for (at most 100 ms) and its thread demoted. After
 * it returns, no thread is made ISO again by this process. */
void actuator_die(void);
/* What the current backend runs the thread as now (backend.h: a thread
 * scx_iso runs as ISO reads as SCHED_EXT at its ISO priority). */
int actuator_query(pid_t tid, int *policy, int *prio, int *nice);
/* Does the thread carry SCHED_RESET_ON_FORK (as every isod grant does)?
 * 1 yes, 0 no, or a negative errno. */
int actuator_reset_on_fork(pid_t tid);

#endif
