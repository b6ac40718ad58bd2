/* iso_percpu.c — the budget per CPU (iso_percpu.h). */
#include "iso_percpu.h"

#include <errno.h>
#include <math.h>
#include <strings.h>

#include "iso_horizon.h"

int iso_scope_parse(const char *s, enum iso_scope *out)
{
	if (!strcasecmp(s, "global"))
		*out = ISO_SCOPE_GLOBAL;
	else if (!strcasecmp(s, "per-cpu"))
		*out = ISO_SCOPE_PER_CPU;
	else
		return -EINVAL;
	return 0;
}

const char *iso_scope_name(enum iso_scope s)
{
	return s == ISO_SCOPE_PER_CPU ? "per-cpu" : "global";
}

int iso_percpu_init(struct iso_percpu *p, struct iso_percpu_cpu *cpus, unsigned ncpus,
		    enum iso_scope scope)
{
	bool on = scope == ISO_SCOPE_PER_CPU;

	if ((on && (ncpus == 0 || !cpus)) || (scope != ISO_SCOPE_GLOBAL && !on))
		return -EINVAL;
	*p = (struct iso_percpu){ .on = on, .ncpus = on ? ncpus : 0, .cpus = on ? cpus : NULL };
	for (unsigned i = 0; i < p->ncpus; i++)
		cpus[i] = (struct iso_percpu_cpu){ 0 };
	return 0;
}

static bool in_range(const struct iso_percpu *p, int cpu)
{
	return cpu >= 0 && (unsigned)cpu < p->ncpus;
}

int iso_percpu_charge(struct iso_percpu *p, int *charged_cpu, const struct iso_task *task,
		      int cpu, uint64_t iso_ns)
{
	if (!p->on)
		return 0;
	/* demoted: it used no ISO time, and stays with the CPU whose
	 * average demoted it (iso_percpu.h) */
	if (task->demoted && *charged_cpu != ISO_CPU_UNKNOWN)
		return 0;
	if (!in_range(p, cpu)) {
		*charged_cpu = ISO_CPU_UNKNOWN;
		return -ERANGE;
	}
	*charged_cpu = cpu;
	p->cpus[cpu].pending_ns += iso_ns;
	return 0;
}

int iso_percpu_commit(struct iso_percpu *p, const struct iso_tunables *t, int64_t now_ns)
{
	double dt, keep;
	uint64_t cap;

	if (iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < p->ncpus; i++)
		p->cpus[i].changed = false;
	if (!p->on)
		return 0;
	if (!p->started) {
		for (unsigned i = 0; i < p->ncpus; i++)
			p->cpus[i].pending_ns = 0;
		p->started = true;
		p->last_ns = now_ns;
		return 0;
	}
	if (now_ns <= p->last_ns)
		return 0;
	dt = (double)(now_ns - p->last_ns) / 1e9;
	keep = exp(-dt / (double)t->iso_period_s);
	cap = (uint64_t)(now_ns - p->last_ns);
	for (unsigned i = 0; i < p->ncpus; i++) {
		struct iso_percpu_cpu *c = &p->cpus[i];
		uint64_t total = c->pending_ns + c->carry_ns;
		bool was = c->over;

		/* as iso_engine_commit, for one CPU: threads that moved here
		 * just before the read bring time they ran elsewhere; what
		 * exceeds the interval is fed next (at most one second) */
		c->carry_ns = 0;
		c->pending_ns = 0;
		if (total > cap) {
			c->carry_ns = total - cap;
			if (c->carry_ns > 1000000000ull)
				c->carry_ns = 1000000000ull;
			total = cap;
		}
		c->usage = c->usage * keep + 100.0 * ((double)total / 1e9 / dt) * (1.0 - keep);
		if (c->usage > 100.0)
			c->usage = 100.0;
		c->over = iso_over_limit(c->usage, t->iso_cpu, c->over);
		c->changed = c->over != was;
	}
	p->last_ns = now_ns;
	return 0;
}

bool iso_percpu_over(const struct iso_percpu *p, int cpu)
{
	return p->on && in_range(p, cpu) && p->cpus[cpu].over;
}

double iso_percpu_usage(const struct iso_percpu *p, int cpu)
{
	return p->on && in_range(p, cpu) ? p->cpus[cpu].usage : 0.0;
}

bool iso_percpu_applies(const struct iso_percpu *p, int cpu)
{
	return p->on && in_range(p, cpu);
}

bool iso_percpu_decide(const struct iso_engine *e, const struct iso_share *s,
		       const struct iso_percpu *p, int charged_cpu, uint32_t uid,
		       struct iso_task *task)
{
	struct iso_engine view;
	bool was = task->demoted;

	if (!iso_percpu_applies(p, charged_cpu))
		return iso_share_decide(e, s, uid, task);
	/* the engine's rules but the global budget's; then the CPU's */
	view = *e;
	view.budget.refractory = false;
	(void)iso_share_decide(&view, s, uid, task);
	if (p->cpus[charged_cpu].over)
		task->demoted = true;
	return task->demoted != was;
}

double iso_percpu_horizon_s(const struct iso_percpu *p, const struct iso_tunables *t,
			    unsigned running, double max_idle_pct, int64_t base_ns)
{
	double s = INFINITY, since;

	if (!p->on || !p->started)
		return INFINITY;
	/* the averages were last fed at p->last_ns: a horizon from there,
	 * as seen from base_ns */
	since = (double)(base_ns - p->last_ns) / 1e9;
	for (unsigned i = 0; i < p->ncpus; i++) {
		const struct iso_percpu_cpu *c = &p->cpus[i];
		double max_pct = running || c->carry_ns ? 100.0 : max_idle_pct;
		double h = c->over ? iso_plan_fall_s(c->usage, (double)t->iso_cpu * 9.0 / 10.0,
						     t->iso_period_s)
				   : iso_plan_rise_s(c->usage, max_pct, (double)t->iso_cpu,
						     t->iso_period_s);

		s = fmin(s, h);
	}
	s -= since;
	return s < 0.0 ? 0.0 : s;
}
