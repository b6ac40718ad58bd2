/* iso_policy.c — policy rules of the SCHED_ISO patch. */
#include "iso_policy.h"

#include <errno.h>
#include <stddef.h>

bool iso_policy_is_rt(int policy)
{
	return policy == ISO_POLICY_FIFO || policy == ISO_POLICY_RR;
}

bool iso_policy_is_iso(int policy)
{
	return policy == ISO_POLICY_ISO_RR || policy == ISO_POLICY_ISO_FIFO;
}

static bool has_rt_prio(int policy)
{
	return iso_policy_is_rt(policy) || iso_policy_is_iso(policy);
}

bool iso_policy_known(int policy)
{
	switch (policy) {
	case ISO_POLICY_NORMAL:
	case ISO_POLICY_FIFO:
	case ISO_POLICY_RR:
	case ISO_POLICY_BATCH:
	case ISO_POLICY_ISO_RR:
	case ISO_POLICY_IDLE:
	case ISO_POLICY_ISO_FIFO:
		return true;
	default:
		return false;
	}
}

const char *iso_policy_name(int policy)
{
	switch (policy) {
	case ISO_POLICY_NORMAL: return "SCHED_OTHER";
	case ISO_POLICY_FIFO: return "SCHED_FIFO";
	case ISO_POLICY_RR: return "SCHED_RR";
	case ISO_POLICY_BATCH: return "SCHED_BATCH";
	case ISO_POLICY_ISO_RR: return "SCHED_ISO_RR";
	case ISO_POLICY_IDLE: return "SCHED_IDLE";
	case ISO_POLICY_ISO_FIFO: return "SCHED_ISO_FIFO";
	default: return "unknown";
	}
}

const char *iso_kernel_policy_name(int kernel_policy)
{
	switch (kernel_policy & ~ISO_KSCHED_RESET_ON_FORK) {
	case ISO_KSCHED_OTHER: return "SCHED_OTHER";
	case ISO_KSCHED_FIFO: return "SCHED_FIFO";
	case ISO_KSCHED_RR: return "SCHED_RR";
	case ISO_KSCHED_BATCH: return "SCHED_BATCH";
	case ISO_KSCHED_IDLE: return "SCHED_IDLE";
	case ISO_KSCHED_DEADLINE: return "SCHED_DEADLINE";
	case ISO_KSCHED_EXT: return "SCHED_EXT";
	default: return NULL;
	}
}

int iso_priority_max(int policy)
{
	if (!iso_policy_known(policy))
		return -EINVAL;
	return has_rt_prio(policy) ? ISO_PRIO_MAX : 0;
}

int iso_priority_min(int policy)
{
	if (!iso_policy_known(policy))
		return -EINVAL;
	return has_rt_prio(policy) ? ISO_PRIO_MIN : 0;
}

int iso_check_param(int policy, int prio)
{
	if (!iso_policy_known(policy))
		return -EINVAL;
	if (prio < 0 || prio > ISO_PRIO_MAX)
		return -EINVAL;
	if (has_rt_prio(policy) != (prio != 0))
		return -EINVAL;
	return 0;
}

int iso_downgrade(int policy, bool privileged)
{
	if (privileged)
		return policy;
	if (policy == ISO_POLICY_FIFO)
		return ISO_POLICY_ISO_FIFO;
	if (policy == ISO_POLICY_RR)
		return ISO_POLICY_ISO_RR;
	return policy;
}

int iso_check_owner(unsigned caller_euid, bool caller_cap_nice,
		    unsigned target_uid, unsigned target_euid)
{
	if (caller_cap_nice)
		return 0;
	if (caller_euid == target_uid || caller_euid == target_euid)
		return 0;
	return -EPERM;
}

int iso_user_prio(int policy, int prio, int nice)
{
	if (iso_policy_is_rt(policy))
		return -100 - prio;
	if (iso_policy_is_iso(policy))
		return -prio;
	return nice + 20;
}
