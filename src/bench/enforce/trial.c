/* trial.c — one reaction trial of --enforcement, against a fresh isod (the
 * caller starts it): the spinners run until demoted; the budget crossing
 * is what libisocore's exponential average (iso_budget_feed, the engine's
 * own code) gives for the CPU time the spinners really got, fed at 1 ms
 * steps from the first grant: the time usage passes iso_cpu inside the
 * first step at which it exceeds it. Reaction = first demotion seen − crossing. isod samples every
 * sample_ms and counts a new thread from its first sample after the grant,
 * so ~1 sample interval of reaction is expected by design. */
#include <stdint.h>

#include "common/isod.h"
#include "iso_budget.h"
#include "spin.h"

/* What the spinners saw, over all of them. */
struct seen {
	uint64_t first_grant, first_dem, last_dem, first_fifo;
	int first_ours, first_budget;
	bool all_granted;
};

static void collect(const struct spin_shared *sh, struct seen *v)
{
	*v = (struct seen){ .first_grant = UINT64_MAX, .first_dem = UINT64_MAX,
			    .all_granted = true };
	for (int i = 0; i < sh->n; i++) {
		const struct spinner *s = &sh->sp[i];

		if (!s->granted) {
			v->all_granted = false;
			return;
		}
		if (s->grant_ns < v->first_grant)
			v->first_grant = s->grant_ns;
		if (!s->demoted)
			continue;
		if (s->demote_ns < v->first_dem) {
			v->first_dem = s->demote_ns;
			v->first_fifo = s->fifo_ns;
			v->first_ours = s->ours;
			v->first_budget = s->budget_over;
		}
		if (s->demote_ns > v->last_dem)
			v->last_dem = s->demote_ns;
	}
}

static int64_t grid_ns(const struct spin_shared *sh, int k)
{
	return (int64_t)(sh->t0_ns + (uint64_t)k * GRID_NS);
}

/* Where in grid step k (from k − 1, average u0, to k, u1 > L) the
 * average passed L: linear inside the 1 ms step, so the model's crossing
 * is not up to 1 ms late by its grid (a systematic early "reaction") */
static int64_t between(const struct spin_shared *sh, int k, double u0, double u1, int L)
{
	double f = u1 > u0 ? ((double)L - u0) / (u1 - u0) : 1.0;

	if (!(f >= 0))
		f = 0;
	if (f > 1)
		f = 1;
	return grid_ns(sh, k - 1) + (int64_t)(f * (double)GRID_NS);
}

/* The engine's average over what the spinners really got: the time it
 * first exceeds iso_cpu, or -1; *at_dem: the average at first_dem (the
 * first demotion), linear inside its grid step. */
static int64_t model_crossing(const struct trial_setup *t, uint64_t first_grant,
			      uint64_t first_dem, double *at_dem)
{
	const struct spin_shared *sh = t->sh;
	struct iso_tunables tun = { (unsigned)t->iso_cpu, (unsigned)t->iso_period_s };
	struct iso_budget b;
	int k0 = (int)((first_grant - sh->t0_ns) / GRID_NS), kmax = 0;
	uint64_t recent[64] = { 0 }, d, carry = 0, step_cap = GRID_NS * (uint64_t)sh->n;
	double before = 0;

	for (int i = 0; i < sh->n; i++)
		if (sh->sp[i].last_k > kmax)
			kmax = sh->sp[i].last_k;
	iso_budget_init(&b);
	iso_budget_feed(&b, &tun, grid_ns(sh, k0), 0, (unsigned)sh->n);
	for (int k = k0 + 1; k <= kmax; k++) {
		d = 0;
		for (int i = 0; i < sh->n; i++) {
			const struct spinner *s = &sh->sp[i];
			int a = k - 1 < s->last_k ? k - 1 : s->last_k;
			int c = k < s->last_k ? k : s->last_k;

			if ((uint64_t)k * GRID_NS + sh->t0_ns <= s->grant_ns)
				continue;
			d += s->cpu[c] - s->cpu[a];
		}
		/* a step's CPU time beyond its capacity (a spinner records
		 * its clock at its first look inside a step, a little early
		 * or late, and after a preemption at once for the steps it
		 * missed) is the next step's: the feed's cap of one share
		 * would drop it, and the model fell behind the spinners'
		 * real use by up to 12 ms of CPU a trial (0.2 points at the
		 * first check): isod's demotions read up to 15 ms "early" */
		d += carry;
		carry = d > step_cap ? d - step_cap : 0;
		d -= carry;
		iso_budget_feed(&b, &tun, grid_ns(sh, k), d, (unsigned)sh->n);
		recent[k % 64] = d;
		if ((uint64_t)grid_ns(sh, k) <= first_dem)
			*at_dem = b.usage;
		else if ((uint64_t)grid_ns(sh, k - 1) <= first_dem)
			*at_dem = before + (b.usage - before) *
					       (double)(first_dem - (uint64_t)grid_ns(sh, k - 1)) / GRID_NS;
		if (b.usage > (double)t->iso_cpu)
			return between(sh, k, before, b.usage, t->iso_cpu);
		before = b.usage;
	}
	/* demoted before the average of what we saw crossed (isod ahead of
	 * the model: a negative reaction): go on at the rate of the last
	 * 64 ms until it crosses */
	if (kmax <= k0 + 64)
		return -1;
	d = 0;
	for (int i = 0; i < 64; i++)
		d += recent[i];
	d /= 64;
	for (int k = kmax + 1; k < kmax + 100000 && d; k++) {
		iso_budget_feed(&b, &tun, grid_ns(sh, k), d, (unsigned)sh->n);
		if (b.usage > (double)t->iso_cpu)
			return between(sh, k, before, b.usage, t->iso_cpu);
		before = b.usage;
	}
	return -1;
}

void trial_run(const struct trial_setup *t, struct trial_result *out)
{
	struct spin_shared *sh = t->sh;
	struct seen v;
	int64_t cross_ns;
	pid_t p;
	bool traced;

	*out = (struct trial_result){ .outcome = TRIAL_FAILED };
	spin_shared_reset(sh);
	p = spin_start(sh, t->max_s, true);
	if (p < 0)
		return;
	traced = t->tracer &&
		 tracer_start(t->tracer, t->max_s, isod_private_pid(), p, sh) == 0;
	if (spin_wait(p, t->max_s, traced ? tracer_poll : NULL, t->tracer) < 0 ||
	    sh->error[0])
		return;
	collect(sh, &v);
	if (!v.all_granted)
		return;
	if (v.first_dem == UINT64_MAX) {
		out->outcome = TRIAL_NOT_DEMOTED;
		return;
	}
	if (!v.first_ours) {
		out->outcome = TRIAL_FOREIGN;
		return;
	}
	if (!v.first_budget) {
		out->outcome = TRIAL_NOT_BUDGET;
		return;
	}
	out->outcome = TRIAL_DEMOTED;
	double at_dem = 0;

	cross_ns = model_crossing(t, v.first_grant, v.first_dem, &at_dem);
	out->short_pts = cross_ns >= 0 && (uint64_t)cross_ns > v.first_dem
				 ? (double)t->iso_cpu - at_dem : 0.0;
	if (cross_ns < 0) {
		out->outcome = TRIAL_NO_CROSSING;
		cross_ns = (int64_t)v.first_dem;
	}
	out->cross_s = (double)(cross_ns - (int64_t)v.first_grant) / 1e9;
	out->react_ms = ((double)v.first_dem - (double)cross_ns) / 1e6;
	/* the spinner saw FIFO last at first_fifo: a large gap means it was
	 * not running when isod demoted it (another task had its CPU) */
	out->gap_ms = ((double)v.first_dem - (double)v.first_fifo) / 1e6;
	out->last_ms = ((double)v.last_dem - (double)cross_ns) / 1e6;
	if (traced && (out->react_ms > 20.0 || out->react_ms < -5.0))
		tracer_explain(t->tracer, t->iso_cpu, out->react_ms, v.first_grant,
			       v.first_dem, (uint64_t)cross_ns);
}
