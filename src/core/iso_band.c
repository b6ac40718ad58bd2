/* iso_band.c — ISO priority to kernel RT band mapping. */
#include "iso_band.h"

#include <errno.h>

#include "iso_policy.h"

int iso_band_check(const struct iso_band *band, const char **why)
{
	const char *msg = 0;

	if (band->lo < 1)
		msg = "band_lo must be at least 1";
	else if (band->hi > 98)
		msg = "band_hi must be at most 98 (isod's enforcer runs above it)";
	else if (band->lo > band->hi)
		msg = "band_lo must not be above band_hi";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

int iso_band_map(const struct iso_band *band, int prio)
{
	int levels;

	if (iso_band_check(band, 0) < 0)
		return -EINVAL;
	if (prio < ISO_PRIO_MIN || prio > ISO_PRIO_MAX)
		return -EINVAL;
	levels = band->hi - band->lo + 1;
	/* (prio-1) in 0..98 scaled onto 0..levels-1, rounding to nearest so
	 * both ends are hit exactly and the steps are even. */
	return band->lo + ((prio - 1) * (levels - 1) * 2 + 98) / (2 * 98);
}
