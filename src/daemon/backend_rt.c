/* backend_rt.c — the kernel-rt backend: sched_setattr(2) to kernel
 * SCHED_FIFO/SCHED_RR in the band and back to SCHED_OTHER. */
#include "backend.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iso_rule.h"
#include "iso_sched_abi.h"

/* Set once at start-up, before any thread; read by every system call
 * the backends make (process-wide like the kernel state they change). */
static atomic_bool dry_run;

void backend_set_dry_run(bool dry)
{
	atomic_store(&dry_run, dry);
}

bool backend_dry_run(void)
{
	return atomic_load(&dry_run);
}

static int setattr(pid_t tid, struct iso_sched_attr *a)
{
	if (backend_dry_run())
		return 0;
	if (syscall(SYS_sched_setattr, tid, a, 0) < 0)
		return -errno;
	return 0;
}

static int getattr(pid_t tid, struct iso_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) < 0 ? -errno : 0;
}

static int rt_grant(pid_t tid, const struct backend_grant *g)
{
	struct iso_sched_attr a = { .size = sizeof(a) };

	a.sched_flags = ISO_KSCHED_FLAG_RESET_ON_FORK;
	if (g->dl_runtime) {
		/* a reservation: the kernel admits it against its own DL
		 * limit (-EBUSY) and wants the thread's affinity to span its
		 * root domain (-EPERM); RESET_ON_FORK, else the thread could
		 * not fork at all and a child would never be DEADLINE */
		a.sched_policy = ISO_KSCHED_DEADLINE;
		a.sched_runtime = g->dl_runtime;
		a.sched_deadline = g->dl_deadline;
		a.sched_period = g->dl_period;
		return setattr(tid, &a);
	}
	a.sched_policy = g->fifo ? ISO_KSCHED_FIFO : ISO_KSCHED_RR;
	a.sched_priority = (uint32_t)g->kprio;
	return setattr(tid, &a);
}

static int rt_query(pid_t tid, struct backend_thread *o)
{
	struct iso_sched_attr a;
	int r = getattr(tid, &a);

	if (r < 0)
		return r;
	o->policy = (int)a.sched_policy;
	o->prio = (int)a.sched_priority;
	o->nice = a.sched_nice;
	o->iso = a.sched_policy == ISO_KSCHED_FIFO || a.sched_policy == ISO_KSCHED_RR ||
		 a.sched_policy == ISO_KSCHED_DEADLINE;
	return 0;
}

/* The nice level the thread has kept under its RT policy: sched_getattr
 * reports none for an RT thread, the kernel keeps it all the same (a raw
 * getpriority: 20 - nice, signal-safe). */
static int kept_nice(pid_t tid, int *nice)
{
	long r = syscall(SYS_getpriority, PRIO_PROCESS, (id_t)tid);

	if (r < 0)
		return -errno;
	*nice = 20 - (int)r;
	return 0;
}

static int rt_demote(pid_t tid)
{
	struct iso_sched_attr a = { .size = sizeof(a) };
	int nice = 0;

	/* Not SCHED_FLAG_KEEP_PARAMS: the kernel then copies the thread's RT
	 * priority into the request too, and SCHED_OTHER with a priority is
	 * EINVAL — it fails for every thread there is something to demote.
	 * The nice level is read and stated again instead (system calls
	 * only: the crash handler comes here too). */
	a.sched_policy = ISO_KSCHED_OTHER;
	a.sched_flags = ISO_KSCHED_FLAG_RESET_ON_FORK;
	if (kept_nice(tid, &nice) == 0)
		a.sched_nice = nice;
	return setattr(tid, &a);
}

static bool rt_placed_as(const struct backend_grant *g, bool demoted, int policy, int prio)
{
	if (demoted) /* any policy but kernel RT (DEADLINE too: iso_rule.h) will do */
		return !iso_rule_kernel_rt(policy, prio);
	/* an owner cannot change a DEADLINE thread's parameters (the kernel
	 * wants CAP_SYS_NICE for any DEADLINE setattr), only leave it */
	if (g->dl_runtime)
		return policy == ISO_KSCHED_DEADLINE;
	return policy == (g->fifo ? ISO_KSCHED_FIFO : ISO_KSCHED_RR) && prio == g->kprio;
}

static bool rt_placed(pid_t tid, const struct backend_grant *g, bool demoted,
		      struct backend_thread *now)
{
	if (rt_query(tid, now) < 0)
		return true;
	return rt_placed_as(g, demoted, now->policy, now->prio);
}

static void rt_tune(unsigned iso_cpu, unsigned iso_period_s)
{
	(void)iso_cpu; /* isod's engine keeps the budget */
	(void)iso_period_s;
}

const struct backend backend_kernel_rt = {
	.name = "kernel-rt",
	.owns_budget = false,
	.grant = rt_grant,
	.demote = rt_demote,
	.query = rt_query,
	.placed = rt_placed,
	.placed_as = rt_placed_as,
	.tune = rt_tune,
};

int backend_reset_on_fork(pid_t tid)
{
	struct iso_sched_attr a;
	int r = getattr(tid, &a);

	return r < 0 ? r : (a.sched_flags & ISO_KSCHED_FLAG_RESET_ON_FORK) != 0;
}
