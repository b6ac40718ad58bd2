/* output.c — the results as a table (with notes and ratio lines) or as one
 * JSON object. Latencies are reported in microseconds. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

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

static const struct bench_result *find(const struct bench_report *r,
				       enum bench_policy p)
{
	for (int i = 0; i < r->nresults; i++)
		if (r->results[i].policy == p && r->results[i].state == RUN_OK)
			return &r->results[i];
	return NULL;
}

/* ISO p99 over its kernel reference's p99, when both ran. */
struct ratio {
	const char *name;
	enum bench_policy iso, ref;
};

static const struct ratio ratios[] = {
	{ "iso_fifo_p99", POL_ISO, POL_FIFO },
	{ "iso_rr_rr_p99", POL_ISO_RR, POL_RR },
};

static bool ratio_value(const struct bench_report *r, const struct ratio *q,
			double *out)
{
	const struct bench_result *a = find(r, q->iso), *b = find(r, q->ref);
	struct summary sa, sb;

	if (!a || !b)
		return false;
	summarize(a, &sa);
	summarize(b, &sb);
	if (sb.p99 <= 0.0)
		return false;
	*out = sa.p99 / sb.p99;
	return true;
}

static const char *kpol_name(int p)
{
	switch (p) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	default: return "?";
	}
}

void output_table(const struct bench_report *r)
{
	const struct bench_config *c = r->cfg;

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
		if (policy_is_iso(x->policy) && x->iso_band_hi)
			printf("note: %s ran as %s priority %d (isod band %d..%d)\n",
			       policy_name(x->policy), kpol_name(x->kernel_policy),
			       x->kernel_prio, x->iso_band_lo, x->iso_band_hi);
		if (x->policy_lost)
			printf("note: %s: %llu checks found a thread outside its"
			       " policy (demoted by isod?)\n",
			       policy_name(x->policy),
			       (unsigned long long)x->policy_lost);
	}
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		double v;

		if (ratio_value(r, &ratios[i], &v))
			printf("ratio %s p99 / %s p99: %.2f\n",
			       policy_name(ratios[i].iso),
			       policy_name(ratios[i].ref), v);
	}
}

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

void json_num(const char *key, double v)
{
	if (!isfinite(v))
		v = 0.0;
	printf("\"%s\":%.3f", key, v);
}

void output_json(const struct bench_report *r)
{
	const struct bench_config *c = r->cfg;
	bool first = true;

	printf("{\"period_us\":%llu,\"threads\":%d,",
	       (unsigned long long)(c->period_ns / 1000), c->threads);
	json_num("work_pct", c->work_pct);
	printf(",");
	json_num("duration_s", c->duration_s);
	printf(",\"rounds\":%d,\"load\":", c->rounds);
	json_string(load_name(r->load));
	printf(",\"load_processes\":%d,\"priority\":%d,\"rt_prio\":%d,"
	       "\"results\":[", r->hogs, BENCH_PRIO, c->rt_prio);
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];
		struct summary s;

		if (x->state != RUN_OK)
			continue;
		summarize(x, &s);
		printf("%s{\"policy\":", first ? "" : ",");
		first = false;
		json_string(policy_name(x->policy));
		printf(",\"samples\":%llu,\"misses\":%llu,",
		       (unsigned long long)x->samples,
		       (unsigned long long)x->misses);
		json_num("min_us", s.min);
		putchar(',');
		json_num("p50_us", s.p50);
		putchar(',');
		json_num("p99_us", s.p99);
		putchar(',');
		json_num("p999_us", s.p999);
		putchar(',');
		json_num("max_us", s.max);
		putchar(',');
		json_num("mean_us", s.mean);
		printf(",\"kernel_policy\":");
		json_string(kpol_name(x->kernel_policy));
		printf(",\"kernel_prio\":%d,\"policy_lost\":%llu}",
		       x->kernel_prio, (unsigned long long)x->policy_lost);
	}
	printf("],\"skipped\":[");
	first = true;
	for (int i = 0; i < r->nresults; i++) {
		const struct bench_result *x = &r->results[i];

		if (x->state == RUN_OK)
			continue;
		printf("%s{\"policy\":", first ? "" : ",");
		first = false;
		json_string(policy_name(x->policy));
		printf(",\"failed\":%s,\"reason\":",
		       x->state == RUN_FAILED ? "true" : "false");
		json_string(x->note);
		putchar('}');
	}
	printf("],\"ratios\":{");
	first = true;
	for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		double v;

		if (!ratio_value(r, &ratios[i], &v))
			continue;
		if (!first)
			putchar(',');
		first = false;
		json_num(ratios[i].name, v);
	}
	printf("}}\n");
}
