/* acct_maps.h — the layout of what the BPF accounting program (acct.bpf.c)
 * and isod (accounting_bpf.c) share through maps and the ring buffer.
 * Both sides include it: the BPF side with vmlinux.h's __u32/__u64, isod
 * with <linux/types.h>. Everything read from a map is checked by isod
 * before use (accounting_check.h): it comes from outside isod's memory. */
#ifndef ISOD_BPF_ACCT_MAPS_H
#define ISOD_BPF_ACCT_MAPS_H

/* A tracked thread's CPU time: the map "threads", an array by isod's
 * slot (its task-table index), which isod maps into its memory and reads
 * in place; "tracked" maps a TID to its slot. tid: whose entry it is,
 * written by isod before the TID goes into "tracked" and cleared after it
 * leaves, so the program writes no entry of a thread isod has moved on
 * from (it checks tid after its lookup), and isod takes an entry only
 * with the TID it expects.
 * total_ns: the kernel's own sum_exec_runtime at its last switch in or
 * out; since_ns: bpf_ktime_get_ns() (CLOCK_MONOTONIC) of its switch-in
 * while it is on a CPU, 0 while it is off, ACCT_UNSEEN until the program
 * first saw it switch (isod added it while it ran: isod falls back to
 * /proc until then). Field order matters: total_ns before since_ns, and
 * the program clears since_ns before it moves total_ns on, so a copy
 * taken while it writes may be short, never long (accounting_check.c).
 * cpu: the CPU of its last switch-in (isod's scope per-cpu), checked
 * against the CPU count by isod.
 * wait_ns, nvcsw: the kernel's run-queue wait (sched_info.run_delay,
 * schedstat's second field) and voluntary switch count at its last switch
 * in or out — the burst guard's inputs, so a check reads no /proc file
 * for a thread the program has seen. Neither moves between two switches
 * of the thread (nvcsw grows before the tracepoint, at a switch out;
 * run_delay at a switch in, after it, so the wait just ended is counted
 * at the switch out, as schedstat counts it once the thread runs).
 * policy, rt_prio: what it ran as then. A thread off the CPU runs with
 * them when it next runs unless someone changes them meanwhile, and that
 * shows at its next switch in: isod_verify asks the kernel only about
 * threads on a CPU, not seen yet, or seen with something else.
 * block_cpu_ns: its sum_exec_runtime at its last voluntary switch out
 * (not preempted, not runnable: the kernel's own rule for nvcsw), or
 * ACCT_UNSEEN before one: where its present run without blocking began,
 * for the burst guard (iso_burst.h has_block). Written before nvcsw and
 * placed after it, so a copy that has the new count has the new block
 * point too (a copy in between has the old count: a run too short, the
 * safe side: the guard demotes only on proof).
 * off_ns: bpf_ktime_get_ns() of its last switch out (0: none yet): off
 * every CPU since then while since_ns is 0. gap_from_ns, gap_to_ns: the
 * longest time it spent off every CPU, of those that ended at or after
 * the .bss gap_epoch (isod's last check): where in a step its CPU time
 * did not fall, so the average weighs it where it did (iso_place.h; a
 * runaway the RT throttle held off for 50 ms). The program clears
 * gap_to_ns, writes gap_from_ns, then gap_to_ns; isod reads gap_to_ns
 * before and after gap_from_ns and takes the pair only if both agree. */
struct acct_thread {
	__u64 total_ns;
	__u64 since_ns;
	__u32 cpu;  /* the CPU of its last switch-in (the program's) */
	__u32 tid;  /* whose (isod's; 0: a free slot) */
	__u64 wait_ns;
	__u64 nvcsw;
	__u32 policy;  /* the kernel's policy and RT priority at its last */
	__u32 rt_prio; /* switch in or out (isod_verify's view) */
	__u64 block_cpu_ns;
	__u64 off_ns;
	__u64 gap_from_ns;
	__u64 gap_to_ns;
};
#define ACCT_UNSEEN (~0ULL)

/* What ran since isod last looked (the program's .bss, mmapped by isod):
 *  ran_bits   bit `slot` set at every switch-in of a tracked thread
 *             (atomic or); isod takes each word with an atomic exchange
 *             at a check, so no switch-in is lost between the two.
 *  on_cpu     per CPU, slot + 1 of the tracked thread switched in last
 *             and still there, or preempted there (0: none, or it blocked
 *             there, or moved to another CPU): a spinner that never
 *             switches again, or one that isod's own threads preempt.
 *  cpu_tid    per CPU, the TID switched in last (0: idle), tracked or
 *             not, written (xchg) before the program looks it up in
 *             "tracked": isod, after adding a thread there, can tell
 *             whether it is on a CPU already, a switch-in the program
 *             did not count. One cache line per CPU (struct
 *             acct_cpu_tid): every switch on the machine writes it, and
 *             CPUs writing one shared line took turns owning it.
 *  tid_filter per TID modulo ACCT_TID_FILTER, how many tracked threads
 *             have such a TID (isod counts, the program reads): the
 *             program looks a TID up in "tracked" only when its count
 *             is not 0, so the switches of the rest of the machine cost
 *             no hash lookup. isod counts a thread before it goes into
 *             "tracked" and uncounts it after it left; the program
 *             reads the count after its cpu_tid exchange (a full
 *             barrier), so the cpu_tid protocol above still holds.
 *  armed      set by isod when no tracked thread ran or runs: the next
 *             switch-in of one clears it and reports ACCT_EV_WAKE.
 *  gap_epoch  isod's last check (CLOCK_MONOTONIC ns): a thread's gap
 *             that ended before it belongs to an earlier step.
 *  lost       set by the program when a report could not be written (or
 *             a CPU number is past ACCT_MAX_CPUS): isod reads everything.
 * max_threads is at most ACCT_MAX_SLOTS (config.c). */
#define ACCT_MAX_SLOTS 65536
#define ACCT_SLOT_WORDS (ACCT_MAX_SLOTS / 64)
#define ACCT_MAX_CPUS 1024
#define ACCT_TID_FILTER 16384 /* a power of two */
struct acct_cpu_tid {
	__u32 tid;
	__u32 pad[15]; /* to 64 bytes: a cache line of its own */
};

/* A report on the ring buffer "events" (apart from the strays', so a
 * flood of strays cannot crowd them out): a tracked thread switched in
 * while armed (wake isod's schedule), or a tracked thread exits
 * (sched_process_exit; start_ns: its start_boottime, which isod compares
 * with the start time it recorded, so a reused TID is not mistaken). */
enum { ACCT_EV_WAKE = 1, ACCT_EV_EXIT = 2 };
struct acct_event {
	__u32 kind;
	__u32 tid;
	__u32 slot;
	__u32 pad;
	__u64 start_ns;
};

/* A thread seen switching in as kernel RT — SCHED_FIFO or SCHED_RR at
 * any priority, or SCHED_DEADLINE (iso_rule.h's iso_rule_kernel_rt) —
 * owned by a user (real or effective uid not 0), not in "tracked": maybe
 * a stray (strays.h; isod judges it, RLIMIT_RTPRIO and all). One record per TID per ACCT_STRAY_EVERY_NS at most;
 * the map "reported" holds each TID's earliest next report, which isod
 * moves later for a thread it leaves alone (acct_bpf_quiet). */
struct acct_stray {
	__u32 tid;
	__u32 tgid;
	__u32 uid;
	__u32 prio;   /* its rt_priority (0 for DEADLINE) */
	__u32 policy; /* the kernel's: 1 FIFO, 2 RR, 6 DEADLINE */
};
#define ACCT_STRAY_EVERY_NS 1000000000ULL

/* A report on the ring buffer "lineage" (isod's server thread reads it
 * with the strays'): what the process connector told isod for the whole
 * machine, filtered in the kernel to what concerns tracked threads —
 *   ACCT_LINEAGE_FORK  a tracked thread (parent) started a new process
 *                      (tid: the child's, its tgid too); only while
 *                      report_forks (isod's inherit) is on;
 *   ACCT_LINEAGE_EXEC  an exec in a process whose leader or exec'ing
 *                      thread (parent: its TID before the exec) is
 *                      tracked (tid: the process, the exec'd image's).
 * lineage_lost is set when a report could not be written: isod then
 * checks every tracked process as after an exec. */
enum { ACCT_LINEAGE_FORK = 1, ACCT_LINEAGE_EXEC = 2 };
struct acct_lineage {
	__u32 kind;
	__u32 parent;
	__u32 tid;
	__u32 pad;
};

/* Per CPU (the map "band_time", one entry): nanoseconds that tasks of
 * users spent at an RT priority inside the band on this CPU, tracked or
 * not; since_ns is the switch-in of such a task running now (0: none). */
struct acct_cpu {
	__u64 band_ns;
	__u64 since_ns;
};

#endif
