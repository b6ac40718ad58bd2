/* out.c — --enforcement's text table and JSON object. */
#include <stddef.h>
#include <stdio.h>

#include "common/json.h"
#include "enforce.h"

static void dist_json(struct json *j, const char *key, const struct dist *d)
{
	json_obj(j, key);
	json_num(j, "min", d->min);
	json_num(j, "p50", d->p50);
	json_num(j, "p99", d->p99);
	json_num(j, "max", d->max);
	json_num(j, "mean", d->mean);
	json_int(j, "n", d->n);
	json_obj_end(j);
}

static void share_json(struct json *j, const struct enforce_share *s)
{
	if (!s->ok) {
		json_null(j, "share");
		return;
	}
	json_obj(j, "share");
	json_num(j, "window_s", s->window_s);
	json_num(j, "competitor_pct_of_cpu", s->comp_pct_cpu);
	json_num(j, "competitor_pct_of_all", s->comp_pct_all);
	json_num(j, "iso_threads_pct_of_all", s->iso_pct_all);
	json_num(j, "iso_threads_rt_pct_of_all", s->rt_pct_all);
	json_num(j, "iso_threads_demoted_pct_of_all", s->other_pct_all);
	json_num(j, "left_to_normal_pct_of_all", 100.0 - s->rt_pct_all);
	json_obj_end(j);
}

void enforce_print_json(const struct enforce_result *r)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "mode", "enforcement");
	json_int(&j, "ncpus", r->ncpu);
	json_int(&j, "spinners", r->ncpu);
	json_int(&j, "iso_period_s", r->iso_period_s);
	json_num(&j, "sample_ms", r->sample_ms);
	json_int(&j, "trials", r->trials);
	json_num(&j, "window_s", r->window_s);
	json_arr(&j, "levels");
	for (int i = 0; i < r->nlevels; i++) {
		const struct enforce_level *l = &r->levels[i];

		json_obj(&j, NULL);
		json_int(&j, "iso_cpu", l->iso_cpu);
		json_int(&j, "trials", l->trials);
		json_int(&j, "demoted", l->demoted);
		json_int(&j, "failed", l->failed);
		json_int(&j, "no_crossing", l->no_cross);
		json_int(&j, "foreign", l->foreign);
		json_int(&j, "not_budget", l->not_budget);
		json_num(&j, "model_crossing_s", l->model_cross_s);
		dist_json(&j, "crossing_s", &l->cross_s);
		dist_json(&j, "reaction_ms", &l->react_ms);
		dist_json(&j, "reaction_samples", &l->react_samples);
		dist_json(&j, "last_demotion_ms", &l->last_ms);
		dist_json(&j, "poll_gap_ms", &l->gap_ms);
		dist_json(&j, "short_of_limit_points", &l->short_pts);
		json_arr(&j, "reactions_ms");
		for (int k = 0; k < l->react_ms.n; k++)
			json_num(&j, NULL, l->all_react[k]);
		json_arr_end(&j);
		share_json(&j, &l->share);
		json_str(&j, "note", l->note);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_end(&j);
	for (int i = 0; i < r->nlevels; i++)
		if (r->levels[i].note[0])
			fprintf(stderr, "isobench: iso_cpu %d: %s\n",
				r->levels[i].iso_cpu, r->levels[i].note);
}

static void reaction_table(const struct enforce_result *r)
{
	printf("%-7s %8s %9s %9s | %-31s | %-23s | %s\n", "", "", "model",
	       "measured", "reaction ms", "reaction in samples", "poll gap");
	printf("%-7s %8s %9s %9s | %7s %7s %7s %7s | %5s %5s %5s %5s | %7s\n",
	       "iso_cpu", "demoted", "cross_s", "cross_s", "min", "p50", "p99",
	       "max", "min", "p50", "p99", "max", "max ms");
	for (int i = 0; i < r->nlevels; i++) {
		const struct enforce_level *l = &r->levels[i];

		printf("%-7d %4d/%-3d %9.3f %9.3f | %7.1f %7.1f %7.1f %7.1f |"
		       " %5.2f %5.2f %5.2f %5.2f | %7.2f\n",
		       l->iso_cpu, l->demoted, l->trials, l->model_cross_s,
		       l->cross_s.p50, l->react_ms.min, l->react_ms.p50,
		       l->react_ms.p99, l->react_ms.max, l->react_samples.min,
		       l->react_samples.p50, l->react_samples.p99,
		       l->react_samples.max, l->gap_ms.max);
	}
}

static void share_table(const struct enforce_result *r)
{
	printf("\nCPU left to a SCHED_OTHER competitor (nice 0) under"
	       " the runaway, %.1f s window after the warm-up:\n", r->window_s);
	printf("%-7s %16s %16s %16s %16s %16s\n", "iso_cpu", "competitor %cpu",
	       "competitor %all", "runaway RT %all", "runaway SO %all",
	       "left normal %all");
	for (int i = 0; i < r->nlevels; i++) {
		const struct enforce_share *s = &r->levels[i].share;

		if (s->ok)
			printf("%-7d %16.1f %16.1f %16.1f %16.1f %16.1f\n",
			       r->levels[i].iso_cpu, s->comp_pct_cpu,
			       s->comp_pct_all, s->rt_pct_all, s->other_pct_all,
			       100.0 - s->rt_pct_all);
	}
}

/* "note: iso_cpu L: N trial(s) WHY" for each level with some */
static void count_notes(const struct enforce_result *r, size_t offset,
			const char *why)
{
	for (int i = 0; i < r->nlevels; i++) {
		int n = *(const int *)((const char *)&r->levels[i] + offset);

		if (n)
			printf("note: iso_cpu %d: %d trial%s %s\n",
			       r->levels[i].iso_cpu, n, n == 1 ? "" : "s", why);
	}
}

void enforce_print_text(const struct enforce_result *r)
{
	printf("isobench --enforcement: %d CPUs, a runaway ISO_FIFO thread"
	       " per CPU (user nobody), iso_period %d s, isod samples"
	       " every %.1f ms, %d trials per iso_cpu\n",
	       r->ncpu, r->iso_period_s, r->sample_ms, r->trials);
	printf("reaction = first demotion seen by a spinner - the budget"
	       " crossing (libisocore's average of the spinners' CPU time)\n");
	reaction_table(r);
	for (int i = 0; i < r->nlevels; i++)
		if (r->levels[i].demoted)
			printf("iso_cpu %d: at the first demotion the model's average was"
			       " below iso_cpu by p50 %.4f, max %.4f points (0: past it)\n",
			       r->levels[i].iso_cpu, r->levels[i].short_pts.p50,
			       r->levels[i].short_pts.max);
	if (r->window_s > 0)
		share_table(r);
	count_notes(r, offsetof(struct enforce_level, not_budget),
		    "left out: isod demoted the spinners while its budget was"
		    " not over iso_cpu (its watchdog?)");
	count_notes(r, offsetof(struct enforce_level, foreign),
		    "left out: the spinner's policy changed but our isod did"
		    " not demote it (another program on the machine)");
	count_notes(r, offsetof(struct enforce_level, no_cross),
		    "demoted although the model never crossed (left out)");
	for (int i = 0; i < r->nlevels; i++)
		if (r->levels[i].note[0])
			printf("note: iso_cpu %d: %s\n", r->levels[i].iso_cpu,
			       r->levels[i].note);
}
