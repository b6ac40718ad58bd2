/* forkwatch.h — the kernel's process connector (netlink PROC_EVENT_FORK):
 * tells isod when an ISO thread forks a child process, so the child (which
 * RESET_ON_FORK started as SCHED_OTHER) can be adopted into ISO under the
 * same budget, as the patch's children inherit their policy. New threads
 * are not adopted here: their fork event names the process's parent, not
 * the creating thread. The preload shim passes ISO on to threads created
 * by an ISO thread (pthread_create with inherited scheduling).
 *
 * Return contract: 0 / an fd, or a negative errno. */
#ifndef ISOD_FORKWATCH_H
#define ISOD_FORKWATCH_H

#include "isod.h"

int forkwatch_open(void);
/* Read pending events from fd and adopt children of tracked threads. */
void forkwatch_handle(struct isod *d, int fd);

#endif
