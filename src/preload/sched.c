/* sched.c — sched_setscheduler, sched_setparam, sched_setattr and their
 * getters, sched_get_priority_max/min, and syscall() for programs that
 * reach the same system calls that way (glibc 2.36 has no sched_setattr). */
#include "shim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The exported functions take the kernel's struct sched_attr, whose layout
 * is iso_sched_attr (iso_sched_abi.h; the tag is libc's from glibc 2.41,
 * so it is completed here under the libc name). */
struct sched_attr {
	struct iso_sched_attr k;
};
#define SHIM_ATTR_SIZE_VER0 ISO_SCHED_ATTR_SIZE_VER0
#define SHIM_FLAG_RESET_ON_FORK ISO_KSCHED_FLAG_RESET_ON_FORK
_Static_assert(sizeof(struct sched_attr) == SHIM_ATTR_SIZE_VER0,
	       "struct sched_attr VER0 layout");

static int err_of(int rc)
{
	return rc == 0 ? 0 : errno;
}

static int finish(int err, int saved)
{
	if (err == 0) {
		errno = saved;
		return 0;
	}
	errno = err;
	return -1;
}

/* ---- sched_setscheduler ---- */

struct setsched_ctx {
	pid_t pid;
	int policy;
	const struct sched_param *p;
};

static int apply_setscheduler(void *v, int flags)
{
	struct setsched_ctx *c = v;

	return err_of(shim_real()->sched_setscheduler(c->pid, c->policy | flags,
						      c->p));
}

int shim_sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	struct setsched_ctx c = { pid, policy, p };
	int saved = errno;

	if (!p || pid < 0)
		return shim_real()->sched_setscheduler(pid, policy, p);
	return finish(shim_set_policy(shim_tid(pid), policy, p->sched_priority,
				      apply_setscheduler, &c),
		      saved);
}

SHIM_EXPORT int sched_setscheduler(pid_t pid, int policy,
				   const struct sched_param *p)
{
	return shim_sched_setscheduler(pid, policy, p);
}

/* ---- sched_setparam ---- */

struct setparam_ctx {
	pid_t pid;
	const struct sched_param *p;
};

static int apply_setparam(void *v, int flags)
{
	(void)flags; /* setparam keeps the flag as it is */
	struct setparam_ctx *c = v;

	return err_of(shim_real()->sched_setparam(c->pid, c->p));
}

static int cur_policy_pid(void *v)
{
	struct setparam_ctx *c = v;
	int saved = errno, pol = shim_real()->sched_getscheduler(c->pid);

	errno = saved;
	return pol;
}

int shim_sched_setparam(pid_t pid, const struct sched_param *p)
{
	struct setparam_ctx c = { pid, p };
	int saved = errno;

	if (!p || pid < 0)
		return shim_real()->sched_setparam(pid, p);
	return finish(shim_set_prio(shim_tid(pid), p->sched_priority,
				    apply_setparam, cur_policy_pid, &c),
		      saved);
}

SHIM_EXPORT int sched_setparam(pid_t pid, const struct sched_param *p)
{
	return shim_sched_setparam(pid, p);
}

/* ---- sched_setattr (system call; a libc function from glibc 2.41) ---- */

struct setattr_ctx {
	pid_t pid;
	struct sched_attr *a;
	unsigned flags;
};

static int apply_setattr(void *v, int flags)
{
	struct setattr_ctx *c = v;
	struct sched_attr a;

	if (!(flags & SCHED_RESET_ON_FORK))
		return err_of(shim_real()->sched_setattr(c->pid, c->a, c->flags));
	/* The caller's attr stays as it gave it. */
	memcpy(&a, c->a, sizeof(a));
	a.k.size = SHIM_ATTR_SIZE_VER0;
	a.k.sched_flags |= SHIM_FLAG_RESET_ON_FORK;
	return err_of(shim_real()->sched_setattr(c->pid, &a, c->flags));
}

int shim_sched_setattr(pid_t pid, struct sched_attr *a, unsigned flags)
{
	struct setattr_ctx c = { pid, a, flags };
	int saved = errno, policy;

	/* DEADLINE: a reservation from isod where the kernel says EPERM */
	if (a && pid >= 0 && flags == 0 && a->k.sched_policy == ISO_KSCHED_DEADLINE)
		return shim_setattr_deadline(pid, a, &a->k);

	/* Only the plain RT cases are ISO candidates: a readable attr, no
	 * syscall flags, no flags beyond RESET_ON_FORK (KEEP_*, util
	 * clamps, deadline flags all pass through). */
	if (!a || pid < 0 || flags != 0 ||
	    (a->k.size != 0 && a->k.size < SHIM_ATTR_SIZE_VER0) ||
	    (a->k.sched_flags & ~(uint64_t)SHIM_FLAG_RESET_ON_FORK) ||
	    a->k.sched_policy > 0xff || a->k.sched_priority > ISO_KPRIO_MAX)
		return shim_real()->sched_setattr(pid, a, flags);
	policy = (int)a->k.sched_policy;
	if (a->k.sched_flags & SHIM_FLAG_RESET_ON_FORK)
		policy |= SCHED_RESET_ON_FORK;
	return finish(shim_set_policy(shim_tid(pid), policy,
				      (int)a->k.sched_priority, apply_setattr, &c),
		      saved);
}

SHIM_EXPORT int sched_setattr(pid_t pid, struct sched_attr *a, unsigned flags)
{
	return shim_sched_setattr(pid, a, flags);
}

/* ---- getters: a thread under ISO shows what the program asked for ---- */

int shim_sched_getscheduler(pid_t pid)
{
	struct shim_req req;
	int rc = shim_real()->sched_getscheduler(pid);

	if (rc < 0 || pid < 0)
		return rc;
	if (shim_active(shim_tid(pid), &req))
		return req.policy;
	return shim_shown_policy(shim_tid(pid), rc);
}

SHIM_EXPORT int sched_getscheduler(pid_t pid)
{
	return shim_sched_getscheduler(pid);
}

int shim_sched_getparam(pid_t pid, struct sched_param *p)
{
	struct shim_req req;
	int rc = shim_real()->sched_getparam(pid, p);

	if (rc == 0 && pid >= 0 && shim_active(shim_tid(pid), &req))
		p->sched_priority = req.prio;
	return rc;
}

SHIM_EXPORT int sched_getparam(pid_t pid, struct sched_param *p)
{
	return shim_sched_getparam(pid, p);
}

int shim_sched_getattr(pid_t pid, struct sched_attr *a, unsigned size,
		       unsigned flags)
{
	struct shim_req req;
	int rc = shim_real()->sched_getattr(pid, a, size, flags);

	if (rc == 0 && pid >= 0 && size >= SHIM_ATTR_SIZE_VER0 &&
	    shim_active(shim_tid(pid), &req)) {
		a->k.sched_policy = (uint32_t)(req.policy & ~SCHED_RESET_ON_FORK);
		a->k.sched_priority = (uint32_t)req.prio;
		a->k.sched_nice = 0;
		if (req.policy & SCHED_RESET_ON_FORK)
			a->k.sched_flags |= SHIM_FLAG_RESET_ON_FORK;
		else
			a->k.sched_flags &= ~(uint64_t)SHIM_FLAG_RESET_ON_FORK;
	} else if (rc == 0 && pid >= 0 && shim_table_residue(shim_tid(pid))) {
		a->k.sched_flags &= ~(uint64_t)SHIM_FLAG_RESET_ON_FORK;
	}
	return rc;
}

SHIM_EXPORT int sched_getattr(pid_t pid, struct sched_attr *a, unsigned size,
			      unsigned flags)
{
	return shim_sched_getattr(pid, a, size, flags);
}

/* ---- priority range: SCHED_ISO_RR has 1..99 ---- */

int shim_sched_get_priority_max(int policy)
{
	if (policy == SHIM_SCHED_ISO_RR)
		return ISO_KPRIO_MAX;
	return shim_real()->sched_get_priority_max(policy);
}

int shim_sched_get_priority_min(int policy)
{
	if (policy == SHIM_SCHED_ISO_RR)
		return ISO_KPRIO_MIN;
	return shim_real()->sched_get_priority_min(policy);
}

SHIM_EXPORT int sched_get_priority_max(int policy)
{
	return shim_sched_get_priority_max(policy);
}

SHIM_EXPORT int sched_get_priority_min(int policy)
{
	return shim_sched_get_priority_min(policy);
}

/* ---- syscall(): the same calls by number; everything else untouched ----
 * Six argument words are passed on whatever the call, as every syscall()
 * wrapper does (the ABI makes reading unused ones harmless). */
SHIM_EXPORT long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	switch (nr) {
	case SYS_sched_setscheduler:
		return shim_sched_setscheduler((pid_t)a[0], (int)a[1],
					       (const struct sched_param *)a[2]);
	case SYS_sched_setparam:
		return shim_sched_setparam((pid_t)a[0],
					   (const struct sched_param *)a[1]);
	case SYS_sched_setattr:
		return shim_sched_setattr((pid_t)a[0], (struct sched_attr *)a[1],
					  (unsigned)a[2]);
	case SYS_sched_getscheduler:
		return shim_sched_getscheduler((pid_t)a[0]);
	case SYS_sched_getparam:
		return shim_sched_getparam((pid_t)a[0],
					   (struct sched_param *)a[1]);
	case SYS_sched_getattr:
		return shim_sched_getattr((pid_t)a[0], (struct sched_attr *)a[1],
					  (unsigned)a[2], (unsigned)a[3]);
	case SYS_sched_get_priority_max:
		return shim_sched_get_priority_max((int)a[0]);
	case SYS_sched_get_priority_min:
		return shim_sched_get_priority_min((int)a[0]);
	default:
		return shim_real()->syscall(nr, a[0], a[1], a[2], a[3], a[4],
					    a[5]);
	}
}
