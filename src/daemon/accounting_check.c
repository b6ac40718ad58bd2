/* accounting_check.c — the accounting setting and the checks on values
 * read from the BPF accounting's maps (accounting_check.h). */
#include "accounting_check.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "iso_rule.h"
#include "iso_sched_abi.h"

/* The largest thread id Linux hands out (PID_MAX_LIMIT, 2^22). */
#define TID_MAX 4194304u

/* A switch-in this far in isod's future is a wrong entry, not a race
 * between the program's clock read and isod's (both CLOCK_MONOTONIC). */
#define SINCE_SLACK_NS 1000000000ull

int accounting_parse(const char *s, enum accounting_kind *out)
{
	if (!strcasecmp(s, "auto"))
		*out = ACCOUNTING_AUTO;
	else if (!strcasecmp(s, "bpf"))
		*out = ACCOUNTING_BPF;
	else if (!strcasecmp(s, "proc"))
		*out = ACCOUNTING_PROC;
	else
		return -EINVAL;
	return 0;
}

const char *accounting_kind_name(enum accounting_kind k)
{
	return k == ACCOUNTING_BPF ? "bpf" : k == ACCOUNTING_PROC ? "proc" : "auto";
}

int acct_thread_cpu(const struct acct_thread *v, uint64_t now, uint64_t prev, uint64_t *cpu_ns)
{
	uint64_t live = 0, sum;

	if (v->since_ns == ACCT_UNSEEN)
		return -EAGAIN;
	if (v->since_ns) {
		if (v->since_ns > now + SINCE_SLACK_NS)
			return -EBADMSG;
		live = now > v->since_ns ? now - v->since_ns : 0;
	}
	if (__builtin_add_overflow(v->total_ns, live, &sum))
		return -EBADMSG;
	/* off since a switch out after now: what it ran between now and
	 * then (at most all of it) belongs to a later look */
	if (!v->since_ns && v->off_ns > now)
		sum -= v->off_ns - now < sum ? v->off_ns - now : sum;
	*cpu_ns = sum < prev ? prev : sum;
	return 0;
}

/* u64 clock values isod can use as the engine's signed time */
static bool clock_ok(uint64_t t, uint64_t now)
{
	return t > 0 && t <= now + SINCE_SLACK_NS && t <= (uint64_t)INT64_MAX;
}

void acct_thread_offcpu(const struct acct_thread *v, uint64_t now, struct iso_offcpu *off)
{
	off->n = 0;
	if (now > (uint64_t)INT64_MAX || v->since_ns == ACCT_UNSEEN)
		return;
	if (clock_ok(v->gap_to_ns, now) && clock_ok(v->gap_from_ns, now) &&
	    v->gap_from_ns < v->gap_to_ns) {
		off->from[off->n] = (int64_t)v->gap_from_ns;
		off->to[off->n++] = (int64_t)v->gap_to_ns;
	}
	/* off now, since its last switch out */
	if (v->since_ns == 0 && clock_ok(v->off_ns, now) && v->off_ns < now) {
		off->from[off->n] = (int64_t)v->off_ns;
		off->to[off->n++] = (int64_t)now;
	}
}

void acct_offcpu_resumed(struct iso_offcpu *off, uint64_t off_ns, uint64_t now, uint64_t ran)
{
	struct iso_offcpu keep = *off;
	unsigned i;

	for (i = 0; i < off->n; i++)
		if ((uint64_t)off->from[i] == off_ns && (uint64_t)off->to[i] == now)
			break;
	if (i == off->n)
		return;
	if (ran < now && (uint64_t)off->from[i] < now - ran) {
		off->to[i] = (int64_t)(now - ran);
		return;
	}
	/* it ran longer than it was off: the interval is not where it was */
	off->n = 0;
	for (unsigned j = 0; j < keep.n; j++)
		if (j != i) {
			off->from[off->n] = keep.from[j];
			off->to[off->n++] = keep.to[j];
		}
}

bool acct_stray_valid(const struct acct_stray *s)
{
	bool prio_ok = s->policy == ISO_KSCHED_DEADLINE
			       ? s->prio == 0
			       : s->prio >= ISO_KPRIO_MIN && s->prio <= ISO_KPRIO_MAX;

	return s->tid >= 1 && s->tid <= TID_MAX && s->tgid >= 1 && s->tgid <= TID_MAX &&
	       s->policy <= ISO_KSCHED_EXT && iso_rule_kernel_rt((int)s->policy, (int)s->prio) &&
	       prio_ok && s->uid != 0 && s->uid != (uint32_t)-1;
}

bool acct_lineage_valid(const struct acct_lineage *l)
{
	return (l->kind == ACCT_LINEAGE_FORK || l->kind == ACCT_LINEAGE_EXEC) && l->parent >= 1 &&
	       l->parent <= TID_MAX && l->tid >= 1 && l->tid <= TID_MAX;
}

bool acct_event_valid(const struct acct_event *ev, size_t cap)
{
	return (ev->kind == ACCT_EV_WAKE || ev->kind == ACCT_EV_EXIT) && ev->tid >= 1 &&
	       ev->tid <= TID_MAX && ev->slot < cap && ev->slot < ACCT_MAX_SLOTS;
}

uint64_t acct_start_ticks(uint64_t start_ns, long hz)
{
	/* the kernel's nsec_to_clock_t, for a USER_HZ that divides 10^9 */
	if (hz <= 0 || hz > 1000000000L || 1000000000L % hz != 0)
		return UINT64_MAX;
	return start_ns / (uint64_t)(1000000000L / hz);
}

int acct_band_sum(const struct acct_cpu *cpus, size_t n, uint64_t *sum)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		if (__builtin_add_overflow(s, cpus[i].band_ns, &s))
			return -EOVERFLOW;
	*sum = s;
	return 0;
}

#define LOAD(f) __atomic_load_n(&src->f, __ATOMIC_ACQUIRE)

bool acct_thread_copy(const struct acct_thread *src, uint32_t tid, struct acct_thread *dst)
{
	if (tid == 0 || LOAD(tid) != tid)
		return false;
	/* total before since (a switch-out between the two reads then
	 * loses the live part, never counts it twice); nvcsw before
	 * block_cpu_ns (a new count comes with its new block point) */
	dst->total_ns = LOAD(total_ns);
	dst->since_ns = LOAD(since_ns);
	dst->cpu = LOAD(cpu);
	dst->wait_ns = LOAD(wait_ns);
	dst->nvcsw = LOAD(nvcsw);
	dst->policy = LOAD(policy);
	dst->rt_prio = LOAD(rt_prio);
	dst->block_cpu_ns = LOAD(block_cpu_ns);
	dst->off_ns = LOAD(off_ns);
	/* the gap as one pair: its end before and after its start agree,
	 * or the program rewrote it meanwhile and none is taken */
	dst->gap_to_ns = LOAD(gap_to_ns);
	dst->gap_from_ns = LOAD(gap_from_ns);
	if (LOAD(gap_to_ns) != dst->gap_to_ns)
		dst->gap_to_ns = dst->gap_from_ns = 0;
	/* still tid's after the copy: a slot moved on during it is not */
	dst->tid = LOAD(tid);
	return dst->tid == tid;
}

void acct_thread_reset(struct acct_thread *a, uint32_t tid, uint64_t tracked_ns)
{
	__atomic_store_n(&a->tid, 0, __ATOMIC_RELEASE);
	/* off_ns: "off since it was tracked". The program then records its
	 * first switch in as the end of a gap that began here (its switch
	 * out before it was tracked, it never saw): a thread granted while
	 * it waited — blocked on isod's reply, then kept off a CPU by
	 * another RT thread for 50 ms — has its first step's CPU time
	 * weighed where it fell, not spread from the grant on. Until that
	 * switch in (since_ns unseen) isod reads no off time from it; a
	 * thread on a CPU at tracking switches out first, which sets
	 * off_ns anew. */
	*a = (struct acct_thread){ .since_ns = ACCT_UNSEEN, .block_cpu_ns = ACCT_UNSEEN,
				   .off_ns = tracked_ns };
	__atomic_store_n(&a->tid, tid, __ATOMIC_RELEASE);
}
