/* proc_conn.h — the kernel's process connector socket (netlink
 * PROC_EVENT_*), which forkwatch.c reads: opening it, and following its
 * events only while isod tracks a thread. Below the grant table, which
 * follows them again at a grant (forkwatch.h says what is done with them).
 *
 * Return contract: an fd, or a negative errno. */
#ifndef ISOD_PROC_CONN_H
#define ISOD_PROC_CONN_H

#include <stdbool.h>

struct isod;

int forkwatch_open(void);
/* Join (on) or leave the connector's events on d->forkfd: isod follows
 * the machine's forks and execs only while it tracks a thread, so an idle
 * isod is not woken by every fork on the machine. Caller holds d->lock. */
void forkwatch_follow(struct isod *d, bool on);

#endif
