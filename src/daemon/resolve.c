/* resolve.c — a request's thread, from the client's ids to a pinned
 * thread of ours, and the refusals that say why not (handler.c). */
#include "resolve.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nsmap.h"
#include "peer.h"

void reply_refuse(struct iso_reply *rep, int err, const char *fmt, ...)
{
	va_list ap;

	rep->err = err;
	va_start(ap, fmt);
	vsnprintf(rep->text, sizeof(rep->text), fmt, ap);
	va_end(ap);
}

/* A kernel before 6.11 cannot translate the client's thread id: the walk
 * of its namespace that looks for it stopped at this request's share
 * (nsmap_walk.h). libisosched asks again by itself. */
static int still_looking(struct iso_reply *rep, int32_t ns_tid)
{
	reply_refuse(rep, -EINPROGRESS, "still looking for thread %d in your PID namespace "
	       "(a kernel before 6.11 cannot translate it): ask again", (int)ns_tid);
	return -EINPROGRESS;
}

/* Resolve (pid, tid) of the client's namespace to a thread of ours. With
 * pin (a grant), the thread is pinned (tasks_open) before its status is
 * read: what the caller checks is then the pinned thread's, once
 * isod_grant finds the handle still working, and isod_grant need not
 * read it again. The caller closes pin (tasks_unpin) unless isod_grant
 * took it. */
int resolve_thread(struct isod *d, const struct peer *p, int32_t ns_pid,
		   int32_t ns_tid, pid_t *tid, struct thread_status *st,
		   struct tracked *pin, struct iso_reply *rep)
{
	int r;

	if (pin) {
		memset(pin, 0, sizeof(*pin));
		pin->statfd = -1;
	}
	if (ns_tid <= 0 || ns_pid < 0) {
		reply_refuse(rep, -EINVAL, "thread id must be positive");
		return -EINVAL;
	}
	if (!peer_current(d, p)) {
		reply_refuse(rep, -ESRCH, "the process that opened this connection has exited; connect again");
		return -ESRCH;
	}
	r = map_client_tid(&d->nsmap, d->proc, p->pid, p->pidns, ns_tid, tid);
	if (r == -EINPROGRESS)
		return still_looking(rep, ns_tid);
	if (r == 0 && pin)
		r = tasks_open(d->proc, *tid, *tid, pin); /* /proc/TID/task/TID */
	if (r == 0)
		r = read_thread_status(d->proc, *tid, st);
	/* still the thread the client named, now that it is pinned */
	if (r == 0)
		r = map_client_check(&d->nsmap, d->proc, p->pid, p->pidns, *tid, ns_tid);
	if (r < 0) {
		tasks_unpin(pin);
		reply_refuse(rep, -ESRCH, "no thread %d", (int)ns_tid);
		return -ESRCH;
	}
	if (pin)
		pin->pid = st->tgid;
	if (ns_pid) {
		pid_t pid;
		r = map_client_tid(&d->nsmap, d->proc, p->pid, p->pidns, ns_pid, &pid);
		if (r == -EINPROGRESS) {
			tasks_unpin(pin);
			return still_looking(rep, ns_pid);
		}
		if (r < 0 || pid != st->tgid) {
			tasks_unpin(pin);
			reply_refuse(rep, -ESRCH, "thread %d is not in process %d",
			       (int)ns_tid, (int)ns_pid);
			return -ESRCH;
		}
	}
	return 0;
}

