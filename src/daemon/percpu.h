/* percpu.h — the budget per CPU in the enforcer's step (scope per-cpu,
 * iso_percpu.h): each thread's CPU read at its sample, the per-CPU
 * averages committed with a log line for each CPU that goes over iso_cpu
 * or comes back, and the decision. With the global scope every call is
 * what the step did before (iso_share_decide) at no cost.
 *
 * Caller holds d->lock. Return contract: 0 or a negative errno. */
#ifndef ISOD_PERCPU_H
#define ISOD_PERCPU_H

#include <stdint.h>

#include "isod.h"

/* The per-CPU table for cfg->scope, one entry per possible CPU. */
int isod_percpu_init(struct isod *d, const struct isod_config *cfg);
void isod_percpu_free(struct isod *d);
/* e was just sampled (e->cpu_ns): charge its ISO time to the CPU it is
 * on. Before iso_engine_account*, which moves the baseline. */
void isod_percpu_charge(struct isod *d, struct tracked *e);
/* After the engine's commit. */
void isod_percpu_commit(struct isod *d, int64_t now_ns);
/* The decision for e (iso_percpu_decide); true when it changed. */
bool isod_decide(struct isod *d, struct tracked *e);

#endif
