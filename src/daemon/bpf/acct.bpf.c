/* acct.bpf.c — isod's BPF accounting (accounting_bpf.c loads it): at
 * every context switch,
 *   - the CPU time of the threads isod tracks (the map "tracked"),
 *   - the time that user threads spend at an RT priority inside the band,
 *     per CPU (the map "band_time"),
 *   - a user thread switching in at a band priority that isod does not
 *     track: a stray, reported on the ring buffer "strays".
 * CO-RE against the running kernel's BTF; only tp_btf, hash/LRU/per-CPU
 * maps and a ring buffer, so kernel 6.1 (Debian 12) loads it. */
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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096); /* isod sets max_threads before loading */
	__type(key, __u32);
	__type(value, struct acct_thread);
} tracked SEC(".maps");

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

#define SCHED_FIFO_ 1
#define SCHED_RR_ 2

/* Is t a user's thread at an RT priority inside the band? */
static __always_inline int in_band_user(struct task_struct *t, __u32 *prio)
{
	unsigned int policy = BPF_CORE_READ(t, policy);
	const struct cred *c;

	if (policy != SCHED_FIFO_ && policy != SCHED_RR_)
		return 0;
	*prio = BPF_CORE_READ(t, rt_priority);
	if (*prio < band_lo || *prio > band_hi)
		return 0;
	c = BPF_CORE_READ(t, real_cred);
	return BPF_CORE_READ(c, uid.val) != 0 || BPF_CORE_READ(c, euid.val) != 0;
}

static __always_inline void report(struct task_struct *t, __u32 tid, __u32 prio, __u64 now)
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
	rec.tgid = BPF_CORE_READ(t, tgid);
	rec.uid = BPF_CORE_READ(c, uid.val);
	if (!rec.uid)
		rec.uid = BPF_CORE_READ(c, euid.val);
	rec.prio = prio;
	bpf_ringbuf_output(&strays, &rec, sizeof(rec), 0);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(isod_acct_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0, prio = 0, tid;
	struct acct_cpu *cpu = bpf_map_lookup_elem(&band_time, &zero);
	struct acct_thread *a;
	int next_in_band = in_band_user(next, &prio);

	if (cpu) {
		if (cpu->since_ns && now > cpu->since_ns)
			cpu->band_ns += now - cpu->since_ns;
		cpu->since_ns = next_in_band ? now : 0;
	}
	tid = BPF_CORE_READ(prev, pid);
	a = tid ? bpf_map_lookup_elem(&tracked, &tid) : 0;
	if (a) {
		/* off the CPU first, then the new total: a reader may see
		 * too little for a moment, never too much (acct_maps.h) */
		*(volatile __u64 *)&a->since_ns = 0;
		compiler_barrier();
		*(volatile __u64 *)&a->total_ns = BPF_CORE_READ(prev, se.sum_exec_runtime);
	}
	tid = BPF_CORE_READ(next, pid);
	if (!tid)
		return 0;
	a = bpf_map_lookup_elem(&tracked, &tid);
	if (a) {
		a->cpu = bpf_get_smp_processor_id();
		*(volatile __u64 *)&a->total_ns = BPF_CORE_READ(next, se.sum_exec_runtime);
		compiler_barrier();
		*(volatile __u64 *)&a->since_ns = now;
	} else if (next_in_band && report_strays) {
		report(next, tid, prio, now);
	}
	return 0;
}
