/* actuator.h — the only place isod changes a thread's kernel policy.
 * Promotion is always SCHED_FLAG_RESET_ON_FORK, so no child or new thread
 * of an ISO thread starts as kernel RT unpoliced. In dry-run mode nothing
 * is changed and every call succeeds (tests without privilege).
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone). */
#ifndef ISOD_ACTUATOR_H
#define ISOD_ACTUATOR_H

#include <stdbool.h>
#include <sys/types.h>

void actuator_set_dry_run(bool dry);
/* Kernel SCHED_FIFO (fifo) or SCHED_RR at kernel priority kprio. */
int actuator_promote(pid_t tid, bool fifo, int kprio);
/* ISO through the active backend (backend.h): on scx_iso the thread is
 * made SCHED_OTHER and marked with its ISO priority prio and own limit;
 * otherwise, or should scx_iso be gone, actuator_promote(tid, fifo, kprio). */
int actuator_grant(pid_t tid, bool fifo, int kprio, int prio, unsigned limit);
/* Back to SCHED_OTHER at the thread's own nice level. */
int actuator_demote(pid_t tid);
/* For the crash handler (crash.h), async-signal-safe both: */
/* Demote with system calls only — no lock, no allocation, on any backend. */
int actuator_demote_signal_safe(pid_t tid);
/* From now on every promotion and grant fails with -ECANCELED; one already
 * under way is waited for (at most 100 ms) and its thread demoted. After
 * it returns, no thread is made ISO again by this process. */
void actuator_die(void);
/* What the kernel runs the thread as now. A thread scx_iso runs as ISO
 * reads as SCHED_EXT (7) at its ISO priority. */
int actuator_query(pid_t tid, int *policy, int *prio, int *nice);
/* Does the thread carry SCHED_RESET_ON_FORK (as every isod grant does)?
 * 1 yes, 0 no, or a negative errno. */
int actuator_reset_on_fork(pid_t tid);

#endif
