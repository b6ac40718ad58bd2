/* spin.h — the runaway of --enforcement, shared between the parent and
 * the spinning child (MAP_SHARED), and the parts that use it. Private to
 * src/bench/enforce. */
#ifndef ISOBENCH_SPIN_H
#define ISOBENCH_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "enforce.h"

#define GRID_NS 1000000ull /* 1 ms */
#define MAX_SPIN 64
#define PARENT_PRIO 60

struct spinner {
	atomic_int tid;
	int granted, demoted, failed;
	uint64_t grant_ns, demote_ns;
	uint64_t fifo_ns; /* the last poll that still saw SCHED_FIFO */
	int seen_policy;  /* the kernel policy seen at the demotion */
	int ours;         /* our isod lists the thread as demoted */
	int budget_over;  /* and its budget was over iso_cpu (refractory) */
	uint32_t usage_milli; /* isod's usage then */
	/* share runs: CPU time while the kernel ran it SCHED_FIFO / not */
	_Atomic uint64_t rt_ns, other_ns;
	int last_k;
	uint64_t *cpu; /* ISO CPU time since the grant at grid step k */
};

struct spin_shared {
	int n;
	size_t grid;             /* steps in each spinner's cpu[] */
	uint64_t t0_ns, stop_ns; /* grid origin; spin no longer than this */
	bool until_demoted;
	atomic_int ready, go;
	char error[256];
	atomic_flag error_taken;
	struct spinner sp[MAX_SPIN];
	/* then n grids of `grid` uint64_t */
};

/* spinners.c */
struct spin_shared *spin_shared_new(int n, size_t grid);
void spin_shared_free(struct spin_shared *sh);
/* Empty for a new run. */
void spin_shared_reset(struct spin_shared *sh);
/* Fork the spinning child (tracked for the signal handler); it spins
 * until demoted (until_demoted) or until max_s after its start. Its pid,
 * or -errno. */
pid_t spin_start(struct spin_shared *sh, double max_s, bool until_demoted);
/* Wait for it (killed past max_s + 5 s), calling tick(arg) every ms if
 * given (else looking every 5 ms): 0 it exited 0, -1 it failed or was
 * killed. */
int spin_wait(pid_t p, double max_s, void (*tick)(void *), void *arg);

/* trace.c: ISOBENCH_DEBUG */
struct tracer;
struct tracer *tracer_new(void);
void tracer_free(struct tracer *t);
/* For a trial of at most max_s s, spinners of spin_pid: 0 or -ENOMEM. */
int tracer_start(struct tracer *t, double max_s, pid_t isod, pid_t spin_pid,
		 const struct spin_shared *sh);
/* spin_wait's tick: one look at isod's enforcer and the spinners. */
void tracer_poll(void *t);
/* Explain a reaction of react_ms at iso_cpu L on stderr. */
void tracer_explain(const struct tracer *t, int L, double react_ms,
		    uint64_t from, uint64_t to, uint64_t cross);

/* trial.c */
enum trial_outcome {
	TRIAL_DEMOTED,      /* demoted by our isod's budget: measured */
	TRIAL_NOT_DEMOTED,  /* never demoted within the time allowed */
	TRIAL_FAILED,       /* the spinning child failed (sh->error) */
	TRIAL_NO_CROSSING,  /* demoted, but the model never crossed */
	TRIAL_FOREIGN,      /* its policy changed, but not by our isod */
	TRIAL_NOT_BUDGET,   /* our isod, but its budget was not over */
};

struct trial_result {
	enum trial_outcome outcome;
	double cross_s;  /* the model's crossing, from the first grant */
	double react_ms; /* first demotion − crossing */
	double last_ms;  /* last demotion − crossing */
	double gap_ms;   /* the first demoted spinner's last FIFO poll before */
	double short_pts; /* how far the model's average was below iso_cpu at
			   * the first demotion, in points (0: past it): an
			   * early demotion's size where the average climbs
			   * slowly, and ms say little */
};

struct trial_setup {
	int ncpu, iso_cpu, iso_period_s;
	double max_s;
	struct spin_shared *sh;
	struct tracer *tracer; /* or NULL */
};

void trial_run(const struct trial_setup *s, struct trial_result *out);

/* share.c: the spinners past their demotion against a competitor */
void share_run(const struct trial_setup *s, double warm_s, double window_s,
	       struct enforce_share *out, char *note, size_t notelen);

#endif
