/* stats.h — a latency histogram and nearest-rank distributions. */
#ifndef ISOBENCH_STATS_H
#define ISOBENCH_STATS_H

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

#endif
