/* run.c — latency mode's order of things: calibrate (before any load),
 * find or start isod for the iso policies, start the load, then the
 * policies take turns, duration/rounds at a time, so that a noisy stretch
 * of the machine hits all of them alike. The order rotates: round k starts
 * with policy k mod npol, so that no policy always runs first (or last)
 * after the load settles or changes. Each turn's own p50/p99/max is kept
 * for the paired per-round ratios (output.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/isod.h"
#include "latency.h"

unsigned latency_bound_s(const struct latency_opts *o)
{
	/* every run, the daemon start and some slack */
	return (unsigned)(o->npol * (o->cfg.duration_s + 20.0 * o->cfg.rounds)) + 40;
}

/* isod for the iso policies: 0, or -1 with why (and whether that is a skip
 * rather than a failure: no daemon to be had) */
static int get_isod(const struct latency_opts *o, char *why, size_t len,
		    bool *skip)
{
	struct isod_bin bin;
	struct isod_want want = { 0 };
	int r;

	/* iso-dl's reservations: the whole share isod allows (90 % of the
	 * CPUs), all of it to one user, so that the threads asked for fit
	 * as root's dl threads do */
	for (int i = 0; i < o->npol; i++) {
		if (o->pols[i] == POL_ISO_DL) {
			want.reserve_cpu = 90;
			want.reserve_user = 100;
		}
	}

	*skip = false;
	if (o->socket) {
		setenv("ISOSCHED_SOCKET", o->socket, 1);
		if (isod_answers())
			return 0;
		snprintf(why, len, "isod at %s does not answer", o->socket);
		return -1;
	}
	if (geteuid() != 0) {
		*skip = true;
		snprintf(why, len, "a private isod needs root; give --socket of a"
				   " running isod");
		return -1;
	}
	if (isod_bin_find(o->isod, &bin) < 0) {
		*skip = true;
		snprintf(why, len, "%s", ISOD_NOT_FOUND);
		return -1;
	}
	r = isod_start(&bin, &want, why, len);
	isod_bin_free(&bin);
	return r;
}

/* which policies can run at all: a note for the others */
static void check_policies(const struct latency_opts *o, struct latency_result *r)
{
	bool want_iso = false, iso_ok = false, iso_skip = false, root = geteuid() == 0;
	char iso_why[512] = "";

	for (int i = 0; i < o->npol; i++)
		want_iso |= policy_is_iso(o->pols[i]);
	if (want_iso)
		iso_ok = get_isod(o, iso_why, sizeof(iso_why), &iso_skip) == 0;
	for (int i = 0; i < o->npol; i++) {
		struct bench_result *x = &r->results[i];

		x->state = RUN_OK;
		if (policy_needs_root(o->pols[i]) && !root) {
			x->state = RUN_SKIPPED;
			snprintf(x->note, sizeof(x->note), "needs root");
		} else if (policy_is_iso(o->pols[i]) && !iso_ok) {
			/* no daemon to be had is a skip; a daemon we were
			 * told about or started that fails is a failure */
			x->state = iso_skip ? RUN_SKIPPED : RUN_FAILED;
			snprintf(x->note, sizeof(x->note), "%s", iso_why);
		}
	}
}

static void add_round(struct bench_result *into, const struct bench_result *x)
{
	into->samples += x->samples;
	into->misses += x->misses;
	into->policy_lost += x->policy_lost;
	into->kernel_policy = x->kernel_policy;
	into->kernel_prio = x->kernel_prio;
	into->iso_band_lo = x->iso_band_lo;
	into->iso_band_hi = x->iso_band_hi;
	hist_merge(into->hist, x->hist);
}

static void keep_round(struct bench_result *into, const struct bench_result *x,
		       int position)
{
	struct round_stat *s = &into->rounds[into->nrounds++];

	s->samples = x->samples;
	s->misses = x->misses;
	s->p50_us = hist_percentile_ns(x->hist, 50.0) / 1e3;
	s->p99_us = hist_percentile_ns(x->hist, 99.0) / 1e3;
	s->max_us = (double)x->hist->max_ns / 1e3;
	s->position = position;
	s->cpu = x->pinned_cpu;
	s->on_cpu_pct = x->samples ? 100.0 * (double)x->on_pinned_cpu / (double)x->samples : 0.0;
}

static int run_rounds(const struct latency_opts *o, struct latency_result *r)
{
	struct bench_config one = r->cfg;
	struct bench_result x;
	struct hist *tmp = malloc(sizeof(*tmp));

	if (!tmp)
		return -1;
	one.duration_s = r->cfg.duration_s / r->cfg.rounds;
	for (int k = 0; k < r->cfg.rounds; k++) {
		int ran = 0; /* policies already run in this round */

		for (int step = 0; step < o->npol; step++) {
			int i = (k + step) % o->npol;
			struct bench_result *into = &r->results[i];

			if (into->state != RUN_OK)
				continue;
			memset(&x, 0, sizeof(x));
			x.hist = tmp;
			/* every policy of round k starts on the same CPU */
			one.round = k;
			run_policy(&one, o->pols[i], &x);
			if (x.state != RUN_OK) {
				into->state = x.state;
				snprintf(into->note, sizeof(into->note), "%s", x.note);
				continue;
			}
			add_round(into, &x);
			keep_round(into, &x, ran++);
		}
	}
	free(tmp);
	return 0;
}

int latency_run(const struct latency_opts *o, struct latency_result *r)
{
	memset(r, 0, sizeof(*r));
	r->cfg = o->cfg;
	r->load = o->load;
	r->nresults = o->npol;
	for (int i = 0; i < o->npol; i++) {
		r->results[i].policy = o->pols[i];
		r->results[i].hist = malloc(sizeof(struct hist));
		r->results[i].rounds = calloc((size_t)o->cfg.rounds,
					      sizeof(struct round_stat));
		if (!r->results[i].hist || !r->results[i].rounds) {
			fprintf(stderr, "isobench: out of memory\n");
			return -1;
		}
		hist_init(r->results[i].hist);
	}
	/* calibrate before any load, on this thread's CPU time */
	r->cfg.work_loops = (uint64_t)(calibrate_loops_per_ns() *
				       (double)r->cfg.period_ns * r->cfg.work_pct / 100.0);
	check_policies(o, r);
	r->hogs = load_start(o->load, latency_bound_s(o) + 5);
	if (r->hogs < 0) {
		r->hogs = 0;
		for (int i = 0; i < r->nresults; i++) {
			r->results[i].state = RUN_FAILED;
			snprintf(r->results[i].note, sizeof(r->results[i].note),
				 "cannot start the load");
		}
		isod_stop_private();
		return -1;
	}
	if (r->hogs > 0)
		bench_sleep_s(0.5); /* let the hogs spread over the CPUs */
	if (run_rounds(o, r) < 0)
		fprintf(stderr, "isobench: out of memory\n");
	load_stop();
	isod_stop_private();
	for (int i = 0; i < r->nresults; i++)
		if (r->results[i].state == RUN_FAILED)
			return -1;
	return 0;
}

void latency_result_free(struct latency_result *r)
{
	for (int i = 0; i < r->nresults; i++) {
		free(r->results[i].hist);
		r->results[i].hist = NULL;
		free(r->results[i].rounds);
		r->results[i].rounds = NULL;
	}
}

int latency_write_histograms(const struct latency_result *r, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# policy lower_us upper_us count\n");
	for (int i = 0; i < r->nresults; i++)
		if (r->results[i].state == RUN_OK)
			hist_write(r->results[i].hist,
				   policy_name(r->results[i].policy), f);
	return fclose(f) == 0 ? 0 : -1;
}
