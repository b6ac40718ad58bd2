/* actuator.c — sched_setattr(2) on behalf of the engine's decisions. */
#include "actuator.h"
#include "backend.h"
#include "iso_sched_abi.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* glibc 2.36 has no sched_setattr wrapper or struct: iso_sched_abi.h */
#define FLAG_RESET_ON_FORK ISO_KSCHED_FLAG_RESET_ON_FORK
#define FLAG_KEEP_PARAMS ISO_KSCHED_FLAG_KEEP_PARAMS /* keep nice going to SCHED_OTHER */

static bool dry_run;

void actuator_set_dry_run(bool dry)
{
	dry_run = dry;
}

static int setattr(pid_t tid, struct iso_sched_attr *a)
{
	if (dry_run)
		return 0;
	if (syscall(SYS_sched_setattr, tid, a, 0) < 0)
		return -errno;
	return 0;
}

/* ---- dying: once the crash handler started, nothing is promoted ----
 * A promotion registers its tid in a slot, then checks dying; the handler
 * sets dying, then looks at the slots (both sequentially consistent): at
 * least one of the two sees the other. A promoter that saw dying unset
 * has its tid in a slot, and the handler waits for that promotion to end
 * before demoting the tid. Process-wide by nature: the handler has no
 * other way to reach them. */
#define INFLIGHT_SLOTS 8  /* more than isod's threads that promote */
#define INFLIGHT_WAIT_MS 100
static atomic_bool dying;
static atomic_int inflight[INFLIGHT_SLOTS];

/* Returns the slot taken, or a negative errno (-ECANCELED: dying). */
static int inflight_enter(pid_t tid)
{
	for (int i = 0; i < INFLIGHT_SLOTS; i++) {
		int expected = 0;

		if (!atomic_compare_exchange_strong(&inflight[i], &expected, (int)tid))
			continue;
		if (atomic_load(&dying)) {
			atomic_store(&inflight[i], 0);
			return -ECANCELED;
		}
		return i;
	}
	return -EAGAIN;
}

static void inflight_leave(int slot)
{
	atomic_store(&inflight[slot], 0);
}

static int promote_now(pid_t tid, bool fifo, int kprio)
{
	struct iso_sched_attr a = { .size = sizeof(a) };

	a.sched_policy = fifo ? ISO_KSCHED_FIFO : ISO_KSCHED_RR;
	a.sched_priority = (uint32_t)kprio;
	a.sched_flags = FLAG_RESET_ON_FORK;
	return setattr(tid, &a);
}

int actuator_promote(pid_t tid, bool fifo, int kprio)
{
	int slot = inflight_enter(tid), r;

	if (slot < 0)
		return slot;
	r = promote_now(tid, fifo, kprio);
	inflight_leave(slot);
	return r;
}

static int to_other(pid_t tid);
static int grant_now(pid_t tid, bool fifo, int kprio, int prio, unsigned limit);

int actuator_grant(pid_t tid, bool fifo, int kprio, int prio, unsigned limit)
{
	int slot = inflight_enter(tid), r;

	if (slot < 0)
		return slot;
	r = grant_now(tid, fifo, kprio, prio, limit);
	inflight_leave(slot);
	return r;
}

static int grant_now(pid_t tid, bool fifo, int kprio, int prio, unsigned limit)
{
	int r;

	if (dry_run || !backend_scx_active())
		return promote_now(tid, fifo, kprio);
	/* kernel RT would run above every sched_ext task: stay SCHED_OTHER */
	r = to_other(tid);
	if (r < 0)
		return r;
	r = backend_scx_set(tid, fifo, prio, limit);
	if (r == -ENODEV) /* scx_iso went away under us: never leave it unpoliced */
		return promote_now(tid, fifo, kprio);
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
	struct iso_sched_attr a = { .size = sizeof(a) };
	int r;

	a.sched_policy = ISO_KSCHED_OTHER;
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

/* Async-signal-safe: system calls only, no lock (the backend's included),
 * no allocation; errno is left as found. */
int actuator_demote_signal_safe(pid_t tid)
{
	struct iso_sched_attr a = { .size = sizeof(a) };
	int saved = errno, r;

	if (dry_run)
		return 0;
	a.sched_policy = ISO_KSCHED_OTHER;
	a.sched_flags = FLAG_RESET_ON_FORK | FLAG_KEEP_PARAMS;
	r = setattr(tid, &a);
	if (r == -EINVAL) { /* before 5.3: no KEEP_PARAMS, say the nice */
		struct iso_sched_attr cur;

		memset(&cur, 0, sizeof(cur));
		if (syscall(SYS_sched_getattr, tid, &cur, sizeof(cur), 0) == 0)
			a.sched_nice = cur.sched_nice;
		a.sched_flags = FLAG_RESET_ON_FORK;
		r = setattr(tid, &a);
	}
	(void)backend_scx_clear_signal_safe(tid);
	errno = saved;
	return r;
}

void actuator_die(void)
{
	atomic_store(&dying, true);
	for (int i = 0; i < INFLIGHT_SLOTS; i++) {
		int tid = atomic_load(&inflight[i]);

		if (!tid)
			continue;
		/* the promotion may still be on its way into the kernel; the
		 * wait is bounded, as the promoter may be this very thread */
		for (int ms = 0; ms < INFLIGHT_WAIT_MS && atomic_load(&inflight[i]) == tid; ms++) {
			struct timespec ts = { .tv_nsec = 1000000 };

			(void)nanosleep(&ts, NULL);
		}
		(void)actuator_demote_signal_safe((pid_t)tid);
	}
}

int actuator_query(pid_t tid, int *policy, int *prio, int *nice)
{
	struct iso_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0) < 0)
		return -errno;
	*policy = (int)a.sched_policy;
	*prio = (int)a.sched_priority;
	*nice = a.sched_nice;
	if (a.sched_policy == ISO_KSCHED_OTHER) {
		int p;
		bool demoted;

		if (backend_scx_query(tid, &p, &demoted) == 0 && !demoted) {
			*policy = ISO_KSCHED_EXT;
			*prio = p;
		}
	}
	return 0;
}

int actuator_reset_on_fork(pid_t tid)
{
	struct iso_sched_attr a;

	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, tid, &a, sizeof(a), 0) < 0)
		return -errno;
	return (a.sched_flags & FLAG_RESET_ON_FORK) != 0;
}
