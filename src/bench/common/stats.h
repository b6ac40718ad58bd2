/* stats.h — a latency histogram, nearest-rank distributions and a
 * distribution-free confidence interval for a median. */
#ifndef ISOBENCH_STATS_H
#define ISOBENCH_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Log-linear histogram of nanosecond values: exact below 2^HIST_SUB_BITS ns,
 * then 2^HIST_SUB_BITS sub-buckets per power of two (relative error below
 * 1/256). Fixed size, no allocation: safe to place in shared memory. */
#define HIST_SUB_BITS 8
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (HIST_SUB * (65 - HIST_SUB_BITS))

struct hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *into, const struct hist *from);
/* The value at percentile p (0 < p <= 100), in ns; 0 for an empty one. */
double hist_percentile_ns(const struct hist *h, double p);
/* The values [*lo, *lo + *width) that land in bucket i, in ns. */
void hist_bucket_range(unsigned i, uint64_t *lo, uint64_t *width);
/* Write the non-empty buckets as "label lower_us upper_us count" lines. */
void hist_write(const struct hist *h, const char *label, FILE *f);

/* A distribution over a few values (trials): nearest rank. */
struct dist {
	double min, p50, p99, max, mean;
	int n;
};

/* Sorts v[0..n) in place and summarizes it. */
void dist_of(double *v, int n, struct dist *d);

/* The median of n paired per-round values and its order-statistic
 * confidence interval: with the values sorted, [x(j), x(n+1-j)] for the
 * largest j with P(Binomial(n, 1/2) < j) <= (1 - level) / 2. Exact and
 * distribution-free (it assumes only independent rounds with a common
 * median); its true coverage, level_got >= level, is reported because the
 * binomial steps. Below MEDIAN_CI_MIN_N values no j qualifies at 95 %. */
#define MEDIAN_CI_MIN_N 6

struct median_ci {
	int n;
	double median; /* the mean of the two middle values when n is even */
	bool have_ci;  /* false: too few values for the level asked */
	double lo, hi;
	double level_got;
};

/* Sorts v[0..n) in place (n >= 0, level in (0, 1)). Pure: no I/O. */
void median_ci_of(double *v, int n, double level, struct median_ci *out);

#endif
