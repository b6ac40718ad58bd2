/* forkwatch.h — the kernel's process connector (netlink PROC_EVENT_FORK):
 * tells isod when an ISO thread forks or creates a thread, so the newcomer
 * (which RESET_ON_FORK started as SCHED_OTHER) can be adopted into ISO
 * under the same budget, as the patch's children inherit their policy.
 *
 * Return contract: 0 / an fd, or a negative errno. */
#ifndef ISOD_FORKWATCH_H
#define ISOD_FORKWATCH_H

#include "isod.h"

int forkwatch_open(void);
/* Read pending events from fd and adopt children of tracked threads. */
void forkwatch_handle(struct isod *d, int fd);

#endif
