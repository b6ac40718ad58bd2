/* iso_engine.c — per-step accounting and decisions. */
#include "iso_engine.h"

#include <errno.h>
#include <math.h>

int iso_engine_init(struct iso_engine *e, const struct iso_tunables *t,
		    unsigned ncpus)
{
	if (ncpus == 0 || iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	e->tun = *t;
	e->ncpus = ncpus;
	e->pending_ns = 0;
	e->pending_ran = 0;
	e->pending_adj_ns = 0;
	e->carry_ns = 0;
	e->late_ns = 0;
	e->late_ran = 0;
	iso_budget_init(&e->budget);
	iso_stall_init(&e->stall);
	e->stall_ns = 0;
	return 0;
}

int iso_engine_set_stall(struct iso_engine *e, unsigned stall_ms)
{
	if (stall_ms > ISO_BURST_MS_MAX)
		return -EINVAL;
	e->stall_ns = (int64_t)stall_ms * 1000000;
	return 0;
}

bool iso_engine_stalled(const struct iso_engine *e)
{
	return e->stall.over;
}

int iso_engine_retune(struct iso_engine *e, const struct iso_tunables *t)
{
	if (iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	e->tun = *t;
	return 0;
}

int iso_task_set_limit(struct iso_task *task, unsigned limit)
{
	if (limit > 100)
		return -EINVAL;
	task->limit = limit;
	return 0;
}

int iso_task_init(struct iso_task *task, unsigned limit)
{
	if (iso_task_set_limit(task, limit) < 0)
		return -EINVAL;
	task->demoted = false;
	task->has_prev = false;
	task->prev_cpu_ns = 0;
	task->read_ns = 0;
	task->skip = 0;
	task->held = false;
	task->counted_from_ns = 0;
	return 0;
}

void iso_engine_begin(struct iso_engine *e)
{
	e->pending_ns = 0;
	e->pending_ran = 0;
	e->pending_adj_ns = 0;
}

void iso_task_rebase(struct iso_task *task, uint64_t cpu_ns, int64_t now_ns)
{
	task->prev_cpu_ns = cpu_ns;
	task->has_prev = true;
	task->counted_from_ns = now_ns;
}

void iso_engine_account(struct iso_engine *e, struct iso_task *task,
			uint64_t cpu_ns)
{
	if (task->has_prev && cpu_ns > task->prev_cpu_ns && !task->demoted) {
		e->pending_ns += cpu_ns - task->prev_cpu_ns;
		e->pending_ran++;
	}
	task->prev_cpu_ns = cpu_ns;
	task->has_prev = true;
}

void iso_engine_account_placed(struct iso_engine *e, struct iso_task *task, uint64_t cpu_ns,
			       int64_t now_ns, const struct iso_offcpu *off)
{
	uint64_t before = e->pending_ns, used;
	struct iso_offcpu all = { 0 };

	iso_engine_account(e, task, cpu_ns);
	used = e->pending_ns - before;
	if (off && off->n <= ISO_OFFCPU_MAX)
		all = *off;
	/* counted only from its baseline: not on a CPU as ISO before it */
	if (e->budget.started && task->counted_from_ns > e->budget.last_ns &&
	    all.n < ISO_OFFCPU_MAX) {
		all.from[all.n] = e->budget.last_ns;
		all.to[all.n++] = task->counted_from_ns;
	}
	task->counted_from_ns = 0;
	if (used && all.n && e->budget.started)
		e->pending_adj_ns += (double)used * (iso_place_factor(e->budget.last_ns, now_ns,
								      e->tun.iso_period_s, used, &all) - 1.0);
}

void iso_engine_charge(struct iso_engine *e, struct iso_task *task, uint64_t cpu_ns)
{
	uint64_t before = e->pending_ns;
	unsigned ran = e->pending_ran;

	/* the same rule as a sample, kept apart from the step's pending
	 * figures, which the next iso_engine_begin clears */
	iso_engine_account(e, task, cpu_ns);
	e->late_ns += e->pending_ns - before;
	e->late_ran += e->pending_ran - ran;
	e->pending_ns = before;
	e->pending_ran = ran;
	task->counted_from_ns = 0;
}

/* What the average gets of a step's fed time: placed where it fell
 * (iso_place.h), never below nothing nor above every CPU's whole step. */
static uint64_t placed_ns(double adj, uint64_t fed, uint64_t cap, bool lump)
{
	double v = (double)fed + adj;

	/* a lump carried from other steps has no place in this one */
	if (lump)
		return fed;
	if (!(v > 0))
		return 0;
	return v >= (double)cap ? cap : (uint64_t)llround(v);
}

int iso_engine_commit(struct iso_engine *e, int64_t now_ns)
{
	uint64_t total = e->pending_ns + e->carry_ns + e->late_ns, fed = total, cap = UINT64_MAX;
	/* a carried lump is anyone's: the stall cap assumes all CPUs; a
	 * thread charged as it left ran beside this step's */
	unsigned ran = e->carry_ns ? e->ncpus : e->pending_ran + e->late_ran;
	int64_t dt = 0;
	bool lump = e->carry_ns != 0;
	uint64_t avg;
	int r;

	/* A task read late (iso_engine_due) brings the CPU time of several
	 * steps at once; what exceeds this step's capacity is fed in the next
	 * steps instead of being cut off by the share's cap. At most one
	 * second of all CPUs is carried (after a gap nothing is owed). */
	e->carry_ns = 0;
	if (e->budget.started && now_ns > e->budget.last_ns) {
		cap = (uint64_t)(now_ns - e->budget.last_ns) * e->ncpus;
		dt = now_ns - e->budget.last_ns;
		if (total > cap) {
			lump = true;
			fed = cap;
			e->carry_ns = total - cap;
			if (e->carry_ns > 1000000000ull * e->ncpus)
				e->carry_ns = 1000000000ull * e->ncpus;
		}
	}
	/* a leaver's time has no known place in the step: fed whole */
	if (lump) {
		avg = fed;
	} else {
		avg = placed_ns(e->pending_adj_ns, fed - e->late_ns, cap, false) + e->late_ns;
		if (avg > cap)
			avg = cap;
	}
	r = iso_budget_feed(&e->budget, &e->tun, now_ns, avg, e->ncpus);
	if (r == 0)
		r = iso_stall_feed_ran(&e->stall, e->stall_ns, e->tun.iso_cpu, dt, fed, e->ncpus,
				       ran ? ran : 1) < 0
			    ? -EINVAL : 0;
	e->pending_ns = 0;
	e->pending_ran = 0;
	e->pending_adj_ns = 0;
	e->late_ns = 0;
	e->late_ran = 0;
	return r;
}

bool iso_engine_decide(const struct iso_engine *e, struct iso_task *task)
{
	bool over;

	unsigned limit = iso_effective_limit(task->limit, e->tun.iso_cpu);

	/* Every task follows the global refractory state, so all of them drop
	 * and return together, as in the patch; an own limit below iso_cpu
	 * demotes its task earlier, never later — one set while iso_cpu was
	 * higher included (it is clamped to the current iso_cpu). The stall
	 * cap and the burst guard (iso_burst.h) demote on top of that. */
	over = e->budget.refractory;
	if (!over && limit < e->tun.iso_cpu)
		over = iso_over_limit(e->budget.usage, limit, task->demoted);
	over = over || e->stall.over || task->held;
	if (over == task->demoted)
		return false;
	task->demoted = over;
	return true;
}

bool iso_engine_precise(const struct iso_engine *e)
{
	return e->budget.refractory || e->budget.usage * 10 >= (double)e->tun.iso_cpu * 8 ||
	       e->stall.level_ns > 0;
}

bool iso_engine_due(const struct iso_engine *e, struct iso_task *task)
{
	if (task->skip == 0 || iso_engine_precise(e))
		return true;
	task->skip--;
	return false;
}

void iso_engine_account_read(struct iso_engine *e, struct iso_task *task,
			     uint64_t cpu_ns, int64_t now_ns)
{
	int64_t elapsed = now_ns - task->read_ns;
	bool busy = !task->has_prev || task->read_ns == 0 || elapsed <= 0 ||
		    cpu_ns < task->prev_cpu_ns ||
		    (cpu_ns - task->prev_cpu_ns) * ISO_COLD_SHARE_DIV >= (uint64_t)elapsed;

	task->skip = busy ? 0 : ISO_COLD_EVERY - 1;
	task->read_ns = now_ns;
	iso_engine_account(e, task, cpu_ns);
}

double iso_engine_usage(const struct iso_engine *e)
{
	return e->budget.usage;
}

bool iso_engine_refractory(const struct iso_engine *e)
{
	return e->budget.refractory;
}
