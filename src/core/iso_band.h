/* iso_band.h — order-preserving map of ISO priorities 1..99 onto a band
 * of kernel SCHED_FIFO/SCHED_RR priorities [lo, hi]. Pure.
 *
 * Return contract: 0 / a kernel priority on success, -EINVAL on failure.
 */
#ifndef ISO_BAND_H
#define ISO_BAND_H

struct iso_band {
	int lo; /* lowest kernel RT priority used for ISO tasks */
	int hi; /* highest; the enforcer runs above it, so hi <= 98 */
};

/* Below the kernel's threaded-IRQ handlers (priority 50) with room above
 * for isod's enforcer (ISO_BAND_DEFAULT_HI + 1). */
#define ISO_BAND_DEFAULT_LO 10
#define ISO_BAND_DEFAULT_HI 40

/* A band is valid when 1 <= lo <= hi <= 98 (1..98 levels). On failure
 * *why (if given) points to a static explanation. */
int iso_band_check(const struct iso_band *band, const char **why);

/* Kernel priority for ISO priority prio (1..99): monotonic non-decreasing,
 * 1 -> lo, 99 -> hi, spread evenly. -EINVAL for a bad band or prio. */
int iso_band_map(const struct iso_band *band, int prio);

#endif
