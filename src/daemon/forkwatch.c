/* forkwatch.c — adoption of children of ISO threads; exec events of
 * processes with ISO threads (strays.h). */
#include "forkwatch.h"

#include <errno.h>
#include <time.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "admit.h"
#include "grants.h"
#include "log.h"
#include "procinfo.h"
#include "strays.h"

void forkwatch_adopt(struct isod *d, pid_t parent_tid, pid_t child_tid, pid_t child_tgid)
{
	struct thread_status st;
	struct tracked *p = tasks_find(&d->tasks, parent_tid);
	struct grant g = { 0 };
	char why[160];
	int r;

	/* Only new processes (forkwatch_handle): for a new thread the kernel
	 * reports the process's parent (real_parent), not the thread that
	 * created it, so isod cannot tell whether an ISO thread did. New
	 * threads start SCHED_OTHER; the preload shim passes ISO on in
	 * pthread_create. */
	if (!d->cfg.inherit || !p || tasks_find(&d->tasks, child_tid))
		return;
	/* a reservation is its thread's declared work alone: its children
	 * start SCHED_OTHER (RESET_ON_FORK) and stay so (reserve.h) */
	if (p->dl.runtime_ns || p->dl_why)
		return;
	if (read_thread_status(d->proc, child_tid, &st) < 0 || st.tgid != child_tgid)
		return;
	/* a child that changed identity (setuid exec) is not the parent's */
	if (st.ruid != p->uid && st.euid != p->uid)
		return;
	/* the rules a request and a recovery pass (admit.h), for the child
	 * as it is now: the allow lists for its groups, its parent's limit
	 * under max_limit, no program that changes identity */
	if (isod_admit_user(d, p->uid, st.egid, st.groups, st.ngroups, p->core.limit, why,
			    sizeof(why)) < 0 ||
	    isod_admit_thread(&st, p->uid == 0, why, sizeof(why)) < 0) {
		log_debug("not adopting thread %d (child of %d): %s; it stays SCHED_OTHER",
			  (int)child_tid, (int)parent_tid, why);
		return;
	}
	g.pid = child_tgid;
	g.tid = child_tid;
	g.uid = p->uid;
	/* checked again once the child is pinned (isod_grant) */
	g.by = p->uid;
	g.starttime = 0;
	g.policy = p->policy;
	g.prio = p->prio;
	g.limit = p->core.limit;
	g.flags = ISO_THREAD_ADOPTED;
	g.pin = NULL;
	r = isod_grant(d, &g, NULL);
	if (r < 0)
		log_debug_errno(r, "not adopting thread %d (child of %d); it stays SCHED_OTHER",
				(int)child_tid, (int)parent_tid);
}

void forkwatch_handle(struct isod *d, int fd)
{
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *nl;
		int len = (int)n;

		for (nl = (struct nlmsghdr *)buf; NLMSG_OK(nl, (unsigned)len); nl = NLMSG_NEXT(nl, len)) {
			struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event ev;

			if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(ev)))
				continue;
			/* the event follows a 20-byte header: copy it out, it is
			 * not aligned for its 8-byte members */
			memcpy(&ev, cn->data, sizeof(ev));
			/* the whole machine's execs come by here: only those of
			 * processes with tracked threads need a look (a lock-free
			 * filter; a false positive costs one table walk) */
			if (ev.what == PROC_EVENT_EXEC) {
				if (tasks_may_track_pid(&d->tasks, ev.event_data.exec.process_tgid))
					(void)strays_exec(d, ev.event_data.exec.process_tgid);
				continue;
			}
			/* and its forks and thread creations: drop what cannot
			 * be adopted before taking the lock */
			if (ev.what != PROC_EVENT_FORK || !d->cfg.inherit ||
			    ev.event_data.fork.child_pid != ev.event_data.fork.child_tgid)
				continue;
			pthread_mutex_lock(&d->lock);
			forkwatch_adopt(d, ev.event_data.fork.parent_pid,
					ev.event_data.fork.child_pid, ev.event_data.fork.child_tgid);
			pthread_mutex_unlock(&d->lock);
		}
	}
	if (n < 0 && errno == ENOBUFS) {
		/* the kernel dropped events (a fork storm): the children they
		 * named stay SCHED_OTHER, which is safe, but say so */
		static time_t last;
		time_t now = time(NULL);

		if (now - last >= 10) {
			last = now;
			log_warning("proc connector overflowed: some children of ISO threads were not adopted and stay SCHED_OTHER");
		}
	}
}
