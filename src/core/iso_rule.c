/* iso_rule.c — the rule's one predicate (iso_rule.h). */
#include "iso_rule.h"

#include "iso_sched_abi.h"

static int base_policy(int policy)
{
	return policy & ~ISO_KSCHED_RESET_ON_FORK;
}

bool iso_rule_kernel_rt(int policy, int prio)
{
	(void)prio; /* every priority: lowering is one unprivileged call away */
	policy = base_policy(policy);
	return policy == ISO_KSCHED_FIFO || policy == ISO_KSCHED_RR ||
	       policy == ISO_KSCHED_DEADLINE;
}

bool iso_rule_user(uint32_t ruid, uint32_t euid)
{
	return ruid != 0 || euid != 0;
}

enum iso_rule_verdict iso_rule_judge(const struct iso_rule_thread *t)
{
	int policy = base_policy(t->policy);

	if (!iso_rule_kernel_rt(policy, t->prio))
		return ISO_RULE_NOT_RT;
	if (!iso_rule_user(t->ruid, t->euid))
		return ISO_RULE_ROOT;
	if (t->tracked)
		return ISO_RULE_TRACKED;
	/* DEADLINE: the kernel wants CAP_SYS_NICE whatever the limit */
	if (policy != ISO_KSCHED_DEADLINE && t->prio >= 0 && (uint64_t)t->prio <= t->rtprio_hard)
		return ISO_RULE_RTPRIO;
	return ISO_RULE_STRAY;
}

const char *iso_rule_verdict_name(enum iso_rule_verdict v)
{
	switch (v) {
	case ISO_RULE_NOT_RT:
		return "not-rt";
	case ISO_RULE_ROOT:
		return "root";
	case ISO_RULE_TRACKED:
		return "tracked";
	case ISO_RULE_RTPRIO:
		return "rtprio";
	case ISO_RULE_STRAY:
		return "stray";
	}
	return "?";
}

const char *iso_rule_policy_name(int policy)
{
	switch (base_policy(policy)) {
	case ISO_KSCHED_OTHER:
		return "SCHED_OTHER";
	case ISO_KSCHED_FIFO:
		return "SCHED_FIFO";
	case ISO_KSCHED_RR:
		return "SCHED_RR";
	case ISO_KSCHED_BATCH:
		return "SCHED_BATCH";
	case ISO_KSCHED_IDLE:
		return "SCHED_IDLE";
	case ISO_KSCHED_DEADLINE:
		return "SCHED_DEADLINE";
	case ISO_KSCHED_EXT:
		return "SCHED_EXT";
	}
	return "unknown";
}
