/* iso_place.h — where in a step a task's CPU time fell, for the
 * exponential average (iso_budget.h). Pure.
 *
 * A step feeds the CPU time read over [base, now] as if it had been used
 * evenly. The average weighs time at s by e^(−(now − s)/τ), so time used
 * early in the step counts less than time used late: a runaway that the
 * kernel's RT throttle (or a pause, or a higher priority) held off the
 * CPU for 50 ms at the end of a long step was counted as if it had run
 * then, and demoted a few ms before the exact average crossed.
 *
 * When the accounting knows intervals in which the task was off every
 * CPU (the BPF program records them at its switches), the time it did
 * use lies in the rest of the step. iso_place_factor says by how much
 * that rest weighs more or less than the whole step, on average: fed
 * cpu × factor evenly, the step gives what the task's real placement
 * gives, exactly when it ran flat out outside the intervals (a spinner),
 * and closer than even whenever it ran only there.
 *
 * Return contract: a factor > 0; exactly 1.0 when nothing is known or
 * what is known cannot be right (intervals that leave less time on a CPU
 * than cpu_ns used: a torn or wrong read changes nothing). */
#ifndef ISO_PLACE_H
#define ISO_PLACE_H

#include <stdint.h>

/* the BPF accounting's two (the step's longest gap, and off now) and the
 * engine's own: before the task's count began inside the step (a grant) */
#define ISO_OFFCPU_MAX 3

/* Intervals [from, to) in the steps' clock in which a task ran on no
 * CPU; n of them, in any order, overlapping or reaching outside the step
 * as they may (each is clipped to it). */
struct iso_offcpu {
	unsigned n;
	int64_t from[ISO_OFFCPU_MAX], to[ISO_OFFCPU_MAX];
};

double iso_place_factor(int64_t base_ns, int64_t now_ns, double period_s, uint64_t cpu_ns,
			const struct iso_offcpu *off);

#endif
