/* iso.c — the decisions shared by every wrapped call, and isod via
 * libisosched (no locks waited on, no allocation: src/client/conn.c). */
#include "shim.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"

pid_t shim_tid(pid_t pid)
{
	return pid ? pid : gettid();
}

bool shim_policy_wants_iso(int policy)
{
	int base = policy & ~SCHED_RESET_ON_FORK;

	return base == SCHED_FIFO || base == SCHED_RR ||
	       base == SHIM_SCHED_ISO_RR;
}

int shim_iso_prio(int policy, int prio)
{
	/* Policy 4 at priority 0 is the form of the -ck, MuQSS and PDS
	 * kernels that still ship SCHED_ISO (gamemode's softrealtime asks
	 * so for a game): there an ISO task ranks above every normal task
	 * and below every real-time one. The lowest ISO priority keeps
	 * that order among isod's grants: the bottom of the band, under
	 * every audio thread (docs/semantics.md, rule 4a). */
	if ((policy & ~SCHED_RESET_ON_FORK) == SHIM_SCHED_ISO_RR && prio == 0)
		return ISO_KPRIO_MIN;
	if (prio < ISO_KPRIO_MIN || prio > ISO_KPRIO_MAX)
		return -1;
	return prio;
}

bool shim_should_ask(int err, int policy, int prio)
{
	int base = policy & ~SCHED_RESET_ON_FORK;

	if (shim_iso_prio(policy, prio) < 0)
		return false;
	if (base == SCHED_FIFO || base == SCHED_RR)
		return err == EPERM; /* lack of privilege */
	if (base == SHIM_SCHED_ISO_RR)
		return err == EINVAL; /* the kernel does not know policy 4 */
	return false; /* SCHED_IDLE (5), BATCH, NORMAL, DEADLINE: untouched */
}

int shim_ask(pid_t tid, int policy, int prio)
{
	int saved = errno, r;

	/* ISO_SCHED_FIFO/RR/ISO_RR are the kernel's numbers 1, 2 and 4; the
	 * table keeps the priority as asked (0 for policy 4 is shown as 0) */
	r = iso_set_thread(tid, policy & ~SCHED_RESET_ON_FORK,
			   shim_iso_prio(policy, prio), 0, NULL);
	if (r == 0)
		shim_table_set(tid, policy, prio);
	errno = saved;
	return r;
}

bool shim_known(pid_t tid, struct shim_req *req)
{
	return shim_table_get(tid, req);
}

bool shim_active(pid_t tid, struct shim_req *req)
{
	struct iso_thread_info info;
	int saved = errno, r, kpol;
	bool mine = shim_table_get(tid, req);

	if (!mine) {
		/* Not granted through this process's shim, but maybe by isod
		 * all the same (another process asked, or isod adopted the
		 * thread as a child of an ISO thread): isod's grants are
		 * kernel FIFO/RR with RESET_ON_FORK, so only those are worth
		 * a question. */
		kpol = shim_real()->sched_getscheduler(tid);
		errno = saved;
		if (kpol < 0 || !(kpol & SCHED_RESET_ON_FORK) ||
		    ((kpol & ~SCHED_RESET_ON_FORK) != SCHED_FIFO &&
		     (kpol & ~SCHED_RESET_ON_FORK) != SCHED_RR))
			return false;
	}
	r = iso_get_thread(tid, &info);
	errno = saved;
	if (r == 0 && (info.policy == ISO_SCHED_ISO_RR ||
		       info.policy == ISO_SCHED_ISO_FIFO)) {
		if (!mine) {
			/* What a program would have asked for to get it. */
			req->policy = info.policy == ISO_SCHED_ISO_RR ?
					      SCHED_RR : SCHED_FIFO;
			req->prio = info.prio;
		}
		return true;
	}
	/* Released by someone else, or the tid is a new thread now. An
	 * unreachable isod keeps the entry: the getters show the kernel's
	 * view until it answers again. */
	if (mine && (r == 0 || r == -ESRCH))
		shim_table_clear(tid);
	return false;
}

void shim_release(pid_t tid)
{
	struct shim_req req;
	int saved = errno;

	if (!shim_table_get(tid, &req))
		return;
	(void)iso_set_thread(tid, ISO_SCHED_NORMAL, 0, 0, NULL);
	shim_table_clear(tid);
	errno = saved;
}

int shim_set_policy(pid_t tid, int policy, int prio, shim_apply_fn apply,
		    void *ctx)
{
	struct shim_req req;
	bool released = false;
	int err;

	if (tid <= 0)
		return apply(ctx, 0);
	if (shim_known(tid, &req)) {
		/* Already ISO through us: a new RT request only changes the
		 * ISO policy/priority (the kernel would accept some of them,
		 * e.g. lowering an RT priority, and leave the band). */
		if (shim_policy_wants_iso(policy) &&
		    shim_iso_prio(policy, prio) >= 0 &&
		    shim_ask(tid, policy, prio) == 0)
			return 0;
		/* Leaving ISO: isod must not restore it afterwards. */
		if (!shim_policy_wants_iso(policy)) {
			shim_release(tid);
			released = true;
		}
	}
	err = apply(ctx, 0);
	if (err == EPERM && (released || shim_table_residue(tid)) &&
	    !(policy & SCHED_RESET_ON_FORK)) {
		/* isod left the kernel's RESET_ON_FORK on the thread, which
		 * only privilege can take off again: keep it, hide it. */
		err = apply(ctx, SCHED_RESET_ON_FORK);
		if (err == 0)
			shim_table_set_residue(tid);
		return err;
	}
	if (err == 0) {
		/* Real RT now (privileged after all): isod lets go first. */
		if (shim_known(tid, &req)) {
			shim_release(tid);
			err = apply(ctx, 0);
		} else if (policy & SCHED_RESET_ON_FORK) {
			shim_table_clear(tid); /* asked for: nothing to hide */
		}
		return err;
	}
	if (shim_should_ask(err, policy, prio) && shim_ask(tid, policy, prio) == 0)
		return 0;
	return err;
}

int shim_shown_policy(pid_t tid, int kernel_policy)
{
	if (kernel_policy > 0 && (kernel_policy & SCHED_RESET_ON_FORK) &&
	    shim_table_residue(tid))
		return kernel_policy & ~SCHED_RESET_ON_FORK;
	return kernel_policy;
}

int shim_set_prio(pid_t tid, int prio, shim_apply_fn apply,
		  int (*cur_policy)(void *ctx), void *ctx)
{
	struct shim_req req;
	int err, pol;

	if (tid <= 0)
		return apply(ctx, 0);
	if (shim_known(tid, &req)) {
		if (shim_iso_prio(req.policy, prio) < 0)
			return EINVAL; /* as for any RT thread */
		if (shim_ask(tid, req.policy, prio) == 0)
			return 0;
	}
	err = apply(ctx, 0);
	if (err != EPERM)
		return err;
	/* Not ours but RT in the kernel (e.g. adopted by isod as a child
	 * of an ISO thread): ask for the new priority in its policy. */
	pol = cur_policy(ctx);
	if (pol >= 0 && shim_should_ask(err, pol, prio) &&
	    shim_ask(tid, pol, prio) == 0)
		return 0;
	return err;
}
