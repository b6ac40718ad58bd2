/* rtkit_req.c — RealtimeKit1 requests on isod's request path. */
#include "rtkit_req.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iso_policy.h"
#include "log.h"
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

/* A thread that exists (for the caller) but is not of its process is
 * rtkit's "Operation not permitted", not a missing one. */
static void from_reply(struct isod *d, const struct peer *p, int32_t ns_tid,
		       struct rtkit_answer *a, const struct iso_reply *rep)
{
	struct thread_status st;
	pid_t tid;

	if (!rep->err)
		return;
	if (rep->err == -ESRCH && ns_tid > 0 && map_client_tid(d->proc, p->pid, ns_tid, &tid) == 0 &&
	    read_thread_status(d->proc, tid, &st) == 0 && st.tgid != p->pid) {
		char why[200];

		snprintf(why, sizeof(why), "thread %d is not of the calling process", (int)ns_tid);
		rtkit_answer_error(a, -EPERM, why);
		return;
	}
	rtkit_answer_error(a, rep->err, rep->text);
}

void rtkit_serve(struct isod *d, const struct peer *peer, const struct rtkit_call *c,
		 struct rtkit_answer *a)
{
	struct iso_reply rep;
	int32_t own;
	char why[200];

	if (!rtkit_check_args(c, a))
		return;
	switch (c->method) {
	case RTKIT_RESET_KNOWN:
	case RTKIT_RESET_ALL:
		a->changed = handle_reset(d, peer, &rep) != HANDLE_READ_ONLY;
		from_reply(d, peer, 0, a, &rep);
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
	/* the thread must be of the caller's own process (rtkit's rule); the
	 * …WithPID forms only name it, in the caller's PID namespace */
	if (with_pid(c->method) && c->process != (uint64_t)own) {
		snprintf(why, sizeof(why), "process %llu is not the caller (pid %d in its namespace)",
			 (unsigned long long)c->process, (int)own);
		rtkit_answer_error(a, -EPERM, why);
		return;
	}
	if (is_realtime(c->method)) {
		a->changed = handle_set(d, peer, own, (int32_t)c->thread, ISO_POLICY_ISO_RR,
					(int)c->priority, 0, &rep) == HANDLE_GRANTED;
	} else {
		handle_nice(d, peer, own, (int32_t)c->thread, (int)c->priority, &rep);
	}
	from_reply(d, peer, (int32_t)c->thread, a, &rep);
}
