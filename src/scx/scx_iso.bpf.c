/* SPDX-License-Identifier: GPL-2.0 */
/* scx_iso.bpf.c — SCHED_ISO as a sched_ext scheduler (kernel 6.12 API).
 *
 * Every SCHED_NORMAL/SCHED_EXT task is scheduled here. Tasks that isod
 * marked in the "tasks" map are ISO: they run ahead of all others, higher
 * ISO priority first; ISO_FIFO keeps the CPU until it blocks, yields or a
 * higher ISO task preempts it; ISO_RR round-robins at equal priority.
 * Everything else shares the CPUs by weighted virtual time, as scx_simple.
 *
 * The budget is the 2005 patch's, per CPU: each CPU has iso_ticks, +100
 * per tick it runs an ISO task, ×(P−1)/P per tick (P = iso_period in
 * ticks). Above iso_cpu the CPU is refractory and its ISO tasks run as
 * normal ones until iso_ticks falls below 90 % of iso_cpu. A task's own
 * limit is checked against its CPU's use the same way. The accounting tick
 * is 1 ms whatever HZ is, applied lazily over real time, because sched_ext
 * gets no tick while a CPU is idle.
 *
 * Queues: ISO_DSQ, one vtime-ordered DSQ for all ISO tasks keyed by
 * (100 − prio, arrival); FAIR_DSQ, weighted vtime for the rest. A
 * refractory CPU serves FAIR_DSQ first and ISO_DSQ only when that is empty,
 * so an ISO task pinned there is never stranded. */
#include <scx/common.bpf.h>
#include "scx_iso.h"

char _license[] SEC("license") = "GPL";

#define ISO_DSQ 1
#define FAIR_DSQ 2
#define ACCT_TICK_NS 1000000ULL  /* one accounting tick: 1 ms */
#define FIFO_SLICE_NS 20000000ULL /* refilled on every tick while ISO_FIFO */
#define RR_SLICE_NS 20000000ULL   /* ISO_RR quantum */
#define KEY_PRIO_SHIFT 56

const volatile u32 nr_cpus = 1;   /* set by the loader */
volatile u32 fail_now;            /* the loader's --fail test hook */

static u64 vtime_now;
static u64 iso_seq;
UEI_DEFINE(uei);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCX_ISO_MAX_TASKS);
	__type(key, u32);
	__type(value, struct scx_iso_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scx_iso_tune);
} tune SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCX_ISO_MAX_CPUS);
	__type(key, u32);
	__type(value, struct scx_iso_cpu);
} cpus SEC(".maps");

static inline bool vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static struct scx_iso_cpu *cpu_state(s32 cpu)
{
	u32 k = (u32)cpu;

	return bpf_map_lookup_elem(&cpus, &k);
}

/* Tunables, validated: a bad write from userspace falls back to defaults
 * rather than dividing by zero. */
static void get_tune(u32 *iso_cpu, u64 *period)
{
	u32 k = 0;
	struct scx_iso_tune *t = bpf_map_lookup_elem(&tune, &k);

	*iso_cpu = SCX_ISO_CPU_DEFAULT;
	*period = SCX_ISO_PERIOD_MS_DEFAULT;
	if (t && t->iso_cpu >= 1 && t->iso_cpu <= 100 && t->iso_period_ms >= 1 &&
	    t->iso_period_ms <= 3600000) {
		*iso_cpu = t->iso_cpu;
		*period = t->iso_period_ms;
	}
}

/* Bring c's iso_ticks up to now: every elapsed tick decays by (P−1)/P and
 * adds 100 if an ISO task ran (cur_rank), in chunks of P/16 ticks so a long
 * idle gap costs at most 128 steps; after 8·P ticks the average has settled
 * (e^−8) and is set outright. Then update the refractory state. */
static void account(struct scx_iso_cpu *c, u64 now)
{
	u32 iso_cpu;
	u64 P, n, cap, step, ticks, limit;
	bool iso;
	int i;

	if (!c->last_ns) {
		c->last_ns = now;
		return;
	}
	if (now <= c->last_ns)
		return;
	n = (now - c->last_ns) / ACCT_TICK_NS;
	if (!n)
		return;
	c->last_ns += n * ACCT_TICK_NS;
	get_tune(&iso_cpu, &P);
	cap = P * 100;
	iso = c->cur_rank > 0;
	ticks = c->iso_ticks;
	if (n >= 8 * P) {
		ticks = iso ? cap : 0;
	} else {
		step = P / 16;
		if (!step)
			step = 1;
		for (i = 0; i < 130 && n; i++) {
			u64 s = n < step ? n : step;

			ticks -= ticks * s / P;
			if (iso)
				ticks += 100 * s;
			n -= s;
		}
	}
	if (ticks > cap)
		ticks = cap;
	c->iso_ticks = ticks;
	limit = (u64)iso_cpu * (P + 1);
	if (!c->refractory && ticks > limit) {
		c->refractory = 1;
		c->refractory_entries++;
	} else if (c->refractory && ticks * 10 < limit * 9) {
		c->refractory = 0;
	}
}

/* Should e run as ISO on CPU c now? Updates its demoted bits with the
 * patch's hysteresis for its own limit, and counts demotions. */
static bool iso_effective(struct scx_iso_task *e, struct scx_iso_cpu *c)
{
	u32 was = e->demoted, d = was, iso_cpu;
	u64 P;

	if (e->policy != SCX_ISO_RR && e->policy != SCX_ISO_FIFO)
		return false;
	if (!c)
		return true;
	d &= ~SCX_ISO_DEMOTED_CPU;
	if (c->refractory)
		d |= SCX_ISO_DEMOTED_CPU;
	if (e->limit) {
		u64 lim;

		get_tune(&iso_cpu, &P);
		lim = (u64)e->limit * (P + 1);
		if (!(d & SCX_ISO_DEMOTED_LIMIT) && c->iso_ticks > lim)
			d |= SCX_ISO_DEMOTED_LIMIT;
		else if ((d & SCX_ISO_DEMOTED_LIMIT) && c->iso_ticks * 10 < lim * 9)
			d &= ~SCX_ISO_DEMOTED_LIMIT;
	} else {
		d &= ~SCX_ISO_DEMOTED_LIMIT;
	}
	if (!was && d)
		__sync_fetch_and_add(&e->demotions, 1);
	e->demoted = d;
	return !d;
}

/* Add the time since e last started (or was last charged) to its
 * counters: on every tick, since an ISO_FIFO task may never stop. */
static void charge(struct scx_iso_task *e, struct scx_iso_cpu *c, u64 now)
{
	if (now <= e->run_start)
		return;
	e->run_ns += now - e->run_start;
	if (c && c->cur_rank)
		e->iso_ns += now - e->run_start;
	e->run_start = now;
}

static struct scx_iso_task *iso_entry(struct task_struct *p)
{
	u32 tid = (u32)p->pid;

	return bpf_map_lookup_elem(&tasks, &tid);
}

/* An ISO task of rank prio is queued: if a CPU it may use runs something
 * of lower rank, make that CPU preempt (the task's own CPU first, so cache
 * affinity wins ties). Only a wakeup may kick its own CPU: any other
 * enqueue comes from that CPU rescheduling already (slice end, preemption),
 * where cur_rank is momentarily 0 and a kick would preempt the task it is
 * about to pick, and the two would take turns preempting each other. */
static void preempt_for(struct task_struct *p, u32 prio, bool wakeup)
{
	s32 own = scx_bpf_task_cpu(p), best = -1;
	u32 best_rank = prio;
	struct scx_iso_cpu *c;
	u32 i;

	c = cpu_state(own);
	if (wakeup && c && !c->refractory && c->cur_rank < prio &&
	    bpf_cpumask_test_cpu(own, p->cpus_ptr)) {
		best = own;
	} else {
		bpf_for(i, 0, nr_cpus) {
			if (i >= SCX_ISO_MAX_CPUS)
				break;
			if (!wakeup && i == (u32)own)
				continue;
			c = cpu_state(i);
			if (!c || c->refractory || c->cur_rank >= best_rank ||
			    !bpf_cpumask_test_cpu(i, p->cpus_ptr))
				continue;
			best = i;
			best_rank = c->cur_rank;
		}
	}
	if (best < 0)
		return;
	c = cpu_state(best);
	if (c && c->cur_rank > 0)
		c->kicked = 1;
	scx_bpf_kick_cpu(best, SCX_KICK_PREEMPT);
}

s32 BPF_STRUCT_OPS(iso_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool is_idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &is_idle);

	/* only normal tasks go straight to an idle CPU: ISO ones take the
	 * enqueue path, where their CPU's budget is checked */
	if (is_idle && !iso_entry(p))
		scx_bpf_dispatch(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, 0);
	return cpu;
}

void BPF_STRUCT_OPS(iso_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct scx_iso_task *e = iso_entry(p);
	u64 vtime;

	if (e && iso_effective(e, cpu_state(scx_bpf_task_cpu(p)))) {
		u32 prio = e->prio < 1 ? 1 : (e->prio > 99 ? 99 : e->prio);
		u64 seq = __sync_fetch_and_add(&iso_seq, 1) + 1;
		u64 key;

		/* a preempted ISO_FIFO task goes back to the head of its priority */
		if (e->head && e->policy == SCX_ISO_FIFO)
			seq = 0;
		e->head = 0;
		key = ((u64)(100 - prio) << KEY_PRIO_SHIFT) |
		      (seq & ((1ULL << KEY_PRIO_SHIFT) - 1));
		scx_bpf_dispatch_vtime(p, ISO_DSQ,
				       e->policy == SCX_ISO_FIFO ? FIFO_SLICE_NS : RR_SLICE_NS,
				       key, enq_flags);
		preempt_for(p, prio, enq_flags & SCX_ENQ_WAKEUP);
		return;
	}
	vtime = p->scx.dsq_vtime;
	/* an idle task may bank at most one slice of budget */
	if (vtime_before(vtime, vtime_now - SCX_SLICE_DFL))
		vtime = vtime_now - SCX_SLICE_DFL;
	scx_bpf_dispatch_vtime(p, FAIR_DSQ, SCX_SLICE_DFL, vtime, enq_flags);
}

void BPF_STRUCT_OPS(iso_dispatch, s32 cpu, struct task_struct *prev)
{
	struct scx_iso_cpu *c = cpu_state(cpu);

	if (fail_now)
		scx_bpf_error("scx_iso: failure requested (test hook)");
	if (c)
		account(c, bpf_ktime_get_ns());
	if (c && c->refractory) {
		if (!scx_bpf_consume(FAIR_DSQ))
			scx_bpf_consume(ISO_DSQ);
		return;
	}
	if (!scx_bpf_consume(ISO_DSQ))
		scx_bpf_consume(FAIR_DSQ);
}

void BPF_STRUCT_OPS(iso_running, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct scx_iso_cpu *c = cpu_state(cpu);
	struct scx_iso_task *e = iso_entry(p);
	u64 now = bpf_ktime_get_ns();

	if (c) {
		account(c, now);
		c->kicked = 0;
		c->cur_rank = 0;
	}
	if (e) {
		e->last_cpu = (u32)cpu;
		e->run_start = now;
		if (c && iso_effective(e, c))
			c->cur_rank = e->prio < 1 ? 1 : (e->prio > 99 ? 99 : e->prio);
		return;
	}
	/* global vtime moves forward as tasks run; racy across CPUs, and the
	 * error is bounded and temporary, as in scx_simple */
	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
}

void BPF_STRUCT_OPS(iso_tick, struct task_struct *p)
{
	struct scx_iso_cpu *c = cpu_state(scx_bpf_task_cpu(p));
	struct scx_iso_task *e = iso_entry(p);
	u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	account(c, now);
	if (e)
		charge(e, c, now);
	if (!c->cur_rank)
		return;
	if (!e || !iso_effective(e, c)) {
		/* refractory or over its limit (or isod took it back): give
		 * up the CPU now, enqueue files it as normal */
		c->cur_rank = 0;
		p->scx.slice = 0;
		return;
	}
	/* ISO_FIFO keeps the CPU, unless a higher ISO task asked for it: the
	 * kick's zero slice must not be refilled before the CPU reschedules */
	if (c->kicked)
		p->scx.slice = 0;
	else if (e->policy == SCX_ISO_FIFO)
		p->scx.slice = FIFO_SLICE_NS;
}

void BPF_STRUCT_OPS(iso_stopping, struct task_struct *p, bool runnable)
{
	struct scx_iso_cpu *c = cpu_state(scx_bpf_task_cpu(p));
	struct scx_iso_task *e = iso_entry(p);
	u64 now = bpf_ktime_get_ns();

	if (c)
		account(c, now);
	if (e) {
		charge(e, c, now);
		if (c && c->kicked && runnable)
			e->head = 1;
	} else {
		/* weighted vtime charge, as scx_simple */
		p->scx.dsq_vtime += (SCX_SLICE_DFL - p->scx.slice) * 100 / p->scx.weight;
	}
	if (c) {
		c->cur_rank = 0;
		c->kicked = 0;
	}
}

void BPF_STRUCT_OPS(iso_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

void BPF_STRUCT_OPS(iso_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	u32 tid = (u32)p->pid;

	/* the tid may be reused: an exited thread's grant must not pass on */
	bpf_map_delete_elem(&tasks, &tid);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(iso_init)
{
	s32 r = scx_bpf_create_dsq(ISO_DSQ, -1);

	if (r)
		return r;
	return scx_bpf_create_dsq(FAIR_DSQ, -1);
}

void BPF_STRUCT_OPS(iso_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

SCX_OPS_DEFINE(iso_ops,
	       .select_cpu		= (void *)iso_select_cpu,
	       .enqueue			= (void *)iso_enqueue,
	       .dispatch		= (void *)iso_dispatch,
	       .running			= (void *)iso_running,
	       .tick			= (void *)iso_tick,
	       .stopping		= (void *)iso_stopping,
	       .enable			= (void *)iso_enable,
	       .exit_task		= (void *)iso_exit_task,
	       .init			= (void *)iso_init,
	       .exit			= (void *)iso_exit,
	       .name			= SCX_ISO_OPS_NAME);
