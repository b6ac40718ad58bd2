/* accounting_check.h — the accounting setting, and the checks on every
 * value the BPF accounting reads from the kernel's maps and ring buffer
 * (bpf/acct_maps.h): a map is outside isod's memory, so nothing read from
 * it is used unchecked. Pure: no I/O, no clock (the caller passes now).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ACCOUNTING_CHECK_H
#define ISOD_ACCOUNTING_CHECK_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/acct_maps.h"
#include "iso_place.h"

/* The accounting setting (isod.conf: accounting). */
enum accounting_kind {
	ACCOUNTING_AUTO, /* BPF if built in and it loads, else proc */
	ACCOUNTING_BPF,  /* BPF or a start-up error */
	ACCOUNTING_PROC, /* /proc only */
};

/* "auto", "bpf" or "proc" (any case); -EINVAL otherwise. */
int accounting_parse(const char *s, enum accounting_kind *out);
const char *accounting_kind_name(enum accounting_kind k);

/* A thread's CPU time from its map entry v as of CLOCK_MONOTONIC now (a
 * check's time, which the read may come after: a switch in after now
 * adds nothing, a run up to a switch out after now is left out);
 * prev is the last value isod used for it (time never runs backwards: a
 * copy taken while the program writes may read short, and is raised to
 * prev). -EAGAIN: the program has not seen it switch yet (use /proc);
 * -EBADMSG: the entry cannot be right (a switch-in in the future, a sum
 * that overflows). */
int acct_thread_cpu(const struct acct_thread *v, uint64_t now, uint64_t prev, uint64_t *cpu_ns);

/* What v says of when its thread was off every CPU lately, read at
 * now: the longest finished time off in isod's present step, and the
 * time off since its last switch out if it is off now. Values that
 * cannot be clock readings are left out; iso_place_factor checks the
 * rest against the CPU time (none: off->n 0). */
void acct_thread_offcpu(const struct acct_thread *v, uint64_t now, struct iso_offcpu *off);

/* The kernel ran the thread again with no switch-in the program saw
 * (accounting_bpf_look.h), for at least ran ns up to now: the time off
 * since its last switch out (off_ns; the interval acct_thread_offcpu
 * gave up to now) ended ran before now — a spinner runs all the while it
 * is back. Left out if that leaves nothing of it; nothing else changes. */
void acct_offcpu_resumed(struct iso_offcpu *off, uint64_t off_ns, uint64_t now, uint64_t ran);

/* Copy src, an entry the program may be writing (the map "threads",
 * mapped), into dst: each field once, in the order acct_maps.h gives, so
 * the copy may be short, never long. False, dst undefined: the entry is
 * not tid's (free, or another thread's). */
bool acct_thread_copy(const struct acct_thread *src, uint32_t tid, struct acct_thread *dst);
/* Make a an unseen entry of tid (its CPU time from /proc until the
 * program sees it switch), off every CPU since tracked_ns (CLOCK_MONOTONIC,
 * the program's clock) as far as the program knows, tid written last. */
void acct_thread_reset(struct acct_thread *a, uint32_t tid, uint64_t tracked_ns);

/* Is a ring buffer record a stray worth looking at: ids of a real
 * thread, a user's uid, and kernel RT as the rule says (iso_rule.h):
 * FIFO or RR at a priority 1..99, or DEADLINE (priority 0)? */
bool acct_stray_valid(const struct acct_stray *s);

/* Is a "lineage" record one isod can act on: a known kind, real
 * threads' ids (a fork's child is a new process: its own tgid)? */
bool acct_lineage_valid(const struct acct_lineage *l);

/* Is an "events" record one isod can act on: a known kind, a real
 * thread's id, a slot inside the task table (cap entries)? */
bool acct_event_valid(const struct acct_event *ev, size_t cap);
/* A start_boottime in nanoseconds as /proc/PID/stat's start time (clock
 * ticks, hz of them a second: sysconf(_SC_CLK_TCK)); UINT64_MAX if hz
 * cannot be right (it never matches a recorded start time). */
uint64_t acct_start_ticks(uint64_t start_ns, long hz);

/* The per-CPU band times summed; -EOVERFLOW if they cannot be right. */
int acct_band_sum(const struct acct_cpu *cpus, size_t n, uint64_t *sum);

#endif
