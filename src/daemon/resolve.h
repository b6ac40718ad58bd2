/* resolve.h — the thread a request names, from the client's PID namespace
 * to a thread of ours, pinned when it is to be granted; and the refusal
 * that fills a reply's error and text (the request path: handler.c).
 *
 * Return contract: 0 or a negative errno, the reply filled with why
 * (-EINVAL, -ESRCH; -EINPROGRESS: a kernel before 6.11 is still walking
 * the client's namespace, ask again: nsmap_walk.h). */
#ifndef ISOD_RESOLVE_H
#define ISOD_RESOLVE_H

#include <stdint.h>
#include <sys/types.h>

#include "iso_proto.h"
#include "isod.h"
#include "peer.h"
#include "procinfo.h"
#include "tasks.h"

/* rep's err and text. */
void reply_refuse(struct iso_reply *rep, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Resolve (ns_pid, ns_tid) of the client's namespace (ns_pid 0: any
 * process) to tid, ours, and its status st. With pin (a grant), the thread
 * is pinned (tasks_open) before its status is read: what the caller
 * checks is then the pinned thread's, once isod_grant finds the handle
 * still working. The caller closes pin (tasks_unpin) unless isod_grant
 * took it. */
int resolve_thread(struct isod *d, const struct peer *p, int32_t ns_pid, int32_t ns_tid,
		   pid_t *tid, struct thread_status *st, struct tracked *pin,
		   struct iso_reply *rep);

#endif
