/* iso_place.c — where in a step a task's CPU time fell (iso_place.h). */
#include "iso_place.h"

#include <math.h>
#include <stdbool.h>

/* The CPU time is read a little after the step's now (per thread) */
#define ISO_PLACE_SLACK_NS 200000

/* ∫ e^(−(now − s)/τ) ds over [a, b], in seconds, a ≤ b ≤ now */
static double weight(int64_t a, int64_t b, int64_t now, double tau)
{
	return tau * (exp(-(double)(now - b) / 1e9 / tau) - exp(-(double)(now - a) / 1e9 / tau));
}

double iso_place_factor(int64_t base_ns, int64_t now_ns, double period_s, uint64_t cpu_ns,
			const struct iso_offcpu *off)
{
	int64_t from[ISO_OFFCPU_MAX], to[ISO_OFFCPU_MAX], span = now_ns - base_ns, off_ns = 0;
	unsigned n = 0;
	double w_all, w_on;

	if (!off || off->n == 0 || off->n > ISO_OFFCPU_MAX || span <= 0 || !(period_s > 0) ||
	    cpu_ns == 0)
		return 1.0;
	for (unsigned i = 0; i < off->n; i++) {
		int64_t a = off->from[i] > base_ns ? off->from[i] : base_ns;
		int64_t b = off->to[i] < now_ns ? off->to[i] : now_ns;

		if (a < b) {
			from[n] = a;
			to[n++] = b;
		}
	}
	/* in order (insertion sort of at most ISO_OFFCPU_MAX), each overlap
	 * counted once */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && from[j] < from[j - 1]; j--) {
			int64_t fa = from[j], ta = to[j];

			from[j] = from[j - 1], to[j] = to[j - 1];
			from[j - 1] = fa, to[j - 1] = ta;
		}
	if (n > 1) {
		unsigned m = 0;

		for (unsigned i = 1; i < n; i++) {
			if (from[i] <= to[m]) {
				if (to[i] > to[m])
					to[m] = to[i];
			} else {
				m++;
				from[m] = from[i], to[m] = to[i];
			}
		}
		n = m + 1;
	}
	if (n == 0)
		return 1.0;
	w_all = weight(base_ns, now_ns, now_ns, period_s);
	w_on = w_all;
	for (unsigned i = 0; i < n; i++) {
		off_ns += to[i] - from[i];
		w_on -= weight(from[i], to[i], now_ns, period_s);
	}
	/* more CPU time than the step left it room for on one CPU (beyond
	 * the slack of reads a little apart): the intervals are wrong, and
	 * an even spread is the safe reading */
	if (off_ns >= span || cpu_ns > (uint64_t)(span - off_ns) + ISO_PLACE_SLACK_NS ||
	    !(w_on > 0) || !(w_all > 0))
		return 1.0;
	return (w_on / (double)(span - off_ns)) / (w_all / (double)span);
}
