/* run.c — enforce_run: for each iso_cpu, its trials (each against a fresh
 * isod: zero budget history) and its CPU-share run; the statistics over
 * the trials that measured something. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/isod.h"
#include "spin.h"

unsigned enforce_bound_s(const struct enforce_opts *o)
{
	return (unsigned)(o->n_iso_cpu *
			  (o->trials * (o->iso_period_s * 6.0 + 6.0) + o->window_s +
			   o->iso_period_s * 9.0 + 30.0)) + 60;
}

/* The per-trial values of the trials that measured something. */
struct samples {
	double *cross, *react, *last, *react_s, *gap, *shortfall;
	int n;
};

static int samples_new(struct samples *s, int trials)
{
	memset(s, 0, sizeof(*s));
	s->cross = calloc((size_t)trials, sizeof(double));
	s->react = calloc((size_t)trials, sizeof(double));
	s->last = calloc((size_t)trials, sizeof(double));
	s->react_s = calloc((size_t)trials, sizeof(double));
	s->gap = calloc((size_t)trials, sizeof(double));
	s->shortfall = calloc((size_t)trials, sizeof(double));
	return s->cross && s->react && s->last && s->react_s && s->gap && s->shortfall ? 0
										       : -ENOMEM;
}

/* all but react, which the level keeps */
static void samples_free(struct samples *s)
{
	free(s->cross);
	free(s->last);
	free(s->react_s);
	free(s->gap);
	free(s->shortfall);
}

/* one trial's outcome into the level's counts (and samples) */
static void count_trial(struct enforce_level *l, const struct trial_result *t,
			struct samples *s, double sample_ms, const char *error)
{
	l->trials++;
	switch (t->outcome) {
	case TRIAL_FAILED:
		l->failed++;
		snprintf(l->note, sizeof(l->note), "%s",
			 error[0] ? error : "spinning child failed");
		break;
	case TRIAL_NOT_DEMOTED:
		break;
	case TRIAL_NOT_BUDGET:
		l->not_budget++;
		break;
	case TRIAL_FOREIGN:
		l->foreign++;
		break;
	case TRIAL_NO_CROSSING:
		l->no_cross++;
		break;
	case TRIAL_DEMOTED:
		s->cross[s->n] = t->cross_s;
		s->react[s->n] = t->react_ms;
		s->last[s->n] = t->last_ms;
		s->react_s[s->n] = t->react_ms / sample_ms;
		s->gap[s->n] = t->gap_ms;
		s->shortfall[s->n] = t->short_pts;
		s->n++;
		break;
	}
}

static void summarize(struct enforce_level *l, struct samples *s)
{
	l->demoted = s->n;
	dist_of(s->cross, s->n, &l->cross_s);
	dist_of(s->last, s->n, &l->last_ms);
	dist_of(s->react_s, s->n, &l->react_samples);
	dist_of(s->react, s->n, &l->react_ms);
	dist_of(s->gap, s->n, &l->gap_ms);
	dist_of(s->shortfall, s->n, &l->short_pts);
	l->all_react = s->react; /* sorted by dist_of */
}

/* One iso_cpu: 0, or -1 (a trial or the share run failed). */
static int run_level(const struct enforce_opts *o, const struct isod_bin *bin,
		     struct tracer *tracer, int L, struct enforce_level *l,
		     double *sample_ms)
{
	struct isod_want want = {
		.iso_cpu = L, .iso_period_s = o->iso_period_s, .log_level = "warning",
		.rate_limit_off = true,
		/* the budget's reaction is measured: the burst guard and the
		 * stall cap (isobench --stall) would act first */
		.guard_off = true, .stall_cap_off = true,
	};
	long ncpu_l = sysconf(_SC_NPROCESSORS_ONLN);
	int ncpu = ncpu_l < 1 ? 1 : ncpu_l > MAX_SPIN ? MAX_SPIN : (int)ncpu_l;
	double frac = L / 100.0;
	/* the spinners get ~95 % (RT throttling): allow for 90 % */
	double slow = frac < 0.9 ? -log(1.0 - frac / 0.9) : 6.0;
	struct trial_setup t = {
		.ncpu = ncpu, .iso_cpu = L, .iso_period_s = o->iso_period_s,
		.max_s = o->iso_period_s * slow + 3.0, .tracer = tracer,
	};
	size_t grid = (size_t)((t.max_s + 1.0) * 1e9 / GRID_NS) + 2;
	struct samples s;
	char err[512] = "";
	int rc = 0;

	l->iso_cpu = L;
	l->model_cross_s = frac < 1.0 ? -o->iso_period_s * log(1.0 - frac) : INFINITY;
	t.sh = spin_shared_new(ncpu, grid);
	if (!t.sh || samples_new(&s, o->trials) < 0) {
		fprintf(stderr, "isobench: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < o->trials; i++) {
		struct trial_result tr;

		if (isod_start(bin, &want, err, sizeof(err)) < 0) {
			snprintf(l->note, sizeof(l->note), "isod: %s", err);
			rc = -1;
			break;
		}
		*sample_ms = isod_sample_ms(*sample_ms);
		trial_run(&t, &tr);
		isod_stop_private();
		count_trial(l, &tr, &s, *sample_ms, t.sh->error);
	}
	summarize(l, &s);
	if (o->window_s > 0 && !l->note[0]) {
		if (isod_start(bin, &want, err, sizeof(err)) < 0) {
			snprintf(l->note, sizeof(l->note), "isod: %s", err);
			rc = -1;
		} else {
			share_run(&t, o->iso_period_s * slow + 1.0 + 2.0 * o->iso_period_s,
				  o->window_s, &l->share, l->note, sizeof(l->note));
			isod_stop_private();
		}
	}
	if (l->failed || (l->note[0] && !l->share.ok && o->window_s > 0))
		rc = -1;
	spin_shared_free(t.sh);
	samples_free(&s);
	return rc;
}

int enforce_run(const struct enforce_opts *o, struct enforce_result *r)
{
	struct sched_param sp = { .sched_priority = PARENT_PRIO };
	struct tracer *tracer = o->debug ? tracer_new() : NULL;
	struct isod_bin bin;
	long ncpu_l = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->ncpu = ncpu_l < 1 ? 1 : ncpu_l > MAX_SPIN ? MAX_SPIN : (int)ncpu_l;
	r->iso_period_s = o->iso_period_s;
	r->trials = o->trials;
	r->window_s = o->window_s;
	r->sample_ms = 10.0;
	if (isod_bin_find(o->isod, &bin) < 0) {
		fprintf(stderr, "isobench: %s\n", ISOD_NOT_FOUND);
		tracer_free(tracer);
		return -1;
	}
	/* read the counters and timestamps on time, whatever spins; the
	 * children start SCHED_OTHER */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		fprintf(stderr, "isobench: warning: cannot run the parent as"
				" SCHED_FIFO %d: %s\n", PARENT_PRIO, strerror(errno));
	for (int i = 0; i < o->n_iso_cpu; i++) {
		if (run_level(o, &bin, tracer, o->iso_cpu[i], &r->levels[i],
			      &r->sample_ms) < 0)
			rc = -1;
		r->nlevels++;
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	isod_bin_free(&bin);
	tracer_free(tracer);
	return rc;
}

void enforce_result_free(struct enforce_result *r)
{
	for (int i = 0; i < r->nlevels; i++) {
		free(r->levels[i].all_react);
		r->levels[i].all_react = NULL;
	}
}
