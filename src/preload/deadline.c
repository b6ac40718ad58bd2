/* deadline.c — an unprivileged sched_setattr(SCHED_DEADLINE), which the
 * kernel refuses with EPERM, becomes a declared reservation from isod
 * (iso_set_reservation, issue 32): runtime every period, finished by the
 * deadline, as kernel SCHED_DEADLINE inside the ISO budget. So
 * cyclicdeadline and the like run unmodified.
 *
 * As for FIFO/RR the kernel is asked first, and a refusal by isod gives
 * the kernel's own EPERM back — but for EBUSY: isod's admission refused
 * the bandwidth, which is what the kernel's own DEADLINE admission says
 * to a privileged caller. Flags beyond RESET_ON_FORK (which isod always
 * sets) — RECLAIM, DL_OVERRUN, util clamps — are not brokered. */
#include "shim.h"

#include <errno.h>
#include <stdint.h>

#include "isosched.h"

int shim_setattr_deadline(pid_t pid, struct sched_attr *a, const struct iso_sched_attr *k)
{
	int saved = errno, err, r;
	pid_t tid;

	if (shim_real()->sched_setattr(pid, a, 0) == 0)
		return 0;
	err = errno;
	tid = shim_tid(pid);
	if (err != EPERM || tid <= 0 || (k->size != 0 && k->size < ISO_SCHED_ATTR_SIZE_VER0) ||
	    (k->sched_flags & ~(uint64_t)ISO_KSCHED_FLAG_RESET_ON_FORK) || k->sched_runtime == 0) {
		errno = err;
		return -1;
	}
	/* the kernel's rule: a period of 0 is the deadline */
	r = iso_set_reservation(tid, k->sched_runtime,
				k->sched_period ? k->sched_period : k->sched_deadline,
				k->sched_deadline, NULL);
	if (r == 0) {
		/* known to the table: leaving DEADLINE later tells isod */
		shim_table_set(tid, ISO_KSCHED_DEADLINE, 0);
		errno = saved;
		return 0;
	}
	errno = r == -EBUSY ? EBUSY : err;
	return -1;
}
