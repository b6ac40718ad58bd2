/* rtkit_req.c — RealtimeKit1 requests on isod's request path. */
#include "rtkit_req.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iso_policy.h"
#include "log.h"
#include "nsmap.h"
#include "procinfo.h"

void rtkit_answer_error(struct rtkit_answer *a, int err, const char *reason)
{
	const char *what;

	/* the names and strerror texts rtkit 0.13 gives for the same cases
	 * (clients match on the name; people read the rest) */
	switch (err) {
	case -EPERM:
		a->error = RTKIT_ERR_ACCESS_DENIED;
		what = "Operation not permitted";
		break;
	case -EAGAIN:
	case -EBUSY:
	case -EINPROGRESS: /* a namespace walk before 6.11: rtkit's clients do
			    * not ask again, nor should they wait (nsmap_walk.h) */
		a->error = RTKIT_ERR_ACCESS_DENIED;
		what = "Device or resource busy";
		break;
	case -EINVAL:
		a->error = RTKIT_ERR_FAILED;
		what = "Invalid argument";
		break;
	case -ESRCH:
	case -ENOENT:
		a->error = RTKIT_ERR_FAILED;
		what = "No such file or directory";
		break;
	default:
		a->error = RTKIT_ERR_FAILED;
		what = err < 0 && err > -4096 ? strerror(-err) : "Unknown error";
		break;
	}
	snprintf(a->message, sizeof(a->message), "%s: %s", what, reason ? reason : "");
}

static bool is_realtime(enum rtkit_method m)
{
	return m == RTKIT_MAKE_REALTIME || m == RTKIT_MAKE_REALTIME_PID;
}

static bool with_pid(enum rtkit_method m)
{
	return m == RTKIT_MAKE_REALTIME_PID || m == RTKIT_MAKE_HIGH_PRIORITY_PID;
}

bool rtkit_check_args(const struct rtkit_call *c, struct rtkit_answer *a)
{
	char why[160];

	memset(a, 0, sizeof(*a));
	if (c->method > RTKIT_EXIT) {
		rtkit_answer_error(a, -EINVAL, "unknown method");
		return false;
	}
	if (c->method >= RTKIT_RESET_KNOWN)
		return true;
	if (c->thread == 0 || c->thread > INT32_MAX) {
		snprintf(why, sizeof(why), "thread id %llu is not a thread id",
			 (unsigned long long)c->thread);
		rtkit_answer_error(a, -EINVAL, why);
		return false;
	}
	if (with_pid(c->method) && (c->process == 0 || c->process > INT32_MAX)) {
		snprintf(why, sizeof(why), "process id %llu is not a process id",
			 (unsigned long long)c->process);
		rtkit_answer_error(a, -EINVAL, why);
		return false;
	}
	if (is_realtime(c->method)) {
		if (c->priority < 1 || c->priority > 99) {
			snprintf(why, sizeof(why), "real-time priority %lld is not 1..99",
				 (long long)c->priority);
			rtkit_answer_error(a, -EINVAL, why);
			return false;
		}
		if (c->priority > RTKIT_MAX_REALTIME_PRIORITY) {
			snprintf(why, sizeof(why), "real-time priority %lld is above MaxRealtimePriority %d",
				 (long long)c->priority, RTKIT_MAX_REALTIME_PRIORITY);
			rtkit_answer_error(a, -EPERM, why);
			return false;
		}
		return true;
	}
	if (c->priority < -20 || c->priority > 19) {
		snprintf(why, sizeof(why), "nice level %lld is not -20..19", (long long)c->priority);
		rtkit_answer_error(a, -EINVAL, why);
		return false;
	}
	if (c->priority < RTKIT_MIN_NICE_LEVEL) {
		snprintf(why, sizeof(why), "nice level %lld is below MinNiceLevel %d",
			 (long long)c->priority, RTKIT_MIN_NICE_LEVEL);
		rtkit_answer_error(a, -EPERM, why);
		return false;
	}
	return true;
}

/* The caller's own pid as it sees it: the innermost of its NSpid. */
static int caller_ns_pid(struct isod *d, const struct peer *p, int32_t *out)
{
	struct thread_status st;
	uint64_t start;
	int r = read_thread_status(d->proc, p->pid, &st);

	if (r < 0)
		return r;
	/* still the process that sent the request (pinned by start time) */
	if (p->starttime && (read_thread_starttime(d->proc, p->pid, &start) < 0 ||
			     start != p->starttime))
		return -ESRCH;
	*out = st.n_nspid ? st.nspid[st.n_nspid - 1] : p->pid;
	return 0;
}

/* A thread that exists (for the caller) but is not of the process named
 * (ns_pid, the caller's own for the forms without one) is rtkit's
 * "Operation not permitted", not a missing one. */
static void from_reply(struct isod *d, const struct peer *p, int32_t ns_pid, int32_t ns_tid,
		       struct rtkit_answer *a, const struct iso_reply *rep)
{
	struct thread_status st;
	pid_t tid, pid;

	if (!rep->err)
		return;
	if (rep->err == -ESRCH && ns_tid > 0 && map_client_tid(&d->nsmap, d->proc, p->pid, p->pidns, ns_tid, &tid) == 0 &&
	    map_client_tid(&d->nsmap, d->proc, p->pid, p->pidns, ns_pid, &pid) == 0 &&
	    read_thread_status(d->proc, tid, &st) == 0 && st.tgid != pid) {
		char why[200];

		snprintf(why, sizeof(why), "thread %d is not of process %d", (int)ns_tid, (int)ns_pid);
		rtkit_answer_error(a, -EPERM, why);
		return;
	}
	rtkit_answer_error(a, rep->err, rep->text);
}

/* The process a …WithPID call names, when it is not the caller: it must be
 * visible in the caller's PID namespace and of the caller's user — rtkit's
 * rule (the process's owner is the caller's uid), so that the Realtime
 * portal, which forwards a sandboxed app's pid, is served. The same rule
 * as the socket's requests naming another process (handler.c); isod still
 * pins and re-checks the thread's owner when it grants. 0, -ESRCH or
 * -EPERM with why. */
static int other_process_check(struct isod *d, const struct peer *p, uint64_t process,
			       char *why, size_t len)
{
	struct thread_status st;
	pid_t pid;

	if (map_client_tid(&d->nsmap, d->proc, p->pid, p->pidns, (int32_t)process, &pid) < 0 ||
	    read_thread_status(d->proc, pid, &st) < 0 || st.tgid != pid) {
		snprintf(why, len, "no process %llu", (unsigned long long)process);
		return -ESRCH;
	}
	if (iso_check_owner(p->uid, p->uid == 0, st.ruid, st.euid) < 0) {
		snprintf(why, len, "process %llu belongs to another user", (unsigned long long)process);
		return -EPERM;
	}
	return 0;
}

void rtkit_serve(struct isod *d, const struct peer *peer, const struct rtkit_call *c,
		 struct rtkit_answer *a)
{
	struct iso_reply rep;
	int32_t own, target;
	char why[200];
	int r;

	if (!rtkit_check_args(c, a))
		return;
	switch (c->method) {
	case RTKIT_RESET_KNOWN:
	case RTKIT_RESET_ALL:
		a->changed = handle_reset(d, peer, &rep) != HANDLE_READ_ONLY;
		from_reply(d, peer, 0, 0, a, &rep);
		return;
	case RTKIT_EXIT:
		if (peer->uid != 0) {
			rtkit_answer_error(a, -EPERM, "only root may stop isod");
			return;
		}
		log_info("Exit requested over D-Bus by pid %d", (int)peer->pid);
		a->exit = true;
		return;
	default:
		break;
	}
	if (caller_ns_pid(d, peer, &own) < 0) {
		rtkit_answer_error(a, -ESRCH, "the calling process has exited");
		return;
	}
	/* the thread is of the caller's own process, or of the process a
	 * …WithPID form names, in the caller's PID namespace */
	target = with_pid(c->method) ? (int32_t)c->process : own;
	if (target != own && (r = other_process_check(d, peer, c->process, why, sizeof(why))) < 0) {
		rtkit_answer_error(a, r, why);
		return;
	}
	if (is_realtime(c->method)) {
		a->changed = handle_set(d, peer, target, (int32_t)c->thread, ISO_POLICY_ISO_RR,
					(int)c->priority, 0, &rep) == HANDLE_GRANTED;
	} else {
		handle_nice(d, peer, target, (int32_t)c->thread, (int)c->priority, &rep);
	}
	from_reply(d, peer, target, (int32_t)c->thread, a, &rep);
}
