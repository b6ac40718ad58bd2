/* handler.c — request validation, authorization and dispatch. */
#include "handler.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "actuator.h"
#include "admit.h"
#include "grants.h"
#include "iso_policy.h"
#include "log.h"
#include "peer.h"
#include "schedule.h"
#include "nsmap.h"
#include "procinfo.h"
#include "reserve.h"
#include "resolve.h"

static void fill_kernel_only(pid_t tid, const struct thread_status *st,
			     struct iso_thread_info *o)
{
	int pol = 0, prio = 0, nice = 0;

	memset(o, 0, sizeof(*o));
	o->tid = tid;
	o->pid = st->tgid;
	o->uid = st->ruid;
	o->policy = ISO_POLICY_NORMAL;
	if (actuator_query(tid, &pol, &prio, &nice) == 0) {
		o->kernel_policy = pol;
		o->kernel_prio = prio;
		o->user_prio = iso_user_prio(pol, prio, nice);
	}
}

/* dl: NULL, or a reservation (a RESERVE request, reserve.h) */
static void do_set(struct isod *d, const struct peer *p, const struct iso_req *req,
		   const struct iso_reserve_params *dl, struct iso_reply *rep)
{
	struct thread_status st;
	struct tracked *e = NULL, pin = { .statfd = -1 };
	struct grant g = { 0 };
	uint64_t left = 0;
	char why[120];
	pid_t tid;
	int policy, r;

	policy = iso_downgrade(req->u.set.policy, false);
	if (policy != ISO_POLICY_NORMAL && !iso_policy_is_iso(policy)) {
		reply_refuse(rep, -EINVAL, "policy %d is not ISO_RR, ISO_FIFO, FIFO, RR or NORMAL",
		       (int)req->u.set.policy);
		return;
	}
	if (iso_check_param(policy, req->u.set.prio) < 0) {
		reply_refuse(rep, -EINVAL, "priority %d is invalid for %s (1..99 for ISO, 0 for NORMAL)",
		       (int)req->u.set.prio, iso_policy_name(policy));
		return;
	}
	if (req->u.set.limit < 0 || req->u.set.limit > 100) {
		reply_refuse(rep, -EINVAL, "limit %d is not a percentage (0..100)", (int)req->u.set.limit);
		return;
	}
	/* the rules a recovered grant passes too (admit.h) */
	if (isod_admit_user(d, p->uid, p->gid, p->groups, p->ngroups, (unsigned)req->u.set.limit,
			    why, sizeof(why)) < 0) {
		reply_refuse(rep, -EPERM, "%s", why);
		return;
	}
	if (resolve_thread(d, p, req->u.set.pid, req->u.set.tid, &tid, &st,
		    policy == ISO_POLICY_NORMAL ? NULL : &pin, rep) < 0)
		return;
	if (iso_check_owner(p->uid, p->uid == 0, st.ruid, st.euid) < 0) {
		tasks_unpin(&pin);
		reply_refuse(rep, -EPERM, "thread %d belongs to another user", (int)req->u.set.tid);
		return;
	}
	if (policy != ISO_POLICY_NORMAL && isod_admit_thread(&st, p->uid == 0, why, sizeof(why)) < 0) {
		tasks_unpin(&pin);
		reply_refuse(rep, -EPERM, "thread %d: %s", (int)req->u.set.tid, why);
		return;
	}
	/* for a grant, the check above read the pinned thread (resolve):
	 * isod_grant proves the pin still holds before anything changes.
	 * For a release it read /proc before anything was pinned: it only
	 * refuses early with a clear message; isod_confirm on the tracked
	 * entry checks the owner again through its handle */
	pthread_mutex_lock(&d->lock);
	if (policy == ISO_POLICY_NORMAL) {
		e = tasks_find(&d->tasks, tid);
		r = e ? isod_confirm(d, e, p->uid, 0) : 0;
		if (r == -EPERM) {
			reply_refuse(rep, r, "thread %d belongs to another user", (int)req->u.set.tid);
			pthread_mutex_unlock(&d->lock);
			return;
		}
		r = isod_release(d, tid);
		if (r < 0)
			reply_refuse(rep, r, "cannot return thread %d to SCHED_OTHER", (int)tid);
		else
			fill_kernel_only(tid, &st, &rep->thread);
		pthread_mutex_unlock(&d->lock);
		return;
	}
	g.pid = st.tgid;
	g.tid = tid;
	g.uid = st.ruid;
	g.by = p->uid;
	g.starttime = 0;
	g.policy = policy;
	g.prio = req->u.set.prio;
	g.limit = (unsigned)req->u.set.limit;
	g.flags = 0;
	g.pin = &pin;
	g.dl = dl;
	g.dl_left = &left;
	r = isod_grant(d, &g, &e);
	tasks_unpin(&pin); /* not taken: the thread was tracked already, or refused */
	if (r == -EBUSY && dl) {
		rep->err = r;
		reserve_refusal(d, dl, left, rep->text, sizeof(rep->text));
	} else if (r == -EAGAIN)
		reply_refuse(rep, r, "too many ISO threads (max %u per user, %u in all)",
		       d->cfg.max_threads_per_user, d->cfg.max_threads);
	else if (r == -ESRCH)
		reply_refuse(rep, r, "thread %d is gone", (int)req->u.set.tid);
	else if (r == -EPERM)
		reply_refuse(rep, r, "thread %d belongs to another user", (int)req->u.set.tid);
	else if (r < 0)
		reply_refuse(rep, r, "cannot set thread %d: %s", (int)req->u.set.tid, strerror(-r));
	else
		isod_thread_info(d, e, &rep->thread);
	if (r == 0 && dl)
		reserve_describe(d, e, rep->text, sizeof(rep->text));
	pthread_mutex_unlock(&d->lock);
}

/* A declared reservation: the SET of an ISO_FIFO thread with its
 * SCHED_DEADLINE parameters (reserve.h). */
static void do_reserve(struct isod *d, const struct peer *p, const struct iso_req *req,
		       struct iso_reply *rep)
{
	struct iso_reserve_params dl;
	struct iso_req set;

	if (reserve_request(req, &set, &dl, rep) == 0)
		do_set(d, p, &set, &dl, rep);
}

static void do_get(struct isod *d, const struct peer *p, const struct iso_req *req,
		   struct iso_reply *rep)
{
	struct thread_status st;
	struct tracked *e;
	pid_t tid;

	/* like SET: a user the administrator left out of allow_users /
	 * allow_groups learns nothing about threads, and cannot make isod map
	 * thread ids from a PID namespace for it */
	if (!peer_allowed(d, p)) {
		reply_refuse(rep, -EPERM, "user %u is not allowed ISO scheduling (allow_users/allow_groups)",
		       (unsigned)p->uid);
		return;
	}
	if (resolve_thread(d, p, req->u.get.pid, req->u.get.tid, &tid, &st, NULL, rep) < 0)
		return;
	pthread_mutex_lock(&d->lock);
	e = tasks_find(&d->tasks, tid);
	if (e)
		isod_thread_info(d, e, &rep->thread);
	else
		fill_kernel_only(tid, &st, &rep->thread);
	pthread_mutex_unlock(&d->lock);
}

static void do_status(struct isod *d, const struct iso_req *req, struct iso_reply *rep,
		      struct iso_thread_info *threads)
{
	uint32_t skip = req->u.status.offset, n = 0;

	pthread_mutex_lock(&d->lock);
	isod_status_info(d, &rep->status);
	TASKS_FOREACH(&d->tasks, e) {
		if (n >= ISO_PROTO_PAGE)
			break;
		if (skip) {
			skip--;
			continue;
		}
		isod_thread_info(d, e, &threads[n++]);
	}
	pthread_mutex_unlock(&d->lock);
	rep->status.offset = req->u.status.offset;
	rep->status.count = n;
	rep->threads = threads;
}

static void do_tune(struct isod *d, const struct peer *p, const struct iso_req *req,
		    struct iso_reply *rep)
{
	struct iso_tunables t;
	const char *why;

	if (p->uid != 0) {
		reply_refuse(rep, -EPERM, "only root may change the tunables");
		return;
	}
	if (req->u.tune.iso_cpu < 0 || req->u.tune.iso_period_s < 0) {
		reply_refuse(rep, -EINVAL, "tunables must not be negative");
		return;
	}
	if (req->u.tune.has_user_cpu &&
	    (req->u.tune.user_cpu < 0 || req->u.tune.user_cpu > ISO_USER_CPU_MAX)) {
		reply_refuse(rep, -EINVAL, "user_cpu must be a percentage of iso_cpu from 0 (off) to 100");
		return;
	}
	pthread_mutex_lock(&d->lock);
	t = d->engine.tun;
	if (req->u.tune.iso_cpu)
		t.iso_cpu = (unsigned)req->u.tune.iso_cpu;
	if (req->u.tune.iso_period_s)
		t.iso_period_s = (unsigned)req->u.tune.iso_period_s;
	if (iso_tunables_check(&t, &why) < 0) {
		reply_refuse(rep, -EINVAL, "%s", why);
	} else {
		iso_engine_retune(&d->engine, &t);
		if (req->u.tune.has_user_cpu) {
			(void)iso_share_retune(&d->share, (unsigned)req->u.tune.user_cpu);
			d->cfg.user_cpu = (unsigned)req->u.tune.user_cpu;
		}
		isod_replan(d); /* new limits: a new next check */
		log_info("tunables now iso_cpu=%u iso_period=%u user_cpu=%u", t.iso_cpu,
			 t.iso_period_s, d->share.user_cpu);
	}
	isod_status_info(d, &rep->status);
	pthread_mutex_unlock(&d->lock);
}

/* Per-user shares (user_cpu): anyone, like STATUS. */
static void do_users(struct isod *d, const struct iso_req *req, struct iso_reply *rep)
{
	pthread_mutex_lock(&d->lock);
	(void)isod_users_page(d, req->u.users.offset, &rep->users, d->user_page);
	pthread_mutex_unlock(&d->lock);
	rep->user_list = d->user_page;
}

/* isoctl top's one request: everything it shows (events.h). */
static void do_top(struct isod *d, const struct iso_req *req, struct iso_reply *rep)
{
	pthread_mutex_lock(&d->lock);
	isod_top_page(d, req->u.top.offset, &d->top_page);
	pthread_mutex_unlock(&d->lock);
	rep->top = &d->top_page;
}

/* The stray auditor's counts (stray_log.h): anyone, like STATUS. */
static void do_strays(struct isod *d, struct iso_reply *rep)
{
	pthread_mutex_lock(&d->lock);
	stray_log_info(&d->stray_log, &rep->strays);
	rep->strays.policing = d->cfg.sweep_orphans && !d->cfg.dry_run;
	pthread_mutex_unlock(&d->lock);
}

/* A refused SET is one of the events top shows: who asked, for what. */
static void note_refusal(struct isod *d, const struct peer *p, int32_t ns_tid, int err)
{
	pthread_mutex_lock(&d->lock);
	events_add(&d->events, ISO_EVENT_REFUSED, ns_tid, p->pid, p->uid, err);
	pthread_mutex_unlock(&d->lock);
}

/* A SET changes the table unless refused before it; held in any case,
 * as every SET reply always was. */
static enum handle_effect set_effect(const struct iso_req *req, const struct iso_reply *rep)
{
	return rep->err == 0 && req->u.set.policy != ISO_POLICY_NORMAL ? HANDLE_GRANTED
								      : HANDLE_CHANGED;
}

enum handle_effect handle_request(struct isod *d, const struct peer *peer,
		    const struct iso_req *req, struct iso_reply *rep,
		    struct iso_thread_info *threads)
{
	memset(rep, 0, sizeof(*rep));
	rep->type = req->type | ISO_MSG_REPLY;
	rep->seq = req->seq;
	switch (req->type) {
	case ISO_MSG_SET: do_set(d, peer, req, NULL, rep); break;
	case ISO_MSG_RESERVE: do_reserve(d, peer, req, rep); break;
	case ISO_MSG_GET: do_get(d, peer, req, rep); break;
	case ISO_MSG_STATUS: do_status(d, req, rep, threads); break;
	case ISO_MSG_TUNE: do_tune(d, peer, req, rep); break;
	case ISO_MSG_USERS: do_users(d, req, rep); break;
	case ISO_MSG_TOP: do_top(d, req, rep); break;
	case ISO_MSG_STRAYS: do_strays(d, rep); break;
	default: reply_refuse(rep, -EOPNOTSUPP, "unknown request"); break;
	}
	if (rep->err && (req->type == ISO_MSG_SET || req->type == ISO_MSG_RESERVE))
		note_refusal(d, peer, req->type == ISO_MSG_SET ? req->u.set.tid : req->u.reserve.tid,
			     rep->err);
	if (rep->err)
		log_debug("request %u from pid %d uid %u refused: %s", req->type,
			  (int)peer->pid, (unsigned)peer->uid, rep->text);
	if (req->type == ISO_MSG_RESERVE) /* a grant, or refused before one */
		return rep->err == 0 ? HANDLE_GRANTED : HANDLE_CHANGED;
	return req->type == ISO_MSG_SET ? set_effect(req, rep) : HANDLE_READ_ONLY;
}

void handle_rate_limited(const struct iso_req *req, struct iso_reply *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->type = req->type | ISO_MSG_REPLY;
	rep->seq = req->seq;
	reply_refuse(rep, -EAGAIN, "rate limited: too many requests from this user; try again later");
}

void handle_unrecorded(uint16_t type, uint32_t seq, struct iso_reply *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->type = type;
	rep->seq = seq;
	reply_refuse(rep, -EIO, "isod cannot record the grant (state file); thread left SCHED_OTHER");
}

void handle_bad_message(int err, uint16_t type, uint32_t seq, struct iso_reply *rep)
{
	memset(rep, 0, sizeof(*rep));
	/* echo a known type so the client can match it, else STATUS */
	type &= (uint16_t)~ISO_MSG_REPLY;
	if (type < ISO_MSG_SET || type > ISO_MSG_RESERVE)
		type = ISO_MSG_STATUS;
	rep->type = type | ISO_MSG_REPLY;
	rep->seq = seq;
	rep->err = err == -EOPNOTSUPP ? -EOPNOTSUPP : -EBADMSG;
	snprintf(rep->text, sizeof(rep->text), "%s",
		 err == -EPROTO ? "wrong protocol magic or version"
		 : err == -EOPNOTSUPP ? "unknown request type"
		 : "malformed request");
}

enum handle_effect handle_set(struct isod *d, const struct peer *peer, int32_t ns_pid,
			      int32_t ns_tid, int policy, int prio, int limit,
			      struct iso_reply *rep)
{
	struct iso_req req = { .type = ISO_MSG_SET };

	req.u.set.pid = ns_pid;
	req.u.set.tid = ns_tid;
	req.u.set.policy = policy;
	req.u.set.prio = prio;
	req.u.set.limit = limit;
	memset(rep, 0, sizeof(*rep));
	rep->type = ISO_MSG_SET | ISO_MSG_REPLY;
	do_set(d, peer, &req, NULL, rep);
	if (rep->err)
		note_refusal(d, peer, ns_tid, rep->err);
	return set_effect(&req, rep);
}

/* The same thread, still? Owner and start time as read before the change. */
static bool nice_target_same(struct isod *d, pid_t tid, uint64_t starttime,
			     const struct thread_status *before)
{
	struct thread_status now;
	uint64_t st;

	return read_thread_status(d->proc, tid, &now) == 0 &&
	       read_thread_starttime(d->proc, tid, &st) == 0 && st == starttime &&
	       now.ruid == before->ruid && now.euid == before->euid;
}

void handle_nice(struct isod *d, const struct peer *peer, int32_t ns_pid,
		 int32_t ns_tid, int nice, struct iso_reply *rep)
{
	struct thread_status st;
	uint64_t starttime;
	pid_t tid;
	int old;

	memset(rep, 0, sizeof(*rep));
	rep->type = ISO_MSG_SET | ISO_MSG_REPLY;
	if (!peer_allowed(d, peer)) {
		reply_refuse(rep, -EPERM, "user %u is not allowed ISO scheduling (allow_users/allow_groups)",
		       (unsigned)peer->uid);
		return;
	}
	if (resolve_thread(d, peer, ns_pid, ns_tid, &tid, &st, NULL, rep) < 0)
		return;
	if (iso_check_owner(peer->uid, peer->uid == 0, st.ruid, st.euid) < 0) {
		reply_refuse(rep, -EPERM, "thread %d belongs to another user", (int)ns_tid);
		return;
	}
	if (read_thread_starttime(d->proc, tid, &starttime) < 0) {
		reply_refuse(rep, -ESRCH, "thread %d is gone", (int)ns_tid);
		return;
	}
	if (d->cfg.dry_run)
		return;
	/* setpriority() has no pinned form: the thread is checked again
	 * right after, and a TID reused in between (another thread, maybe
	 * another user's) gets its old nice level back */
	errno = 0;
	old = getpriority(PRIO_PROCESS, (id_t)tid);
	if (old == -1 && errno) {
		reply_refuse(rep, -ESRCH, "thread %d is gone", (int)ns_tid);
		return;
	}
	if (setpriority(PRIO_PROCESS, (id_t)tid, nice) < 0) {
		reply_refuse(rep, -errno, "cannot set the nice level of thread %d: %s", (int)ns_tid,
		       strerror(errno));
		return;
	}
	if (!nice_target_same(d, tid, starttime, &st)) {
		(void)setpriority(PRIO_PROCESS, (id_t)tid, old);
		reply_refuse(rep, -ESRCH, "thread %d is gone", (int)ns_tid);
		return;
	}
	log_debug("thread %d of uid %u: nice %d", (int)tid, (unsigned)st.ruid, nice);
}

enum handle_effect handle_reset(struct isod *d, const struct peer *peer, struct iso_reply *rep)
{
	unsigned n = 0;

	memset(rep, 0, sizeof(*rep));
	rep->type = ISO_MSG_SET | ISO_MSG_REPLY;
	pthread_mutex_lock(&d->lock);
	TASKS_FOREACH(&d->tasks, e) {
		/* the owner now, through the pinned handle (not the table) */
		if ((peer->uid != 0 && isod_confirm(d, e, peer->uid, 0) < 0))
			continue;
		if (isod_release(d, e->tid) == 0)
			n++;
	}
	pthread_mutex_unlock(&d->lock);
	log_debug("reset by uid %u: %u threads back to SCHED_OTHER", (unsigned)peer->uid, n);
	return HANDLE_CHANGED;
}
