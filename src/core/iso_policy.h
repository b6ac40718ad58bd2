/* iso_policy.h — scheduling policies, priority rules and the downgrade,
 * exactly as the SCHED_ISO patch defines them. Pure: no system calls.
 *
 * Return contract: functions returning int give 0 (or a value) on success
 * and a negative errno (-EINVAL, -EPERM) on failure.
 */
#ifndef ISO_POLICY_H
#define ISO_POLICY_H

#include <stdbool.h>

#include "iso_sched_abi.h"

/* Policy numbers as seen by programs. 0..3 are the kernel's; 4 is the
 * number the patch gave SCHED_ISO_RR and is still unused by Linux. 5 was the
 * patch's SCHED_ISO_FIFO but is SCHED_IDLE on every current kernel, so a
 * program's 5 is always SCHED_IDLE; ISO_FIFO is only reached by the
 * downgrade or named through libisosched (ISO_POLICY_ISO_FIFO below). */
enum {
	ISO_POLICY_NORMAL = ISO_KSCHED_OTHER,
	ISO_POLICY_FIFO = ISO_KSCHED_FIFO,
	ISO_POLICY_RR = ISO_KSCHED_RR,
	ISO_POLICY_BATCH = ISO_KSCHED_BATCH,
	ISO_POLICY_ISO_RR = ISO_KSCHED_ISO_RR,
	ISO_POLICY_IDLE = ISO_KSCHED_IDLE,
	/* Not a kernel number: isosched's own name for the patch's
	 * SCHED_ISO_FIFO, used by the library, protocol and CLI. */
	ISO_POLICY_ISO_FIFO = 0x105,
};

#define ISO_PRIO_MIN ISO_KPRIO_MIN
#define ISO_PRIO_MAX ISO_KPRIO_MAX

bool iso_policy_is_rt(int policy);  /* SCHED_FIFO, SCHED_RR */
bool iso_policy_is_iso(int policy); /* ISO_RR, ISO_FIFO */
bool iso_policy_known(int policy);
const char *iso_policy_name(int policy); /* "SCHED_ISO_RR", ..., "unknown" */
/* The name of a policy the kernel reports (sched_getattr, isod's
 * kernel_policy; SCHED_RESET_ON_FORK ignored): SCHED_OTHER ... SCHED_EXT,
 * NULL for anything else (-1: isod could not read it). */
const char *iso_kernel_policy_name(int kernel_policy);

/* sched_get_priority_max/min for any policy; -EINVAL for unknown ones. */
int iso_priority_max(int policy);
int iso_priority_min(int policy);

/* Validate (policy, priority) as sched_setscheduler would: a priority
 * outside 0..99, non-zero with a non-RT/ISO policy, or 0 with an RT/ISO
 * policy is -EINVAL; an unknown policy is -EINVAL. */
int iso_check_param(int policy, int prio);

/* The patch's automatic downgrade: what policy a request ends up with.
 * privileged: caller could get kernel RT itself (CAP_SYS_NICE or enough
 * RLIMIT_RTPRIO). Unprivileged SCHED_FIFO -> ISO_FIFO, SCHED_RR -> ISO_RR;
 * everything else (incl. policy 5, SCHED_IDLE) is returned unchanged. */
int iso_downgrade(int policy, bool privileged);

/* Permission to change a task (the kernel's rule): allowed when the
 * caller has CAP_SYS_NICE or its euid equals the target's uid or euid.
 * Returns 0 or -EPERM. */
int iso_check_owner(unsigned caller_euid, bool caller_cap_nice,
		    unsigned target_uid, unsigned target_euid);

/* The user-visible priority, like the patch's task_prio():
 * NORMAL/BATCH/IDLE: nice + 20 (0..39); ISO: -prio (-1..-99);
 * RT: -100 - prio (-101..-199). */
int iso_user_prio(int policy, int prio, int nice);

#endif
