/* accounting_bpf_look.h — which tracked threads a check must read, from
 * what the BPF program saw (bpf/acct_maps.h: ran_bits, on_cpu, armed,
 * lost), and the program's reports on the ring buffer "events" (a wake,
 * an exit). Internal to the BPF accounting (accounting_bpf.c,
 * accounting_bpf_look.c); called under d->lock unless said otherwise. */
#ifndef ISOD_ACCOUNTING_BPF_LOOK_H
#define ISOD_ACCOUNTING_BPF_LOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting.h"

/* The loaded program (accounting_bpf.c): NULL when none. */
extern struct isod_acct *acct_skel;

/* After the program loaded (ncpus possible CPUs, cap = max_threads) /
 * before it is unloaded. */
int acct_look_init(size_t cap, int ncpus);
void acct_look_free(void);
/* The ring buffer "events"'s callback (libbpf ring_buffer__add). */
int acct_look_event(void *ctx, void *data, size_t size);

/* e joins the task table: its slot for the map's value, and whether it
 * is on a CPU already (read it until the program has seen it switch). */
uint32_t acct_look_slot(const struct tracked *e);
void acct_look_track(const struct tracked *e, uint32_t slot, bool in_map);
/* slot's TID counted in the program's tid_filter (bpf/acct_maps.h):
 * before it goes into "tracked"; uncounted after it left it. */
void acct_look_filter_add(uint32_t slot, pid_t tid);
void acct_look_filter_remove(uint32_t slot);
void acct_look_untrack(const struct tracked *e);
/* A read of e found its map entry seen by the program (or not). */
void acct_look_seen(const struct tracked *e, bool seen);
/* Must e's read go to /proc too (its wait, and whether it is still
 * there)? Yes at a check that reads everything (the program lost a
 * report, or the full read is due) and until the program has seen it;
 * otherwise the map's counters and the exit reports say all of it. */
bool acct_look_proc_needed(const struct tracked *e);
/* Did the program last see e preempted (runnable, off its CPU: on_cpu
 * holds it)? Such a thread can be running again without a switch-in the
 * program saw: the kernel (6.18, its fair server) has been seen to put
 * an RT thread back on its CPU with no sched_switch event at all. */
bool acct_look_preempted(const struct tracked *e);

/* accounting.h's look_begin, look_needed and quiet */
void acct_look_begin(uint64_t now_ns);
bool acct_look_needed(const struct tracked *e, size_t slot);
bool acct_look_quiet(void);

#endif
