/* iso_percpu.h — the budget per CPU (`scope = per-cpu`), as the 2005 patch
 * kept it per runqueue. With the global scope (the default) isod averages
 * ISO's share of all CPUs together (iso_engine.h): on a machine of n CPUs
 * one runaway ISO thread pinned to one CPU is only 100/n % of the machine,
 * never over iso_cpu, and that CPU's other threads starve. Per CPU, each
 * CPU has its own exponential average of the time ISO threads ran on it
 * (same time constant iso_period, same limit iso_cpu, same 90 % hysteresis,
 * the formula of iso_budget.h with ncpus = 1), and a thread is demoted
 * while the CPU it is charged to is over iso_cpu.
 *
 * Charging: a thread's ISO time between two reads counts for the CPU it
 * was on at the later read (the caller reads it: /proc's `processor`, or
 * the BPF accounting's CPU of its last switch-in) — approximate for a
 * thread that migrated in between. A demoted thread uses no ISO time and
 * keeps the CPU it was last charged to: it stays demoted, wherever it runs
 * now, until that CPU is back below 90 % of iso_cpu (no ping-pong between
 * CPUs). A thread whose CPU is unknown (no read yet, a number out of range:
 * a CPU hot-added past the count) is held to the global budget instead.
 *
 * Per CPU replaces the global average's decision; the global average is
 * still kept (status, the plan) and the stall cap, own limits, per-user
 * shares and the burst guard apply as with the global scope.
 *
 * Pure, like the engine; the CPU table is storage the caller provides.
 * One step, beside the engine's:
 *     for each task read: iso_percpu_charge(p, &charged_cpu, task,
 *                             cpu_read, iso_task_iso_delta(task, cpu_ns));
 *                         (before iso_engine_account*, which moves the baseline)
 *     iso_percpu_commit(p, &tun, now_ns);
 *     for each task: iso_percpu_decide(e, share, p, charged_cpu, uid, task)
 *
 * Return contract: int functions give 0 or -EINVAL / -ERANGE. */
#ifndef ISO_PERCPU_H
#define ISO_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "iso_budget.h"
#include "iso_engine.h"
#include "iso_share.h"

enum iso_scope {
	ISO_SCOPE_GLOBAL,  /* ISO's share of all CPUs (the default) */
	ISO_SCOPE_PER_CPU, /* each CPU's own average */
};
/* "global" or "per-cpu" (any case); -EINVAL otherwise. */
int iso_scope_parse(const char *s, enum iso_scope *out);
const char *iso_scope_name(enum iso_scope s);

/* A CPU number not (yet) known. */
#define ISO_CPU_UNKNOWN (-1)

struct iso_percpu_cpu {
	double usage;        /* ISO's share of this CPU, percent */
	bool over;           /* above iso_cpu, and not yet below 90 % of it */
	bool changed;        /* over changed in the last commit (for a log line) */
	uint64_t pending_ns; /* ISO CPU time charged in this step */
	uint64_t carry_ns;   /* beyond what one CPU could do in the last step
			      * (threads that migrated in): fed next */
};

struct iso_percpu {
	bool on;             /* scope per-cpu; off: every call is a no-op */
	unsigned ncpus;      /* entries of cpus: CPU numbers 0..ncpus-1 */
	struct iso_percpu_cpu *cpus;
	bool started;
	int64_t last_ns;
};

/* cpus: ncpus entries (the possible CPUs, not only the online ones). */
int iso_percpu_init(struct iso_percpu *p, struct iso_percpu_cpu *cpus, unsigned ncpus,
		    enum iso_scope scope);
/* One read of task: it was on cpu (as read) and used iso_ns as ISO since
 * its previous read (iso_task_iso_delta). A running task's *charged_cpu
 * becomes cpu and iso_ns counts for it; a demoted one keeps its
 * *charged_cpu. -ERANGE (and *charged_cpu unknown, the time counted for no
 * CPU) for a number outside 0..ncpus-1. */
int iso_percpu_charge(struct iso_percpu *p, int *charged_cpu, const struct iso_task *task,
		      int cpu, uint64_t iso_ns);
/* Feed every CPU's average with what was charged since the previous
 * commit, over the time since then, and decide which CPUs are over
 * iso_cpu. Time that did not pass keeps the charges for the next one. */
int iso_percpu_commit(struct iso_percpu *p, const struct iso_tunables *t, int64_t now_ns);
/* Is cpu over iso_cpu now? false when off or out of range. */
bool iso_percpu_over(const struct iso_percpu *p, int cpu);
/* cpu's use, percent of that CPU (0 when off or out of range). */
double iso_percpu_usage(const struct iso_percpu *p, int cpu);
/* Does the per-CPU rule decide for a task charged to cpu (on, and cpu
 * known)? Otherwise the global budget does. */
bool iso_percpu_applies(const struct iso_percpu *p, int cpu);

/* The decision for task: iso_share_decide (stall cap, own limit, held,
 * user share) with, where the per-CPU rule applies, the CPU's state in
 * place of the global refractory state. Exactly iso_share_decide when off.
 * Returns true when task->demoted changed. */
bool iso_percpu_decide(const struct iso_engine *e, const struct iso_share *s,
		       const struct iso_percpu *p, int charged_cpu, uint32_t uid,
		       struct iso_task *task);

/* Seconds from base_ns to the first moment a CPU's decision can change
 * (iso_horizon.h): each CPU's average fed at most 100 % (nothing can run on
 * a CPU more than all the time; a migrated lump is capped and carried),
 * or, with no task running as ISO (running 0) and nothing carried, only
 * max_idle_pct. INFINITY when off or nothing can change. */
double iso_percpu_horizon_s(const struct iso_percpu *p, const struct iso_tunables *t,
			    unsigned running, double max_idle_pct, int64_t base_ns);

#endif
