/* iso_engine.h — the policy engine: from per-task CPU-time samples to
 * "this task runs ISO / this task is demoted" decisions. Pure and
 * deterministic: the caller supplies time and samples and carries out the
 * decisions (isod's actuator); nothing here allocates, logs or reads clocks.
 *
 * One step, driven by the caller:
 *     iso_engine_begin(e);
 *     for each task: iso_engine_account(e, task, cpu_ns)   (if sampled)
 *     iso_engine_commit(e, now_ns);
 *     for each task: if (iso_engine_decide(e, task)) act on task->demoted
 *
 * Return contract: int functions give 0 or -EINVAL.
 */
#ifndef ISO_ENGINE_H
#define ISO_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iso_budget.h"
#include "iso_burst.h"
#include "iso_place.h"

/* What the engine knows of one ISO task; the daemon embeds it. */
struct iso_task {
	unsigned limit;       /* own limit (RLIMIT_RT_CPU style), percent; 0 = iso_cpu;
			       * never counts above iso_cpu (iso_effective_limit) */
	bool demoted;         /* decision: runs SCHED_OTHER now */
	bool has_prev;        /* prev_cpu_ns valid */
	uint64_t prev_cpu_ns; /* cumulative CPU time at the previous sample */
	int64_t read_ns;      /* when it was taken (iso_engine_account_read) */
	unsigned skip;        /* steps to pass before the next read */
	bool held;            /* demoted by a rule of its own besides the
			       * budget: the burst guard (iso_burst.h),
			       * set by the caller before deciding */
	int64_t counted_from_ns; /* its baseline's time (iso_task_rebase),
				  * until the step that holds it is placed;
				  * 0: none */
};

struct iso_engine {
	struct iso_tunables tun;
	struct iso_budget budget;
	unsigned ncpus;
	uint64_t pending_ns; /* ISO CPU time accounted in this step */
	unsigned pending_ran; /* tasks that added to it: ISO held at most
			       * that many CPUs at once (the stall cap) */
	double pending_adj_ns; /* what the placement of this step's time
				* changes in what the average gets (iso_place.h) */
	uint64_t carry_ns;   /* accounted but beyond what the CPUs could do in
			      * the last step: a late read's lump, fed next */
	uint64_t late_ns;    /* charged between steps (iso_engine_charge): not
			      * cleared by begin, fed at the next commit */
	unsigned late_ran;   /* tasks that added to it */
	struct iso_stall stall; /* the stall cap (iso_burst.h) */
	int64_t stall_ns;       /* its length; 0 = off, as in the patch */
};

int iso_engine_init(struct iso_engine *e, const struct iso_tunables *t,
		    unsigned ncpus);
/* New tunables take effect from the next step; the average is kept. */
int iso_engine_retune(struct iso_engine *e, const struct iso_tunables *t);
/* The stall cap's length in ms (0 = off, the default of
 * iso_engine_init); 0 or -EINVAL above ISO_BURST_MS_MAX. While the cap is
 * full every task is demoted, those with limits of their own included. */
int iso_engine_set_stall(struct iso_engine *e, unsigned stall_ms);
bool iso_engine_stalled(const struct iso_engine *e);
/* 0 or -EINVAL for a limit outside 0..100. */
int iso_task_init(struct iso_task *task, unsigned limit);
/* A new own limit for a task already accounted (a grant renewed); the
 * rest of its state is kept. 0 or -EINVAL as iso_task_init. */
int iso_task_set_limit(struct iso_task *task, unsigned limit);

void iso_engine_begin(struct iso_engine *e);
/* cpu_ns: the task's cumulative CPU time now. Its growth since the previous
 * sample counts against the budget if the task ran as ISO meanwhile. A
 * first sample, or one that went backwards, only sets the baseline. */
/* cpu_ns is the task's cumulative CPU time before it ran ISO, at now_ns:
 * its next sample counts only what it used from here (a new baseline,
 * nothing fed), and that time is placed after now_ns within its step
 * (iso_engine_account_placed): a thread granted late in a long step did
 * not run ISO in the part of it before its grant. */
void iso_task_rebase(struct iso_task *task, uint64_t cpu_ns, int64_t now_ns);
void iso_engine_account(struct iso_engine *e, struct iso_task *task,
			uint64_t cpu_ns);
/* iso_engine_account for a sample taken at now_ns (the coming commit's)
 * with what the accounting knows of when the task was off every CPU in
 * the step: the average weighs its time where it fell (iso_place.h).
 * The stall cap and the carry of a late lump count it unplaced. */
void iso_engine_account_placed(struct iso_engine *e, struct iso_task *task, uint64_t cpu_ns,
			       int64_t now_ns, const struct iso_offcpu *off);
/* A task's last CPU time as it leaves (released, exited, demoted as a
 * stray), at any moment, inside a step or between two: its ISO time since
 * the previous sample is counted as iso_engine_account counts it, and fed
 * at the next commit with that step's (unplaced, as a late read is). A
 * charge between steps is never lost to the next iso_engine_begin. */
void iso_engine_charge(struct iso_engine *e, struct iso_task *task, uint64_t cpu_ns);
int iso_engine_commit(struct iso_engine *e, int64_t now_ns);
/* Updates task->demoted (budget, stall cap or task->held); returns true
 * when it changed. */
bool iso_engine_decide(const struct iso_engine *e, struct iso_task *task);

/* Sampling schedule. Reading a thread's CPU time costs isod ~2 us (a
 * /proc read), so with hundreds of threads it must not read every thread
 * every step. It need not either: the budget is an average over seconds
 * and the CPU time is cumulative, so a thread read late is accounted late,
 * never lost. A task is read every step while busy (at least
 * 1/ISO_COLD_SHARE_DIV of a CPU since its previous read) and every
 * ISO_COLD_EVERY-th step while not — except near the budget (80 % of
 * iso_cpu, or refractory), where every task is read every step, so the
 * crossing is seen as exactly as with full sampling.
 *
 *     for each task: if (iso_engine_due(e, task))
 *                        iso_engine_account_read(e, task, cpu_ns, now_ns);
 */
#define ISO_COLD_EVERY 16
#define ISO_COLD_SHARE_DIV 8
bool iso_engine_precise(const struct iso_engine *e);
/* Should task be read in this step? (Counts down its skip if not.) */
bool iso_engine_due(const struct iso_engine *e, struct iso_task *task);
/* iso_engine_account for a read taken at now_ns, planning the next one. */
void iso_engine_account_read(struct iso_engine *e, struct iso_task *task,
			     uint64_t cpu_ns, int64_t now_ns);

double iso_engine_usage(const struct iso_engine *e);
bool iso_engine_refractory(const struct iso_engine *e);

#endif
