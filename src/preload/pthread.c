/* pthread.c — pthread_setschedparam, pthread_setschedprio,
 * pthread_getschedparam, and pthread_create with an explicit SCHED_FIFO /
 * SCHED_RR attribute. */
#include "shim.h"

#include <errno.h>
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

/* ---- pthread_setschedparam ---- */

struct setparam_ctx {
	pthread_t th;
	int policy;
	const struct sched_param *p;
};

static int apply_setschedparam(void *v, int flags)
{
	struct setparam_ctx *c = v;

	return shim_real()->pthread_setschedparam(c->th, c->policy | flags,
						  c->p);
}

SHIM_EXPORT int pthread_setschedparam(pthread_t th, int policy,
				      const struct sched_param *p)
{
	struct setparam_ctx c = { th, policy, p };
	int saved = errno, r;

	/* p is nonnull by contract (glibc reads it unconditionally too). */
	r = shim_set_policy(shim_pthread_tid(th), policy, p->sched_priority,
			    apply_setschedparam, &c);
	errno = saved;
	return r;
}

/* ---- pthread_setschedprio ---- */

struct setprio_ctx {
	pthread_t th;
	int prio;
};

static int apply_setschedprio(void *v, int flags)
{
	(void)flags;
	struct setprio_ctx *c = v;

	return shim_real()->pthread_setschedprio(c->th, c->prio);
}

static int cur_policy_thread(void *v)
{
	struct setprio_ctx *c = v;
	struct sched_param sp;
	int pol;

	if (shim_real()->pthread_getschedparam(c->th, &pol, &sp) != 0)
		return -1;
	return pol;
}

SHIM_EXPORT int pthread_setschedprio(pthread_t th, int prio)
{
	struct setprio_ctx c = { th, prio };
	int saved = errno, r;

	r = shim_set_prio(shim_pthread_tid(th), prio, apply_setschedprio,
			  cur_policy_thread, &c);
	errno = saved;
	return r;
}

/* ---- pthread_getschedparam ---- */

SHIM_EXPORT int pthread_getschedparam(pthread_t th, int *policy,
				      struct sched_param *p)
{
	struct shim_req req;
	int r = shim_real()->pthread_getschedparam(th, policy, p);
	pid_t tid;

	if (r != 0)
		return r;
	tid = shim_pthread_tid(th);
	if (shim_active(tid, &req)) {
		*policy = req.policy & ~SCHED_RESET_ON_FORK;
		p->sched_priority = req.prio;
	} else {
		*policy = shim_shown_policy(tid, *policy);
	}
	return r;
}

/* ---- pthread_create with PTHREAD_EXPLICIT_SCHED + SCHED_FIFO/RR ----
 * The real call first; when the kernel refuses the policy (EPERM), the
 * thread is made again with inherited scheduling and, before the user's
 * start routine runs, asks isod for ISO itself. The creator waits for that
 * answer: on a refusal the thread ends without running the routine and
 * pthread_create returns the original EPERM. */

struct start {
	void *(*fn)(void *);
	void *arg;
	int policy, prio;
	int result; /* 0 or a negative errno from isod */
	sem_t done;
};

static void *start_iso(void *v)
{
	struct start *s = v;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;
	int r;

	r = shim_ask(gettid(), s->policy, s->prio);
	s->result = r;
	sem_post(&s->done); /* s is the creator's from here on */
	if (r != 0)
		return NULL;
	return fn(arg);
}

/* ---- pthread_create with inherited scheduling from an ISO thread ----
 * A kernel SCHED_FIFO thread's new threads inherit SCHED_FIFO (unless it
 * asked for SCHED_RESET_ON_FORK). isod grants carry RESET_ON_FORK, so the
 * kernel starts them SCHED_OTHER, and isod cannot adopt them itself: the
 * proc connector names a new thread's process parent, not the thread that
 * created it. So the shim does it: the new thread asks isod for its
 * creator's ISO before the user's routine runs (which it runs either way,
 * as the kernel would have created it either way). */

static void *start_inherit(void *v)
{
	struct start *s = v;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;

	s->result = shim_ask(gettid(), s->policy, s->prio);
	sem_post(&s->done); /* s is the creator's from here on */
	return fn(arg);
}

static bool inherits_iso(const pthread_attr_t *attr, struct shim_req *req)
{
	int inherit;

	if (attr && (pthread_attr_getinheritsched(attr, &inherit) != 0 ||
		     inherit != PTHREAD_INHERIT_SCHED))
		return false;
	return shim_active(gettid(), req) && !(req->policy & SCHED_RESET_ON_FORK);
}

static int create_inheriting(pthread_t *th, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg, const struct shim_req *req)
{
	struct start s = { .fn = fn, .arg = arg, .policy = req->policy, .prio = req->prio };
	int r;

	if (sem_init(&s.done, 0, 0) != 0)
		return shim_real()->pthread_create(th, attr, fn, arg);
	r = shim_real()->pthread_create(th, attr, start_inherit, &s);
	if (r == 0)
		while (sem_wait(&s.done) != 0 && errno == EINTR)
			;
	sem_destroy(&s.done);
	return r;
}

SHIM_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg)
{
	const struct shim_real *R = shim_real();
	struct sched_param sp;
	struct shim_req req;
	pthread_attr_t a2;
	struct start s;
	int inherit, policy, detach, r, r2, saved = errno;

	if (inherits_iso(attr, &req)) {
		r = create_inheriting(th, attr, fn, arg, &req);
		errno = saved;
		return r;
	}
	r = R->pthread_create(th, attr, fn, arg);
	if (r != EPERM || !attr ||
	    pthread_attr_getinheritsched(attr, &inherit) != 0 ||
	    inherit != PTHREAD_EXPLICIT_SCHED ||
	    pthread_attr_getschedpolicy(attr, &policy) != 0 ||
	    pthread_attr_getschedparam(attr, &sp) != 0 ||
	    pthread_attr_getdetachstate(attr, &detach) != 0 ||
	    !shim_should_ask(EPERM, policy, sp.sched_priority))
		return r;
	/* The same attribute with inherited scheduling. A byte copy keeps
	 * every other setting (stack, guard, affinity, signal mask) as it
	 * is: pthread_create only reads it, and the copy is never
	 * destroyed, so what it shares with the original stays the
	 * original's (glibc's and musl's attribute objects allow this). */
	memcpy(&a2, attr, sizeof(a2));
	if (pthread_attr_setinheritsched(&a2, PTHREAD_INHERIT_SCHED) != 0)
		return r;
	s.fn = fn;
	s.arg = arg;
	s.policy = policy;
	s.prio = sp.sched_priority;
	s.result = -EPERM;
	if (sem_init(&s.done, 0, 0) != 0) {
		errno = saved;
		return r;
	}
	r2 = R->pthread_create(th, &a2, start_iso, &s);
	if (r2 == 0) {
		while (sem_wait(&s.done) != 0 && errno == EINTR)
			;
		if (s.result != 0 && detach == PTHREAD_CREATE_JOINABLE)
			(void)pthread_join(*th, NULL);
	}
	sem_destroy(&s.done);
	errno = saved;
	if (r2 == 0 && s.result == 0)
		return 0;
	return r; /* the original error */
}
