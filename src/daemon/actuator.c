/* actuator.c — sched_setattr(2) on behalf of the engine's decisions. */
#include "actuator.h"
#include "backend.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc 2.36 has no sched_setattr wrapper or struct; this is the kernel's
 * SCHED_ATTR_SIZE_VER0 layout. */
struct kernel_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#define FLAG_RESET_ON_FORK 0x01
#define FLAG_KEEP_PARAMS 0x10 /* keep nice when switching to SCHED_OTHER */
#define POLICY_EXT 7          /* SCHED_EXT: glibc 2.36 does not name it */

static bool dry_run;

void actuator_set_dry_run(bool dry)
{
	dry_run = dry;
}

static int setattr(pid_t tid, struct kernel_sched_attr *a)
{
	if (dry_run)
		return 0;
	if (syscall(SYS_sched_setattr, tid, a, 0) < 0)
		return -errno;
	return 0;
}

int actuator_promote(pid_t tid, bool fifo, int kprio)
{
	struct kernel_sched_attr a = { .size = sizeof(a) };

	a.sched_policy = fifo ? SCHED_FIFO : SCHED_RR;
	a.sched_priority = (uint32_t)kprio;
	a.sched_flags = FLAG_RESET_ON_FORK;
	return setattr(tid, &a);
}

static int to_other(pid_t tid);

int actuator_grant(pid_t tid, bool fifo, int kprio, int prio, unsigned limit)
{
	int r;

	if (dry_run || !backend_scx_active())
		return actuator_promote(tid, fifo, kprio);
	/* kernel RT would run above every sched_ext task: stay SCHED_OTHER */
	r = to_other(tid);
	if (r < 0)
		return r;
	r = backend_scx_set(tid, fifo, prio, limit);
	if (r == -ENODEV) /* scx_iso went away under us: never leave it unpoliced */
		return actuator_promote(tid, fifo, kprio);
	return r;
}

int actuator_demote(pid_t tid)
{
	int r = to_other(tid);

	if (!dry_run)
		(void)backend_scx_clear(tid);
	return r;
}

static int to_other(pid_t tid)
{
	struct kernel_sched_attr a = { .size = sizeof(a) };
	int r;

	a.sched_policy = SCHED_OTHER;
	a.sched_flags = FLAG_RESET_ON_FORK | FLAG_KEEP_PARAMS;
	r = setattr(tid, &a);
	if (r == -EINVAL) {
		/* kernels before 5.3 lack KEEP_PARAMS: say the nice ourselves */
		int pol, prio, nice;
		if (actuator_query(tid, &pol, &prio, &nice) < 0)
			nice = 0;
		a.sched_flags = FLAG_RESET_ON_FORK;
		a.sched_nice = nice;
		r = setattr(tid, &a);
	}
	return r;
}

int actuator_query(pid_t tid, int *policy, int *prio, int *nice)
{
	struct kernel_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0) < 0)
		return -errno;
	*policy = (int)a.sched_policy;
	*prio = (int)a.sched_priority;
	*nice = a.sched_nice;
	if (a.sched_policy == SCHED_OTHER) {
		int p;
		bool demoted;

		if (backend_scx_query(tid, &p, &demoted) == 0 && !demoted) {
			*policy = POLICY_EXT;
			*prio = p;
		}
	}
	return 0;
}

int actuator_reset_on_fork(pid_t tid)
{
	struct kernel_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0) < 0)
		return -errno;
	return (a.sched_flags & FLAG_RESET_ON_FORK) != 0;
}
