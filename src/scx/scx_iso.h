/* scx_iso.h — the contract between the scx_iso BPF scheduler, its loader
 * and isod: names, the pinned maps' key/value layout and limits. Included
 * by BPF C (vmlinux.h types) and by plain userspace C (linux/types.h), so
 * it holds only fixed-size types and no code.
 *
 * Maps, pinned by the loader under a bpffs directory
 * (SCX_ISO_PIN_DIR_DEFAULT unless --pin-dir):
 *   tasks  hash   key __u32 tid (initial PID namespace) → struct scx_iso_task
 *   tune   array  key 0                                 → struct scx_iso_tune
 *   cpus   array  key cpu                               → struct scx_iso_cpu
 * isod writes the "in" fields of tasks and all of tune; the scheduler
 * writes the "out" fields and cpus. */
#ifndef SCX_ISO_H
#define SCX_ISO_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCX_ISO_OPS_NAME "iso"          /* /sys/kernel/sched_ext/root/ops */
#define SCX_ISO_PIN_DIR_DEFAULT "/sys/fs/bpf/isosched"
#define SCX_ISO_MAP_TASKS "tasks"
#define SCX_ISO_MAP_TUNE "tune"
#define SCX_ISO_MAP_CPUS "cpus"
#define SCX_ISO_MAX_TASKS 8192
#define SCX_ISO_MAX_CPUS 256

/* struct scx_iso_task.policy */
#define SCX_ISO_RR 1
#define SCX_ISO_FIFO 2

/* struct scx_iso_task.demoted: why the scheduler runs it as normal now */
#define SCX_ISO_DEMOTED_CPU 0x1   /* its CPU is refractory (iso_ticks > iso_cpu) */
#define SCX_ISO_DEMOTED_LIMIT 0x2 /* its CPU's ISO use is above the task's own limit */

/* Defaults the loader puts in "tune" (the patch's 70 % over 5 s). */
#define SCX_ISO_CPU_DEFAULT 70
#define SCX_ISO_PERIOD_MS_DEFAULT 5000

struct scx_iso_task {
	/* in: written by isod (the whole entry on every grant) */
	__u32 policy;    /* SCX_ISO_RR or SCX_ISO_FIFO; anything else: normal */
	__u32 prio;      /* ISO priority 1..99: higher runs first */
	__u32 limit;     /* own limit, percent of its CPU; 0: none */
	__u32 reserved;  /* 0 */
	/* out: written by the scheduler */
	__u32 demoted;   /* SCX_ISO_DEMOTED_* bits, 0 while it runs as ISO */
	__u32 last_cpu;
	__u64 demotions; /* transitions from ISO to normal */
	__u64 iso_ns;    /* CPU time run as ISO */
	__u64 run_ns;    /* CPU time run at all (ISO or not) */
	__u64 run_start; /* scheduler-private: when it last started running */
	__u32 head;      /* scheduler-private: FIFO preempted, requeue at the head */
	__u32 pad;
};

struct scx_iso_tune {
	__u32 iso_cpu;       /* percent 1..100 */
	__u32 iso_period_ms; /* time constant of the average, ≥ 1 */
};

/* Per-CPU accounting, as the patch's per-runqueue iso_ticks: one
 * accounting tick per millisecond whatever HZ is. Each CPU writes only its
 * own entry; others read cur_rank to decide whom to preempt. */
struct scx_iso_cpu {
	__u64 iso_ticks;     /* +100 per ISO tick, ×(P−1)/P per tick, P = iso_period_ms */
	__u64 last_ns;       /* accounted up to here */
	__u64 refractory_entries;
	__u32 refractory;    /* 1 while iso_ticks/(P+1) > iso_cpu, until < 90 % of it */
	__u32 cur_rank;      /* ISO priority of the task running as ISO now, 0: none */
	__u32 kicked;        /* a higher ISO task asked this CPU to preempt */
	__u32 pad;
};

#endif
