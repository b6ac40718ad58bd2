/* acct.bpf.c — isod's BPF accounting (accounting_bpf.c loads it): at
 * every context switch,
 *   - the CPU time of the threads isod tracks ("tracked": TID to isod's
 *     slot; "threads": per slot, what isod reads in place, mmapped),
 *   - the time that user threads spend at an RT priority inside the band,
 *     per CPU (the map "band_time"),
 *   - a user thread switching in as kernel RT (FIFO or RR at any
 *     priority, or DEADLINE: the rule, iso_rule.h) that isod does not
 *     track: maybe a stray, reported on the ring buffer "strays",
 *   - which tracked threads switched in since isod last looked, and which
 *     are on a CPU now (ran_bits, on_cpu: isod reads only those), and
 *     the first switch-in while isod sleeps armed (reported on "events");
 * and at a tracked thread's exit, a report on "events" (isod forgets it);
 * a tracked thread's fork and an exec in its process, on "lineage".
 * CO-RE against the running kernel's BTF; only tp_btf, hash/LRU/per-CPU
 * maps, ring buffers and BPF_ATOMIC (-mcpu=v3), so kernel 6.1 (Debian
 * 12) loads it. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "acct_maps.h"

char LICENSE[] SEC("license") = "GPL";

/* the band, kernel RT priorities: set by isod before loading */
const volatile __u32 band_lo = 1;
const volatile __u32 band_hi = 0;
/* isod's sweep_orphans (strays.h): report strays at all? Set at run time. */
__u32 report_strays;
/* isod's inherit: report a tracked thread's new processes? Run time. */
__u32 report_forks;
__u32 lineage_lost;
/* stray reports the ring "strays" had no room for, a running count isod
 * reads (and audits every thread when it grew): a flood hides none */
__u64 strays_lost;
/* shared with isod through the mmapped .bss (acct_maps.h) */
__u64 ran_bits[ACCT_SLOT_WORDS];
__u32 on_cpu[ACCT_MAX_CPUS];
struct acct_cpu_tid cpu_tid[ACCT_MAX_CPUS] __attribute__((aligned(64)));
__u32 tid_filter[ACCT_TID_FILTER];
__u32 armed;
__u32 lost;
__u64 woke_ns; /* when it last cleared armed */
__u64 gap_epoch;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096); /* isod sets max_threads before loading */
	__type(key, __u32);
	__type(value, __u32); /* the slot */
} tracked SEC(".maps");

/* per slot, isod maps it into its memory: a check reads the threads it
 * needs in place, no system call for any of them (acct_maps.h) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 4096); /* isod: max_threads */
	__type(key, __u32);
	__type(value, struct acct_thread);
} threads SEC(".maps");

/* per TID, the earliest time of its next report (rate limit; isod moves
 * it further for a thread it leaves alone): LRU, so a flood of strays
 * cannot fill it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} reported SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 * 4096);
} strays SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 4096);
} lineage SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct acct_cpu);
} band_time SEC(".maps");

/* BPF has no fence: a compiler barrier keeps the stores in program
 * order, which x86's memory model keeps across CPUs; elsewhere isod's
 * checks (never backwards, accounting_check.c) bound what a torn read
 * can do */
#define compiler_barrier() asm volatile("" ::: "memory")

/* An index already checked against n (a power of two), masked again at
 * the access: the compiler may spill the checked value to the stack as
 * 32 bits, and kernel 6.1's verifier forgets the bounds of such a spill
 * ("R2 unbounded memory access"); newer ones keep them. The compiler,
 * knowing the check, would drop a plain mask. */
static __always_inline __u32 bound_idx(__u32 i, __u32 n)
{
	asm volatile("" : "+r"(i)); /* the compiler knows nothing of i: the mask stays */
	return i & (n - 1);
}
#define BOUND(i, n) bound_idx((i), (n))
_Static_assert((ACCT_MAX_CPUS & (ACCT_MAX_CPUS - 1)) == 0, "ACCT_MAX_CPUS: a power of two");
_Static_assert((ACCT_MAX_SLOTS & (ACCT_MAX_SLOTS - 1)) == 0, "ACCT_MAX_SLOTS: a power of two");
_Static_assert((ACCT_TID_FILTER & (ACCT_TID_FILTER - 1)) == 0, "ACCT_TID_FILTER: a power of two");

#define SCHED_FIFO_ 1
#define SCHED_RR_ 2
#define SCHED_DEADLINE_ 6
#define TASK_DEAD_ 0x80 /* include/linux/sched.h, the same since 4.x */

/* Is t a user's thread at an RT priority inside the band? For band_time
 * only (the time user threads spend there, a figure isod shows), not the
 * rule: strays are rt_user's, at any priority. The task's
 * own fields are read in place: tp_btf hands typed pointers, which the
 * verifier lets the program load directly (CO-RE relocated, no helper
 * call: this runs at every switch on the machine). The cred behind its
 * __rcu pointer goes through BPF_CORE_READ, which every kernel from 6.1
 * accepts, and only for a task in the band. */
static __always_inline int in_band_user(struct task_struct *t, __u32 *prio)
{
	unsigned int policy = t->policy;
	const struct cred *c;

	if (policy != SCHED_FIFO_ && policy != SCHED_RR_)
		return 0;
	*prio = t->rt_priority;
	if (*prio < band_lo || *prio > band_hi)
		return 0;
	c = BPF_CORE_READ(t, real_cred);
	return BPF_CORE_READ(c, uid.val) != 0 || BPF_CORE_READ(c, euid.val) != 0;
}

/* Is t a user's thread that is kernel RT — SCHED_FIFO or SCHED_RR at any
 * priority, or SCHED_DEADLINE? The same question as iso_rule.h's
 * iso_rule_kernel_rt and iso_rule_user (the program cannot link it):
 * isod checks each report against them (acct_stray_valid) and judges
 * the rest (tracked by now? allowed by its hard RLIMIT_RTPRIO?). Not
 * the band's question: below the band is one unprivileged call away. */
static __always_inline int rt_user(struct task_struct *t, __u32 *policy, __u32 *prio)
{
	const struct cred *c;

	*policy = t->policy;
	if (*policy != SCHED_FIFO_ && *policy != SCHED_RR_ && *policy != SCHED_DEADLINE_)
		return 0;
	*prio = t->rt_priority;
	c = BPF_CORE_READ(t, real_cred);
	return BPF_CORE_READ(c, uid.val) != 0 || BPF_CORE_READ(c, euid.val) != 0;
}

static __always_inline void report(struct task_struct *t, __u32 tid, __u32 policy, __u32 prio,
				   __u64 now)
{
	struct acct_stray rec;
	__u64 *next = bpf_map_lookup_elem(&reported, &tid);
	__u64 again = now + ACCT_STRAY_EVERY_NS;
	const struct cred *c;

	if (next && now < *next)
		return;
	bpf_map_update_elem(&reported, &tid, &again, BPF_ANY);
	c = BPF_CORE_READ(t, real_cred);
	rec.tid = tid;
	rec.tgid = t->tgid;
	rec.uid = BPF_CORE_READ(c, uid.val);
	if (!rec.uid)
		rec.uid = BPF_CORE_READ(c, euid.val);
	rec.prio = prio;
	rec.policy = policy;
	if (bpf_ringbuf_output(&strays, &rec, sizeof(rec), 0) < 0)
		__sync_fetch_and_add(&strays_lost, 1);
}

/* A report on "events"; if it cannot be written isod reads everything
 * at its next check (lost). */
static __always_inline void event(__u32 kind, __u32 tid, __u32 slot, __u64 start_ns)
{
	struct acct_event ev = { kind, tid, slot, 0, start_ns };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP) < 0)
		__sync_lock_test_and_set(&lost, 1);
}

/* Mark slot as run since isod's last look; 1 if it was not yet. The
 * fetching atomic orders the bit before the read of "armed" that
 * follows (isod: arm, then read the bits — neither misses the other). */
static __always_inline int mark_ran(__u32 slot)
{
	__u64 bit, old;

	if (slot >= ACCT_MAX_SLOTS)
		return 0;
	bit = 1ULL << (slot & 63);
	old = __sync_fetch_and_or(&ran_bits[BOUND(slot, ACCT_MAX_SLOTS) / 64], bit);
	return !(old & bit);
}

/* Mark slot as run; if that is the first run since isod armed the
 * kernel (its plan is quiet: no check until told), disarm and tell it.
 * Every path that sets a bit while armed goes through here, or reports
 * an exit: a bit set silently would keep the thread's next switch-in
 * from waking isod (mark_ran answers 0 then), and isod would sleep on
 * through a run it must see. */
static __always_inline void ran_wake(__u32 tid, __u32 slot, __u64 now)
{
	if (mark_ran(slot) && *(volatile __u32 *)&armed && __sync_lock_test_and_set(&armed, 0)) {
		*(volatile __u64 *)&woke_ns = now;
		event(ACCT_EV_WAKE, tid, slot, 0);
	}
}

/* May tid be tracked? No hash lookup for a TID whose count is 0
 * (acct_maps.h: tid_filter): most switches on the machine end here. */
static __always_inline int maybe_tracked(__u32 tid)
{
	return tid && *(volatile __u32 *)&tid_filter[BOUND(tid, ACCT_TID_FILTER)] != 0;
}

/* tid's entry, if isod tracks it (slot: its slot). An entry whose tid is
 * another's is a slot isod has moved on from since the lookup. */
static __always_inline struct acct_thread *thread_of(__u32 tid, __u32 *slot)
{
	__u32 *s = maybe_tracked(tid) ? bpf_map_lookup_elem(&tracked, &tid) : 0;
	struct acct_thread *a;

	if (!s)
		return 0;
	*slot = *s;
	a = bpf_map_lookup_elem(&threads, slot);
	if (!a || *(volatile __u32 *)&a->tid != tid)
		return 0;
	return a;
}

/* a switches in at now: the time it was off every CPU, if it is the
 * longest of isod's present step (acct_maps.h: off_ns, gap_*) */
static __always_inline void note_gap(struct acct_thread *a, __u64 now)
{
	__u64 off = *(volatile __u64 *)&a->off_ns, to = *(volatile __u64 *)&a->gap_to_ns;
	__u64 from = *(volatile __u64 *)&a->gap_from_ns;

	if (!off || now <= off)
		return;
	if (to >= *(volatile __u64 *)&gap_epoch && to > from && now - off <= to - from)
		return;
	*(volatile __u64 *)&a->gap_to_ns = 0;
	compiler_barrier();
	*(volatile __u64 *)&a->gap_from_ns = off;
	compiler_barrier();
	*(volatile __u64 *)&a->gap_to_ns = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(isod_acct_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	/* the clock only when something needs it: most switches on the
	 * machine are of tasks neither in the band nor tracked */
	__u64 now = 0;
	__u32 zero = 0, prio = 0, policy = 0, tid, cpu_id = bpf_get_smp_processor_id(), mark = 0;
	__u32 slot = 0;
	int keep = 1; /* an untracked task follows an untracked one */
	struct acct_cpu *cpu = bpf_map_lookup_elem(&band_time, &zero);
	struct acct_thread *a;
	int next_in_band = in_band_user(next, &prio);

	if (cpu && (cpu->since_ns || next_in_band)) {
		now = bpf_ktime_get_ns();
		if (cpu->since_ns && now > cpu->since_ns)
			cpu->band_ns += now - cpu->since_ns;
		cpu->since_ns = next_in_band ? now : 0;
	}
	if (cpu_id < ACCT_MAX_CPUS)
		__sync_lock_test_and_set(&cpu_tid[BOUND(cpu_id, ACCT_MAX_CPUS)].tid,
					 (__u32)next->pid);
	tid = prev->pid;
	a = thread_of(tid, &slot);
	if (a) {
		if (!now)
			now = bpf_ktime_get_ns();
		/* still runnable (preempted, by isod's enforcer say, in the
		 * kernel or on its way back to user space: "preempt" is false
		 * then): still "on this CPU" for isod, unless a tracked thread
		 * takes the CPU. prev_state 0: TASK_RUNNING */
		keep = 0;
		if (prev_state == 0 && slot < ACCT_MAX_SLOTS)
			mark = slot + 1;
		/* off by its entry, yet switching out: the kernel put it on
		 * this CPU with no switch event (accounting_bpf_look.h); the
		 * run it had is counted now, and isod must read it */
		if (*(volatile __u64 *)&a->since_ns == 0)
			ran_wake(tid, slot, now);
		/* off the CPU first, then the new total: a reader may see
		 * too little for a moment, never too much (acct_maps.h) */
		*(volatile __u64 *)&a->since_ns = 0;
		compiler_barrier();
		*(volatile __u64 *)&a->total_ns = prev->se.sum_exec_runtime;
		a->wait_ns = prev->sched_info.run_delay;
		if (!preempt && prev_state) {
			*(volatile __u64 *)&a->block_cpu_ns = a->total_ns;
			compiler_barrier();
		}
		*(volatile __u64 *)&a->nvcsw = prev->nvcsw;
		*(volatile __u64 *)&a->off_ns = now;
		a->policy = prev->policy;
		a->rt_prio = prev->rt_priority;
		/* its last switch (TASK_DEAD): reported as an exit too, for a
		 * thread isod began to track after the exit tracepoint had
		 * fired in it (a zombie leader still reads well in /proc) */
		if (prev_state & TASK_DEAD_) {
			mark_ran(slot);
			event(ACCT_EV_EXIT, tid, slot, prev->start_boottime);
		}
	}
	tid = next->pid;
	a = thread_of(tid, &slot);
	if (a) {
		__u32 was_on = a->cpu;

		if (!now)
			now = bpf_ktime_get_ns();

		a->cpu = cpu_id;
		a->wait_ns = next->sched_info.run_delay;
		a->nvcsw = next->nvcsw;
		a->policy = next->policy;
		a->rt_prio = next->rt_priority;
		*(volatile __u64 *)&a->total_ns = next->se.sum_exec_runtime;
		compiler_barrier();
		*(volatile __u64 *)&a->since_ns = now;
		note_gap(a, now);
		mark = slot < ACCT_MAX_SLOTS ? slot + 1 : 0;
		keep = 0;
		/* moved here: it is no longer on the CPU it was preempted on */
		if (was_on != cpu_id && was_on < ACCT_MAX_CPUS && mark)
			__sync_val_compare_and_swap(&on_cpu[BOUND(was_on, ACCT_MAX_CPUS)], mark, 0);
		ran_wake(tid, slot, now);
	} else if (tid && report_strays && rt_user(next, &policy, &prio)) {
		if (!now)
			now = bpf_ktime_get_ns();
		report(next, tid, policy, prio, now);
	}
	if (cpu_id < ACCT_MAX_CPUS) {
		if (!keep)
			*(volatile __u32 *)&on_cpu[BOUND(cpu_id, ACCT_MAX_CPUS)] = mark;
	} else if (mark)
		__sync_lock_test_and_set(&lost, 1);
	return 0;
}

/* Fires in each exiting thread (do_exit): a tracked one is reported, and
 * marked as run, so that a lost report still has it read (and found
 * gone) at isod's next check. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(isod_acct_exit, struct task_struct *p)
{
	__u32 tid = p->pid, slot = 0;

	if (!thread_of(tid, &slot))
		return 0;
	mark_ran(slot);
	event(ACCT_EV_EXIT, tid, slot, p->start_boottime);
	return 0;
}

static __always_inline void lineage_report(__u32 kind, __u32 parent, __u32 tid)
{
	struct acct_lineage l = { kind, parent, tid, 0 };

	if (bpf_ringbuf_output(&lineage, &l, sizeof(l), 0) < 0)
		__sync_lock_test_and_set(&lineage_lost, 1);
}

/* Every fork and thread creation on the machine passes here (current is
 * parent); only a tracked thread's new process goes to isod, and only
 * when it adopts children (inherit), so isod no longer wakes for the
 * machine's fork churn. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(isod_acct_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid, ctid;

	if (!report_forks)
		return 0;
	ctid = child->pid;
	if (ctid != (__u32)child->tgid)
		return 0; /* a thread: the preload shim passes ISO on itself */
	ptid = parent->pid;
	if (!maybe_tracked(ptid) || !bpf_map_lookup_elem(&tracked, &ptid))
		return 0;
	lineage_report(ACCT_LINEAGE_FORK, ptid, ctid);
	return 0;
}

/* An exec: p is the thread that exec'd, with the process's TID by now
 * (old_pid: its own before). Its other threads are gone (their exits are
 * reported); what isod must look at is the leader's or the exec'ing
 * thread's grant, whose program (and identity) just changed. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(isod_acct_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tid = p->pid, old = (__u32)old_pid;

	if (!(maybe_tracked(tid) && bpf_map_lookup_elem(&tracked, &tid)) &&
	    !(maybe_tracked(old) && bpf_map_lookup_elem(&tracked, &old)))
		return 0;
	lineage_report(ACCT_LINEAGE_EXEC, old, (__u32)p->tgid);
	return 0;
}
