/* iso_rule.h — the rule, as one pure predicate: is a thread kernel real
 * time out of policy (a stray)?
 *
 *   No thread of a user (real or effective uid not 0) is kernel RT —
 *   SCHED_FIFO or SCHED_RR at ANY priority 1..99, or SCHED_DEADLINE —
 *   unless isod tracks it (polices it: budget, burst guard, stall cap), or
 *   its own process's HARD RLIMIT_RTPRIO allows it (FIFO/RR at a priority
 *   at most that limit: the administrator's explicit choice, limits.conf's
 *   "@audio - rtprio 95" or systemd's LimitRTPRIO=).
 *
 * Not "in the band": the kernel lets any RT thread lower its own priority
 * without privilege, and an exec carries the policy into a new image, so
 * a band-only rule is one system call from an escape (issue 28).
 * SCHED_DEADLINE is never allowed by RLIMIT_RTPRIO: the kernel always
 * wants CAP_SYS_NICE for it. RLIMIT_RTTIME is no exemption: any user may
 * set it (prlimit).
 *
 * Every judge of the rule uses this: isod's stray scan and audit
 * (src/daemon/strays.c), its check of the BPF program's stray reports
 * (accounting_check.c: the program reports exactly iso_rule_kernel_rt
 * threads of users, acct.bpf.c), and the tests' auditor
 * (tests/integration/audit.sh, checked against this on a table of cases
 * by the unit test rule_audit). Pure: no system calls. */
#ifndef ISO_RULE_H
#define ISO_RULE_H

#include <stdbool.h>
#include <stdint.h>

/* A hard RLIMIT_RTPRIO of "unlimited" (RLIM_INFINITY) */
#define ISO_RULE_RTPRIO_UNLIMITED UINT64_MAX

/* What a judge knows about one thread. */
struct iso_rule_thread {
	int policy;	      /* the kernel's number; SCHED_RESET_ON_FORK ignored */
	int prio;	      /* its sched_priority (0 for every non-RT policy) */
	uint32_t ruid, euid;  /* real and effective uid */
	uint64_t rtprio_hard; /* its process's hard RLIMIT_RTPRIO */
	bool tracked;	      /* isod tracks it (any running isod, for an auditor) */
};

/* In this order: the first that holds is the verdict. */
enum iso_rule_verdict {
	ISO_RULE_NOT_RT,  /* not kernel FIFO, RR or DEADLINE */
	ISO_RULE_ROOT,	  /* real and effective uid 0: root's RT is root's */
	ISO_RULE_TRACKED, /* isod polices it */
	ISO_RULE_RTPRIO,  /* FIFO/RR at most its hard RLIMIT_RTPRIO */
	ISO_RULE_STRAY,	  /* out of policy: demote it */
};

/* Is policy (and priority) kernel real time? FIFO or RR at any priority
 * (a value outside 1..99 is still FIFO or RR), or DEADLINE. */
bool iso_rule_kernel_rt(int policy, int prio);
/* The owner is a user, not root: ruid or euid not 0. */
bool iso_rule_user(uint32_t ruid, uint32_t euid);
enum iso_rule_verdict iso_rule_judge(const struct iso_rule_thread *t);
/* "not-rt", "root", "tracked", "rtprio", "stray" (audit.sh's words). */
const char *iso_rule_verdict_name(enum iso_rule_verdict v);
/* The kernel's name of a policy ("SCHED_FIFO", "SCHED_DEADLINE", ...),
 * "unknown" for a number it has none for. */
const char *iso_rule_policy_name(int policy);

#endif
