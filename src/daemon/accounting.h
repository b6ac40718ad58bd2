/* accounting.h — where a thread's CPU time comes from, as one set of
 * operations beside the scheduler's (backend.h). One implementation today:
 *
 *  proc  /proc/PID/task/TID/schedstat through the task table's identity
 *        handle (accounting_proc.c).
 *
 * A BPF accounting (per-CPU run time counted in the kernel) is a second
 * file implementing the same struct; isod_init chooses (isod.h: d->acct).
 * Called under the daemon's lock, from the server (a new grant's baseline)
 * and the enforcer (every sample).
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone). */
#ifndef ISOD_ACCOUNTING_H
#define ISOD_ACCOUNTING_H

#include <stdint.h>

#include "tasks.h"

struct accounting {
	const char *name;
	/* Re-read e's cumulative CPU time and run-queue wait into e->cpu_ns
	 * and e->wait_ns (the burst guard's); -EBADMSG if unreadable. */
	int (*sample)(struct tracked *e);
	/* Its voluntary context switches (~10 us on proc: only for threads
	 * the burst guard suspects). proc: the /proc root isod reads. */
	int (*voluntary_switches)(const char *proc, const struct tracked *e, uint64_t *nvcsw);
};

extern const struct accounting accounting_proc;

#endif
