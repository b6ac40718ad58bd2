/* output.c — the results as a table (with notes and ratio lines) or as one
 * JSON object. Latencies are reported in microseconds. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "common/json.h"
#include "latency.h"

struct summary {
	double min, p50, p99, p999, max, mean;
};

static void summarize(const struct bench_result *r, struct summary *s)
{
	const struct hist *h = r->hist;

	s->min = h->count ? (double)h->min_ns / 1e3 : 0.0;
	s->max = (double)h->max_ns / 1e3;
	s->p50 = hist_percentile_ns(h, 50.0) / 1e3;
	s->p99 = hist_percentile_ns(h, 99.0) / 1e3;
	s->p999 = hist_percentile_ns(h, 99.9) / 1e3;
	s->mean = h->count ? (double)h->sum_ns / (double)h->count / 1e3 : 0.0;
}

static const char *kpol_name(int p)
{
	switch (p) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case 6: return "SCHED_DEADLINE";
	default: return "?";
	}
}

void latency_print_text(const struct latency_result *r)
{
	const struct bench_config *c = &r->cfg;

	printf("isobench: period %llu us, %d thread%s, work %.1f%% of the period,"
	       " load %s (%d process%s), %.1f s per policy in %d round%s\n",
	       (unsigned long long)(c->period_ns / 1000), c->threads,
	       c->threads == 1 ? "" : "s", c->work_pct, load_name(r->load),
	       r->hogs, r->hogs == 1 ? "" : "es", c->duration_s, c->rounds,
	       c->rounds == 1 ? "" : "s");
	printf("%-15s %9s %7s %9s %9s %9s %9s %9s\n", "policy", "samples",
	       "misses", "min_us", "p50_us", "p99_us", "p99.9_us", "max_us");
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];
		struct summary s;

		if (x->state != RUN_OK) {
			printf("%-15s %s: %s\n", policy_name(x->policy),
			       x->state == RUN_SKIPPED ? "skipped" : "FAILED",
			       x->note);
			continue;
		}
		summarize(x, &s);
		printf("%-15s %9llu %7llu %9.1f %9.1f %9.1f %9.1f %9.1f\n",
		       policy_name(x->policy), (unsigned long long)x->samples,
		       (unsigned long long)x->misses, s.min, s.p50, s.p99,
		       s.p999, s.max);
	}
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];

		if (x->state != RUN_OK)
			continue;
		if (policy_is_deadline(x->policy))
			printf("note: %s ran as %s (runtime %.0f us every %.0f us), not pinned\n",
			       policy_name(x->policy), kpol_name(x->kernel_policy),
			       (double)policy_dl_runtime_ns(c->period_ns, c->work_pct) / 1000.0,
			       (double)c->period_ns / 1000.0);
		else if (policy_is_iso(x->policy) && x->iso_band_hi)
			printf("note: %s ran as %s priority %d (isod band %d..%d)\n",
			       policy_name(x->policy), kpol_name(x->kernel_policy),
			       x->kernel_prio, x->iso_band_lo, x->iso_band_hi);
		if (x->policy_lost)
			printf("note: %s: %llu checks found a thread outside its"
			       " policy (demoted by isod?)\n",
			       policy_name(x->policy),
			       (unsigned long long)x->policy_lost);
	}
	latency_ratios_text(r);
}

/* Each round's turn of this policy, in round order: "per_round". */
static void json_rounds(struct json *j, const struct bench_result *x)
{
	json_arr(j, "per_round");
	for (int k = 0; k < x->nrounds; k++) {
		const struct round_stat *s = &x->rounds[k];

		json_obj(j, NULL);
		json_uint(j, "samples", (unsigned long long)s->samples);
		json_uint(j, "misses", (unsigned long long)s->misses);
		json_num(j, "p50_us", s->p50_us);
		json_num(j, "p99_us", s->p99_us);
		json_num(j, "max_us", s->max_us);
		json_int(j, "position", s->position);
		json_int(j, "cpu", s->cpu);
		json_numf(j, "on_cpu_pct", "%.1f", s->on_cpu_pct);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void latency_print_json(const struct latency_result *r)
{
	const struct bench_config *c = &r->cfg;
	struct json j;

	json_begin(&j, stdout);
	json_uint(&j, "period_us", (unsigned long long)(c->period_ns / 1000));
	json_int(&j, "threads", c->threads);
	json_num(&j, "work_pct", c->work_pct);
	json_num(&j, "duration_s", c->duration_s);
	json_int(&j, "rounds", c->rounds);
	json_str(&j, "load", load_name(r->load));
	json_int(&j, "load_processes", r->hogs);
	json_int(&j, "priority", BENCH_PRIO);
	json_int(&j, "rt_prio", c->rt_prio);
	json_arr(&j, "results");
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];
		struct summary s;

		if (x->state != RUN_OK)
			continue;
		summarize(x, &s);
		json_obj(&j, NULL);
		json_str(&j, "policy", policy_name(x->policy));
		json_uint(&j, "samples", (unsigned long long)x->samples);
		json_uint(&j, "misses", (unsigned long long)x->misses);
		json_num(&j, "min_us", s.min);
		json_num(&j, "p50_us", s.p50);
		json_num(&j, "p99_us", s.p99);
		json_num(&j, "p999_us", s.p999);
		json_num(&j, "max_us", s.max);
		json_num(&j, "mean_us", s.mean);
		json_str(&j, "kernel_policy", kpol_name(x->kernel_policy));
		json_int(&j, "kernel_prio", x->kernel_prio);
		json_uint(&j, "policy_lost", (unsigned long long)x->policy_lost);
		json_rounds(&j, x);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr(&j, "skipped");
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];

		if (x->state == RUN_OK)
			continue;
		json_obj(&j, NULL);
		json_str(&j, "policy", policy_name(x->policy));
		json_bool(&j, "failed", x->state == RUN_FAILED);
		json_str(&j, "reason", x->note);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	latency_ratios_json(&j, r);
	json_end(&j);
}
