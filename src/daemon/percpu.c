/* percpu.c — the budget per CPU in the enforcer's step (percpu.h). */
#include "percpu.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"

int isod_percpu_init(struct isod *d, const struct isod_config *cfg)
{
	/* CPU numbers go up to the possible CPUs, offline ones included:
	 * sized by those, a CPU brought online later is still in range */
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = (unsigned)(conf > onln ? conf : onln > 0 ? onln : 1);
	struct iso_percpu_cpu *cpus = NULL;

	if (cfg->scope == ISO_SCOPE_PER_CPU) {
		cpus = calloc(n, sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
	}
	if (iso_percpu_init(&d->percpu, cpus, n, cfg->scope) < 0) {
		free(cpus);
		return -EINVAL;
	}
	if (cpus)
		log_info("scope per-cpu: each of %u CPUs has its own ISO budget (iso_cpu %u%% of it)",
			 n, cfg->tun.iso_cpu);
	return 0;
}

void isod_percpu_free(struct isod *d)
{
	free(d->percpu.cpus);
	d->percpu.cpus = NULL;
}

void isod_percpu_charge(struct isod *d, struct tracked *e)
{
	int cpu = ISO_CPU_UNKNOWN, r;

	if (!d->percpu.on)
		return;
	/* demoted: it stays with the CPU it was charged to; no read */
	if (e->core.demoted && e->cpu != ISO_CPU_UNKNOWN)
		return;
	r = d->acct->last_cpu(d->acct, d->proc, e, &cpu);
	if (r < 0) {
		/* held to the global budget until a read works */
		log_debug("thread %d: its CPU not read (%d)", (int)e->tid, r);
		e->cpu = ISO_CPU_UNKNOWN;
		return;
	}
	if (iso_percpu_charge(&d->percpu, &e->cpu, &e->core, cpu,
			      iso_task_iso_delta(&e->core, e->cpu_ns)) < 0)
		log_debug("thread %d: CPU %d is past the %u CPUs counted at start-up; held to the global budget",
			  (int)e->tid, cpu, d->percpu.ncpus);
}

void isod_percpu_commit(struct isod *d, int64_t now_ns)
{
	struct iso_percpu *p = &d->percpu;

	if (!p->on)
		return;
	(void)iso_percpu_commit(p, &d->engine.tun, now_ns);
	for (unsigned i = 0; i < p->ncpus; i++)
		if (p->cpus[i].changed)
			log_info("CPU %u: ISO CPU use %.1f %%: %s", i, p->cpus[i].usage,
				 p->cpus[i].over
					 ? "above iso_cpu (scope per-cpu), its ISO threads demoted to SCHED_OTHER"
					 : "below 90 % of iso_cpu, its ISO threads restored");
}

bool isod_decide(struct isod *d, struct tracked *e)
{
	return iso_percpu_decide(&d->engine, &d->share, &d->percpu, e->cpu, e->charged, &e->core);
}
