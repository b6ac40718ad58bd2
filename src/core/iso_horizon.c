/* iso_horizon.c — the earliest time the budget average can cross a limit. */
#include "iso_horizon.h"

#include <math.h>

double iso_time_to_limit(double usage_pct, double limit_pct, double period_s)
{
	/* the average can only reach 100 in the limit: never over it */
	if (limit_pct >= 100.0 || limit_pct <= 0.0 || period_s <= 0.0)
		return INFINITY;
	if (usage_pct < 0.0)
		usage_pct = 0.0;
	/* demoted once over the limit (iso_over_limit: strictly above) */
	if (usage_pct >= limit_pct)
		return 0.0;
	return period_s * log((100.0 - usage_pct) / (100.0 - limit_pct));
}

double iso_time_to_restore(double usage_pct, double limit_pct, double period_s)
{
	double floor_pct = limit_pct * 9.0 / 10.0;

	if (limit_pct <= 0.0 || period_s <= 0.0)
		return INFINITY;
	if (usage_pct < floor_pct)
		return 0.0;
	return period_s * log(usage_pct / floor_pct);
}

double iso_plan_rise_s(double u, double max_pct, double limit, unsigned period_s)
{
	if (u > limit)
		return 0.0;
	if (max_pct <= limit)
		return INFINITY;
	return (double)period_s * log((max_pct - u) / (max_pct - limit));
}

double iso_plan_fall_s(double u, double limit, unsigned period_s)
{
	if (u < limit)
		return 0.0;
	if (limit <= 0.0)
		return INFINITY;
	return (double)period_s * log(u / limit);
}
