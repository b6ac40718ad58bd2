/* iso_budget.h — the CPU budget of ISO tasks: the patch's iso_ticks
 * accounting as an exponential average over real time. Pure: time and CPU
 * time are handed in, nothing is read here.
 *
 * The patch, per tick: iso_ticks = iso_ticks·(P−1)/P (+100 while an ISO task
 * runs), P = iso_period·HZ; refractory when iso_ticks/(P+1) > iso_cpu. In the
 * limit of small ticks that is usage(t) = 100·(ISO share of CPU) averaged by
 * an exponential with time constant iso_period. Here, over an interval dt in
 * which ISO tasks held a share f of the CPUs:
 *     usage ← usage·e^(−dt/τ) + 100·f·(1 − e^(−dt/τ)),  τ = iso_period,
 * which is exact for any dt when f is constant, so the result does not
 * depend on how often samples come.
 *
 * Return contract: 0 on success, -EINVAL for invalid input.
 */
#ifndef ISO_BUDGET_H
#define ISO_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct iso_tunables {
	unsigned iso_cpu;      /* percent of all CPUs ISO tasks may use, 1..100 */
	unsigned iso_period_s; /* averaging time constant, seconds, 1..3600 */
};

#define ISO_CPU_DEFAULT 70
#define ISO_PERIOD_DEFAULT 5
#define ISO_CPU_MAX 100
#define ISO_PERIOD_MAX 3600

/* 0 or -EINVAL; *why (if given) gets a static explanation. */
int iso_tunables_check(const struct iso_tunables *t, const char **why);

struct iso_budget {
	double usage;    /* percent of all CPUs, 0..100 */
	bool refractory; /* usage went above iso_cpu and not yet below 90 % of it */
	bool started;    /* last_ns is valid */
	int64_t last_ns; /* monotonic time of the previous feed */
	int64_t prev_ns; /* and of the one before it (last_ns until a second) */
};

void iso_budget_init(struct iso_budget *b);

/* ISO tasks used iso_cpu_ns of CPU time, on ncpus CPUs, between the
 * previous call and now_ns (monotonic). The first call only sets the
 * reference time. A share above 100 % (sampling skew) counts as 100 %.
 * Time that did not pass (now_ns <= last) changes nothing. */
int iso_budget_feed(struct iso_budget *b, const struct iso_tunables *t,
		    int64_t now_ns, uint64_t iso_cpu_ns, unsigned ncpus);

/* The hysteresis of the patch: over when usage > limit; once over, stays
 * over until usage < limit·9/10. */
bool iso_over_limit(double usage, unsigned limit_pct, bool was_over);

/* The limit a task is held to: its own (percent, 0 = none) but never above
 * iso_cpu, so that no own limit set while iso_cpu was higher lets a task
 * keep ISO past the global budget. */
unsigned iso_effective_limit(unsigned own_limit, unsigned iso_cpu);

#endif
