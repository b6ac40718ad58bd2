/* iso_budget.c — exponential-average CPU budget with hysteresis. */
#include "iso_budget.h"

#include <errno.h>
#include <math.h>

int iso_tunables_check(const struct iso_tunables *t, const char **why)
{
	const char *msg = 0;

	if (t->iso_cpu < 1 || t->iso_cpu > ISO_CPU_MAX)
		msg = "iso_cpu must be a percentage from 1 to 100";
	else if (t->iso_period_s < 1 || t->iso_period_s > ISO_PERIOD_MAX)
		msg = "iso_period must be from 1 to 3600 seconds";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

void iso_budget_init(struct iso_budget *b)
{
	b->usage = 0.0;
	b->refractory = false;
	b->started = false;
	b->last_ns = 0;
	b->prev_ns = 0;
}

bool iso_over_limit(double usage, unsigned limit_pct, bool was_over)
{
	if (usage > (double)limit_pct)
		return true;
	if (was_over && usage >= (double)limit_pct * 9.0 / 10.0)
		return true;
	return false;
}

int iso_budget_feed(struct iso_budget *b, const struct iso_tunables *t,
		    int64_t now_ns, uint64_t iso_cpu_ns, unsigned ncpus)
{
	double dt, share, keep;

	if (ncpus == 0 || iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	if (!b->started) {
		b->started = true;
		b->last_ns = b->prev_ns = now_ns;
		return 0;
	}
	if (now_ns <= b->last_ns)
		return 0;
	dt = (double)(now_ns - b->last_ns) / 1e9;
	b->prev_ns = b->last_ns;
	b->last_ns = now_ns;
	/* A long gap (suspend, a stopped daemon) is just a long interval: the
	 * share is CPU time over elapsed time, so it can only be as high as
	 * what ISO tasks really used — never a false demotion. */
	share = (double)iso_cpu_ns / 1e9 / (dt * (double)ncpus);
	if (share > 1.0)
		share = 1.0;
	keep = exp(-dt / (double)t->iso_period_s);
	b->usage = b->usage * keep + 100.0 * share * (1.0 - keep);
	if (b->usage > 100.0)
		b->usage = 100.0;
	b->refractory = iso_over_limit(b->usage, t->iso_cpu, b->refractory);
	return 0;
}

unsigned iso_effective_limit(unsigned own_limit, unsigned iso_cpu)
{
	return own_limit == 0 || own_limit > iso_cpu ? iso_cpu : own_limit;
}
