/* acct_maps.h — the layout of what the BPF accounting program (acct.bpf.c)
 * and isod (accounting_bpf.c) share through maps and the ring buffer.
 * Both sides include it: the BPF side with vmlinux.h's __u32/__u64, isod
 * with <linux/types.h>. Everything read from a map is checked by isod
 * before use (accounting_check.h): it comes from outside isod's memory. */
#ifndef ISOD_BPF_ACCT_MAPS_H
#define ISOD_BPF_ACCT_MAPS_H

/* A tracked thread's CPU time (the map "tracked", key: its TID).
 * total_ns: the kernel's own sum_exec_runtime at its last switch in or
 * out; since_ns: bpf_ktime_get_ns() (CLOCK_MONOTONIC) of its switch-in
 * while it is on a CPU, 0 while it is off, ACCT_UNSEEN until the program
 * first saw it switch (isod added it while it ran: isod falls back to
 * /proc until then). Field order matters: total_ns before since_ns, and
 * the program clears since_ns before it moves total_ns on, so a copy
 * taken while it writes may be short, never long (accounting_check.c).
 * cpu: the CPU of its last switch-in (isod's scope per-cpu), checked
 * against the CPU count by isod. */
struct acct_thread {
	__u64 total_ns;
	__u64 since_ns;
	__u32 cpu;
	__u32 pad;
};
#define ACCT_UNSEEN (~0ULL)

/* A thread seen switching in at a kernel RT priority inside the band,
 * owned by a user (real or effective uid not 0), not in "tracked": a
 * stray (strays.h). One record per TID per ACCT_STRAY_EVERY_NS at most;
 * the map "reported" holds each TID's earliest next report, which isod
 * moves later for a thread it leaves alone (acct_bpf_quiet). */
struct acct_stray {
	__u32 tid;
	__u32 tgid;
	__u32 uid;
	__u32 prio;
};
#define ACCT_STRAY_EVERY_NS 1000000000ULL

/* Per CPU (the map "band_time", one entry): nanoseconds that tasks of
 * users spent at an RT priority inside the band on this CPU, tracked or
 * not; since_ns is the switch-in of such a task running now (0: none). */
struct acct_cpu {
	__u64 band_ns;
	__u64 since_ns;
};

#endif
