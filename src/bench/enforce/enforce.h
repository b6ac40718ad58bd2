/* enforce.h — isobench --enforcement: how fast isod demotes a runaway and
 * how much CPU a runaway leaves to SCHED_OTHER tasks, for each iso_cpu.
 *   spinners.c  the runaway: a child of user nobody, a spinner per CPU
 *   trial.c     one reaction trial, and the budget model's crossing
 *   trace.c     ISOBENCH_DEBUG: follow isod's enforcer, explain outliers
 *   share.c     the CPU-share run against a SCHED_OTHER competitor
 *   run.c       enforce_run: the levels, their trials, the statistics
 *   out.c       the text table and the JSON object */
#ifndef ISOBENCH_ENFORCE_H
#define ISOBENCH_ENFORCE_H

#include <stdbool.h>

#include "bench.h"
#include "common/stats.h"

struct enforce_opts {
	const char *isod; /* --isod, or NULL */
	int trials;
	int iso_cpu[MODE_MAX_LIST], n_iso_cpu;
	int iso_period_s;
	double window_s;  /* CPU-share window; 0: no share run */
	bool debug;       /* ISOBENCH_DEBUG */
};

/* The CPU share left to others, over the window after the warm-up. */
struct enforce_share {
	bool ok;
	double window_s;
	double comp_pct_cpu, comp_pct_all; /* the competitor, of one / all CPUs */
	double iso_pct_all;                /* the spinners, schedstat */
	double rt_pct_all, other_pct_all;  /* the spinners as RT / demoted */
};

struct enforce_level {
	int iso_cpu;
	/* trials by outcome (see enum trial_outcome in trial.h) */
	int trials, demoted, failed, no_cross, foreign, not_budget;
	double model_cross_s; /* τ·ln(1/(1 − L/100)), at 100 % of all CPUs */
	struct dist cross_s, react_ms, react_samples, last_ms, gap_ms;
	struct dist short_pts; /* the model's average below iso_cpu at the
				* first demotion, points (0: past it) */
	double *all_react;    /* per demoted trial, sorted; react_ms.n of them */
	struct enforce_share share;
	char note[600];
};

struct enforce_result {
	int ncpu;             /* spinners: one per online CPU */
	int iso_period_s, trials;
	double sample_ms, window_s;
	struct enforce_level levels[MODE_MAX_LIST];
	int nlevels;
};

/* The hard time bound of a run, in s. */
unsigned enforce_bound_s(const struct enforce_opts *o);
/* Root. 0 every level ran, -1 something failed (see the notes); the
 * result is freed by enforce_result_free. */
int enforce_run(const struct enforce_opts *o, struct enforce_result *r);
void enforce_result_free(struct enforce_result *r);
void enforce_print_text(const struct enforce_result *r);
void enforce_print_json(const struct enforce_result *r);

#endif
