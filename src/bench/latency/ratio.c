/* ratio.c — ISO against its kernel reference: the p99 of iso over the p99
 * of fifo (and iso-rr over rr), pooled over all rounds and paired round by
 * round. Round k's two turns ran back to back under the same load, so
 * their ratio cancels most of what the shared machine did in that stretch;
 * the median of the per-round ratios gets an exact order-statistic 95 %
 * confidence interval (median_ci_of in common/stats.c). */
#include <stdio.h>
#include <stdlib.h>

#include "common/json.h"
#include "latency.h"

#define RATIO_CI_LEVEL 0.95

/* ISO p99 over its kernel reference's p99, when both ran. */
struct ratio {
	const char *name;
	enum bench_policy iso, ref;
};

static const struct ratio ratios[] = {
	{ "iso_fifo_p99", POL_ISO, POL_FIFO },
	{ "iso_rr_rr_p99", POL_ISO_RR, POL_RR },
	{ "iso_dl_dl_p99", POL_ISO_DL, POL_DL },
	/* the control: two kernel classes that a lone thread at one
	 * priority cannot tell apart (its turns are far shorter than RR's
	 * slice), neither of them isod's — how far apart the same latency
	 * comes out on this machine, the spread an ISO ratio is read in */
	{ "rr_fifo_p99", POL_RR, POL_FIFO },
};

#define NRATIOS (sizeof(ratios) / sizeof(ratios[0]))

static const struct bench_result *find(const struct latency_result *r,
				       enum bench_policy p)
{
	for (int i = 0; i < r->nresults; i++)
		if (r->results[i].policy == p && r->results[i].state == RUN_OK)
			return &r->results[i];
	return NULL;
}

static bool pooled(const struct latency_result *r, const struct ratio *q,
		   double *out)
{
	const struct bench_result *a = find(r, q->iso), *b = find(r, q->ref);
	double pa, pb;

	if (!a || !b)
		return false;
	pa = hist_percentile_ns(a->hist, 99.0);
	pb = hist_percentile_ns(b->hist, 99.0);
	if (pb <= 0.0)
		return false;
	*out = pa / pb;
	return true;
}

/* The per-round ratios in round order into v (cfg.rounds long): how many.
 * A round where the reference's p99 is 0 (no samples) has no ratio. */
static int per_round(const struct latency_result *r, const struct ratio *q,
		     double *v)
{
	const struct bench_result *a = find(r, q->iso), *b = find(r, q->ref);
	int n = 0, rounds;

	if (!a || !b)
		return 0;
	rounds = a->nrounds < b->nrounds ? a->nrounds : b->nrounds;
	for (int k = 0; k < rounds; k++)
		if (b->rounds[k].p99_us > 0.0 && a->rounds[k].samples)
			v[n++] = a->rounds[k].p99_us / b->rounds[k].p99_us;
	return n;
}

/* per_round and its median and interval; v is left in round order. NULL
 * when out of memory. */
static double *paired(const struct latency_result *r, const struct ratio *q,
		      int *n, struct median_ci *m)
{
	double *v = calloc((size_t)r->cfg.rounds, sizeof(double));
	double *sorted = calloc((size_t)r->cfg.rounds, sizeof(double));

	if (!v || !sorted) {
		free(v);
		free(sorted);
		return NULL;
	}
	*n = per_round(r, q, v);
	for (int i = 0; i < *n; i++)
		sorted[i] = v[i];
	median_ci_of(sorted, *n, RATIO_CI_LEVEL, m);
	free(sorted);
	return v;
}

void latency_ratios_text(const struct latency_result *r)
{
	for (size_t i = 0; i < NRATIOS; i++) {
		const struct ratio *q = &ratios[i];
		struct median_ci m;
		double p, *v;
		int n;

		if (!pooled(r, q, &p))
			continue;
		printf("ratio %s p99 / %s p99: ", policy_name(q->iso),
		       policy_name(q->ref));
		if (r->cfg.rounds < 2 || !(v = paired(r, q, &n, &m)) || !n) {
			printf("%.2f\n", p); /* one round: as before --rounds */
			continue;
		}
		free(v);
		printf("pooled %.2f, per-round median %.2f ", p, m.median);
		if (m.have_ci)
			printf("[95 %% CI %.2f-%.2f, %d rounds]\n", m.lo, m.hi, n);
		else
			printf("[%d round%s: no 95 %% CI below %d rounds]\n", n,
			       n == 1 ? "" : "s", MEDIAN_CI_MIN_N);
	}
}

void latency_ratios_json(struct json *j, const struct latency_result *r)
{
	json_obj(j, "ratios");
	for (size_t i = 0; i < NRATIOS; i++) {
		double p;

		if (pooled(r, &ratios[i], &p))
			json_num(j, ratios[i].name, p);
	}
	json_obj_end(j);
	json_obj(j, "ratios_per_round");
	for (size_t i = 0; i < NRATIOS; i++) {
		struct median_ci m;
		double p, *v;
		int n;

		if (!pooled(r, &ratios[i], &p) || !(v = paired(r, &ratios[i], &n, &m)))
			continue;
		json_obj(j, ratios[i].name);
		json_int(j, "rounds", n);
		json_numf(j, "median", "%.4f", m.median);
		json_num(j, "ci_level", RATIO_CI_LEVEL);
		if (m.have_ci) {
			json_numf(j, "ci_low", "%.4f", m.lo);
			json_numf(j, "ci_high", "%.4f", m.hi);
			json_numf(j, "ci_coverage", "%.4f", m.level_got);
		} else {
			json_null(j, "ci_low");
			json_null(j, "ci_high");
			json_null(j, "ci_coverage");
		}
		json_arr(j, "values");
		for (int k = 0; k < n; k++)
			json_numf(j, NULL, "%.4f", v[k]);
		json_arr_end(j);
		json_obj_end(j);
		free(v);
	}
	json_obj_end(j);
}
