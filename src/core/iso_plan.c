/* iso_plan.c — the earliest moment a decision can change (iso_plan.h). */
#include "iso_plan.h"

#include <math.h>

#include "iso_horizon.h"
#include "iso_percpu.h"

void iso_plan_begin(struct iso_plan *p)
{
	*p = (struct iso_plan){ .guard_ns = ISO_PLAN_NEVER };
}

void iso_plan_task(struct iso_plan *p, const struct iso_engine *e, const struct iso_task *t)
{
	unsigned limit = iso_effective_limit(t->limit, e->tun.iso_cpu);

	p->any = true;
	if (!t->demoted)
		p->running++;
	if (limit >= e->tun.iso_cpu)
		return; /* the global budget's limit, planned in iso_plan_end */
	if (!t->demoted && (p->up_limit == 0 || limit < p->up_limit))
		p->up_limit = limit;
	if (t->demoted && limit > p->down_limit)
		p->down_limit = limit;
}

static int64_t earlier(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void iso_plan_guard(struct iso_plan *p, const struct iso_burst *b, int64_t burst_ns,
		    int64_t checked_ns)
{
	int64_t at, look;

	if (burst_ns <= 0)
		return;
	/* not running, and the plan is made again when it starts: nothing
	 * to plan for it but a demotion's end */
	if (p->quiet && b->phase != ISO_BURST_DEMOTED)
		return;
	if (b->phase != ISO_BURST_DEMOTED && b->has_prev && b->prev.has_block) {
		p->guard_ns = earlier(p->guard_ns, iso_burst_earliest_exact_ns(b, burst_ns, checked_ns));
		return;
	}
	at = iso_burst_earliest_ns(b, burst_ns);
	/* a run begins, and a block is seen, only at a read */
	if (b->phase != ISO_BURST_RUNNING && b->has_prev) {
		look = b->prev.now_ns + burst_ns / ISO_PLAN_GUARD_DIV;
		at = b->phase == ISO_BURST_IDLE ? look : earlier(at, look);
	}
	p->guard_ns = earlier(p->guard_ns, at);
}

/* Seconds from the last step to the first possible change of a limit
 * with the patch's hysteresis: up past it, or down below 90 % of it. */
static double limit_s(double u, double max_pct, double limit, bool over, unsigned period_s)
{
	return over ? iso_plan_fall_s(u, limit * 9.0 / 10.0, period_s)
		    : iso_plan_rise_s(u, max_pct, limit, period_s);
}

/* Seconds until the stall cap's bucket can fill (ISO at max_pct of the
 * machine) or, full, drain (no ISO at all). */
static double stall_s(const struct iso_engine *e, double max_pct)
{
	double c = (double)e->tun.iso_cpu / 100.0, m = max_pct / 100.0;
	double depth = (double)e->stall_ns * (1.0 - c), level = (double)e->stall.level_ns;

	if (e->stall_ns <= 0)
		return INFINITY;
	if (e->stall.over)
		return level / c / 1e9;
	if (m <= c)
		return INFINITY;
	if (m > 1.0)
		m = 1.0;
	/* after a drain to 0 the fill starts over: either way no earlier */
	return (depth - level) / (m - c) / 1e9;
}

int64_t iso_plan_end(const struct iso_plan *p, const struct iso_engine *e,
		     const struct iso_share *share, int64_t now_ns, int64_t floor_ns)
{
	const struct iso_budget *b = &e->budget;
	double u = b->usage, max_pct, s;
	unsigned period = e->tun.iso_period_s;
	int64_t base = b->started ? b->last_ns : now_ns, at, crossing;

	if (!p->any)
		return ISO_PLAN_NEVER;
	/* the first step only sets the average's reference time: until it
	 * is taken, nothing a task uses is counted (the budget feed drops the
	 * CPU time of the interval before it). Taken at once, so the average
	 * starts at the grant, as the exact model's: a step a floor later
	 * lost up to sample_ms of every CPU and delayed the runaway's
	 * demotion by about as much (issue: reaction p50 5.2 ms) */
	if (!b->started)
		return now_ns;
	/* a carried lump can be fed as if every CPU ran ISO; quiet: none
	 * runs until the caller plans again */
	max_pct = e->carry_ns ? 100.0
		  : 100.0 * (p->quiet ? 0 : p->running) / e->ncpus + ISO_PLAN_LAG_PCT;
	if (max_pct > 100.0)
		max_pct = 100.0;
	s = limit_s(u, max_pct, e->tun.iso_cpu, b->refractory, period);
	if (p->up_limit)
		s = fmin(s, iso_plan_rise_s(u, max_pct, p->up_limit, period));
	if (p->down_limit)
		s = fmin(s, iso_plan_fall_s(u, p->down_limit * 9.0 / 10.0, period));
	if (p->percpu)
		s = fmin(s, iso_percpu_horizon_s(p->percpu, &e->tun, p->running, ISO_PLAN_LAG_PCT, base));
	if (share && iso_share_on(share)) {
		double limit = iso_share_limit(share, &e->tun);

		/* a user's threads are some of the running ones: the same
		 * bound holds for each user */
		for (size_t i = 0; i < share->end; i++) {
			const struct iso_share_user *su = &share->users[i];

			if (su->used || su->over)
				s = fmin(s, limit_s(su->usage, max_pct, limit, su->over, period));
		}
	}
	crossing = s >= 1e9 ? ISO_PLAN_NEVER : base + (int64_t)ceil(s * 1e9) + ISO_PLAN_PAST_NS;
	/* Halfway first: one step spreads the CPU time it reads evenly over
	 * its length, but the kernel's RT throttle (or a pause) can put a gap
	 * anywhere in it, and a gap near its end weighs more in the average
	 * than the even spread says — a single 1.2 s step demoted a runaway
	 * up to 70 ms before the exact average crossed. Steps that halve the
	 * distance keep each one's weights nearly even; a crossing is then
	 * reached in about log2(horizon/floor) checks, and no more than one
	 * per half-horizon while usage does not climb (sleeping threads
	 * predict no crossing at all). */
	if (crossing != ISO_PLAN_NEVER && crossing - base > 2 * floor_ns)
		crossing = base + (crossing - base) / 2;
	/* The stall cap's bucket needs no such approach: fed the most any
	 * spread of a step's use could have left (iso_stall_feed_ran), it is
	 * exact for steps of any length — halving it cost a check every
	 * 40 ms under a light load that could never fill it. */
	s = stall_s(e, max_pct);
	if (s < 1e9)
		crossing = earlier(crossing, base + (int64_t)ceil(s * 1e9) + ISO_PLAN_PAST_NS);
	at = earlier(crossing, p->guard_ns);
	if (at >= base + floor_ns)
		return at;
	at = base + floor_ns;
	/* A crossing inside the floor is checked at its time: the check
	 * before it found usage just short of a limit (the threads ran a
	 * little less than all-out), and waiting out the floor would let a
	 * runaway overshoot by up to sample_ms. Never sooner than
	 * ISO_PLAN_CONFIRM_NS after the last step, and only after a gap of
	 * a floor, or in a chain that converges: each confirmation less than
	 * half as far as the gap before it. The threads run a little below
	 * the worst case the horizon assumes, so the chain closes in on the
	 * crossing in a few steps; usage that only sits a hair below a limit
	 * does not shrink the horizon and waits the floor. At most
	 * log2(floor/ISO_PLAN_CONFIRM_NS) + 1 checks per floor. */
	if (crossing < at) {
		int64_t gap = b->last_ns - b->prev_ns;

		if (gap >= floor_ns || 2 * (crossing - base) < gap)
			at = crossing > base + ISO_PLAN_CONFIRM_NS ? crossing
								 : base + ISO_PLAN_CONFIRM_NS;
	}
	return at;
}
