/* stats.c — the latency histogram: log-linear (HDR-style) buckets over
 * nanoseconds, exact min/max/sum, percentiles by rank; and nearest-rank
 * distributions over trials. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

static unsigned bucket_of(uint64_t v)
{
	unsigned e, top;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* >= HIST_SUB_BITS */
	top = (unsigned)(v >> (e - HIST_SUB_BITS)); /* in [SUB, 2*SUB) */
	return HIST_SUB + (e - HIST_SUB_BITS) * HIST_SUB + (top - HIST_SUB);
}

/* The range [lo, lo + width) of values that land in bucket i. */
void hist_bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
	unsigned e, top;

	if (i < HIST_SUB) {
		*lo = i;
		*width = 1;
		return;
	}
	e = (i - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	top = (i - HIST_SUB) % HIST_SUB + HIST_SUB;
	*lo = (uint64_t)top << (e - HIST_SUB_BITS);
	*width = (uint64_t)1 << (e - HIST_SUB_BITS);
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->bucket[bucket_of(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	if (!from->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->min_ns < into->min_ns)
		into->min_ns = from->min_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
}

double hist_percentile_ns(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, width;
	double v;

	if (!h->count)
		return 0.0;
	if (p >= 100.0)
		return (double)h->max_ns;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		hist_bucket_range(i, &lo, &width);
		/* the middle of the bucket, never outside what was seen */
		v = (double)lo + (double)(width - 1) / 2.0;
		if (v < (double)h->min_ns)
			v = (double)h->min_ns;
		if (v > (double)h->max_ns)
			v = (double)h->max_ns;
		return v;
	}
	return (double)h->max_ns;
}

void hist_write(const struct hist *h, const char *label, FILE *f)
{
	uint64_t lo, width;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		hist_bucket_range(i, &lo, &width);
		fprintf(f, "%s %.3f %.3f %llu\n", label, (double)lo / 1e3,
			(double)(lo + width) / 1e3,
			(unsigned long long)h->bucket[i]);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void dist_of(double *v, int n, struct dist *d)
{
	double sum = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (!n)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (int i = 0; i < n; i++)
		sum += v[i];
	d->min = v[0];
	d->max = v[n - 1];
	d->mean = sum / n;
	d->p50 = v[(int)ceil(0.50 * n) - 1];
	d->p99 = v[(int)ceil(0.99 * n) - 1];
}

/* P(Binomial(n, 1/2) <= k), summed from 2^-n upward (exact enough for
 * n <= 1000: 2^-1000 is still a normal double). */
static double binom_half_cdf(int n, int k)
{
	double pmf = ldexp(1.0, -n), cdf = 0.0;

	for (int i = 0; i <= k && i <= n; i++) {
		cdf += pmf;
		pmf = pmf * (double)(n - i) / (double)(i + 1);
	}
	return cdf;
}

void median_ci_of(double *v, int n, double level, struct median_ci *out)
{
	double tail = (1.0 - level) / 2.0;
	int j = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n <= 0)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	/* the 1-based rank j of the lower end: P(B <= j - 1) <= tail; the
	 * interval [x(j), x(n+1-j)] then misses the median with probability
	 * at most 2 P(B <= j - 1) */
	while (j + 1 <= n / 2 && binom_half_cdf(n, j) <= tail)
		j++;
	if (j == 0)
		return;
	out->have_ci = true;
	out->lo = v[j - 1];
	out->hi = v[n - j];
	out->level_got = 1.0 - 2.0 * binom_half_cdf(n, j - 1);
}
