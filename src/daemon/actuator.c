/* actuator.c — the backend's operations behind the crash handler's guard. */
#include "actuator.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

void actuator_set_dry_run(bool dry)
{
	backend_set_dry_run(dry);
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
static struct {
	atomic_bool dying;
	atomic_int inflight[INFLIGHT_SLOTS];
} promotions;

/* Returns the slot taken, or a negative errno (-ECANCELED: dying). */
static int inflight_enter(pid_t tid)
{
	for (int i = 0; i < INFLIGHT_SLOTS; i++) {
		int expected = 0;

		if (!atomic_compare_exchange_strong(&promotions.inflight[i], &expected, (int)tid))
			continue;
		if (atomic_load(&promotions.dying)) {
			atomic_store(&promotions.inflight[i], 0);
			return -ECANCELED;
		}
		return i;
	}
	return -EAGAIN;
}

static void inflight_leave(int slot)
{
	atomic_store(&promotions.inflight[slot], 0);
}

int actuator_grant(const struct backend *b, pid_t tid, const struct backend_grant *g)
{
	int slot = inflight_enter(tid), r;

	if (slot < 0)
		return slot;
	r = b->grant(tid, g);
	inflight_leave(slot);
	return r;
}

int actuator_promote(pid_t tid, bool fifo, int kprio)
{
	struct backend_grant g = { .fifo = fifo, .kprio = kprio };

	return actuator_grant(&backend_kernel_rt, tid, &g);
}

int actuator_demote(const struct backend *b, pid_t tid)
{
	return b->demote(tid);
}

int actuator_demote_signal_safe(pid_t tid)
{
	return backend_demote_signal_safe(tid);
}

void actuator_die(void)
{
	atomic_store(&promotions.dying, true);
	for (int i = 0; i < INFLIGHT_SLOTS; i++) {
		int tid = atomic_load(&promotions.inflight[i]);

		if (!tid)
			continue;
		/* the promotion may still be on its way into the kernel; the
		 * wait is bounded, as the promoter may be this very thread */
		for (int ms = 0; ms < INFLIGHT_WAIT_MS && atomic_load(&promotions.inflight[i]) == tid; ms++) {
			struct timespec ts = { .tv_nsec = 1000000 };

			(void)nanosleep(&ts, NULL);
		}
		(void)actuator_demote_signal_safe((pid_t)tid);
	}
}

int actuator_query(pid_t tid, int *policy, int *prio, int *nice)
{
	struct backend_thread t;
	int r = backend_current()->query(tid, &t);

	if (r < 0)
		return r;
	*policy = t.policy;
	*prio = t.prio;
	*nice = t.nice;
	return 0;
}

int actuator_reset_on_fork(pid_t tid)
{
	return backend_reset_on_fork(tid);
}
