/* forkwatch.h — the kernel's process connector (netlink PROC_EVENT_FORK):
 * tells isod when an ISO thread forks a child process, so the child (which
 * RESET_ON_FORK started as SCHED_OTHER) can be adopted into ISO under the
 * same budget, as the patch's children inherit their policy. New threads
 * are not adopted here: their fork event names the process's parent, not
 * the creating thread. The preload shim passes ISO on to threads created
 * by an ISO thread (pthread_create with inherited scheduling).
 * PROC_EVENT_EXEC of a process with ISO threads triggers its stray check
 * (strays_exec): an exec from a non-main ISO thread leaves the program
 * kernel RT under the process id while isod's handle on the old TID fails.
 * With BPF accounting the program reports the same two things, filtered
 * in the kernel to tracked threads (acct_maps.h: lineage): the connector
 * is not followed at all, and the machine's fork churn never wakes isod.
 *
 * Return contract: 0 / an fd, or a negative errno. */
#ifndef ISOD_FORKWATCH_H
#define ISOD_FORKWATCH_H

#include "isod.h"
#include "proc_conn.h" /* forkwatch_open, forkwatch_follow */

/* Read pending events from fd: adopt children of tracked threads, check
 * processes with tracked threads that exec. Server thread, lock not held. */
void forkwatch_handle(struct isod *d, int fd);
/* A tracked thread parent_tid forked child_tid (a new process, child_tgid):
 * adopt it into ISO if inherit allows and it is still the parent's user's.
 * Caller holds d->lock. */
void forkwatch_adopt(struct isod *d, pid_t parent_tid, pid_t child_tid, pid_t child_tgid);

#endif
