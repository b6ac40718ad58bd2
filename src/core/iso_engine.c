/* iso_engine.c — per-step accounting and decisions. */
#include "iso_engine.h"

#include <errno.h>

int iso_engine_init(struct iso_engine *e, const struct iso_tunables *t,
		    unsigned ncpus)
{
	if (ncpus == 0 || iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	e->tun = *t;
	e->ncpus = ncpus;
	e->pending_ns = 0;
	iso_budget_init(&e->budget);
	return 0;
}

int iso_engine_retune(struct iso_engine *e, const struct iso_tunables *t)
{
	if (iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	e->tun = *t;
	return 0;
}

int iso_task_init(struct iso_task *task, unsigned limit)
{
	if (limit > 100)
		return -EINVAL;
	task->limit = limit;
	task->demoted = false;
	task->has_prev = false;
	task->prev_cpu_ns = 0;
	return 0;
}

void iso_engine_begin(struct iso_engine *e)
{
	e->pending_ns = 0;
}

void iso_engine_account(struct iso_engine *e, struct iso_task *task,
			uint64_t cpu_ns)
{
	if (task->has_prev && cpu_ns >= task->prev_cpu_ns && !task->demoted)
		e->pending_ns += cpu_ns - task->prev_cpu_ns;
	task->prev_cpu_ns = cpu_ns;
	task->has_prev = true;
}

int iso_engine_commit(struct iso_engine *e, int64_t now_ns)
{
	int r = iso_budget_feed(&e->budget, &e->tun, now_ns, e->pending_ns,
				e->ncpus);
	e->pending_ns = 0;
	return r;
}

bool iso_engine_decide(const struct iso_engine *e, struct iso_task *task)
{
	bool over;

	/* Without a limit of its own a task follows the global refractory
	 * state, so all of them drop and return together, as in the patch. */
	if (task->limit == 0)
		over = e->budget.refractory;
	else
		over = iso_over_limit(e->budget.usage, task->limit, task->demoted);
	if (over == task->demoted)
		return false;
	task->demoted = over;
	return true;
}

double iso_engine_usage(const struct iso_engine *e)
{
	return e->budget.usage;
}

bool iso_engine_refractory(const struct iso_engine *e)
{
	return e->budget.refractory;
}
