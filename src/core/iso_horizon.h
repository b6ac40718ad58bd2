/* iso_horizon.h — how soon the budget can change state, for people
 * watching it (isoctl top). Pure: derived from the exponential average of
 * iso_budget.h, nothing is read here.
 *
 * With τ = iso_period and ISO tasks suddenly using every CPU, the average
 * climbs as u(t) = 100 − (100 − u₀)·e^(−t/τ); it passes a limit L < 100 at
 *     t = τ·ln((100 − u₀) / (100 − L)).
 * No demotion can come sooner, whatever ISO tasks do. Likewise, with ISO
 * tasks suddenly idle the average falls as u(t) = u₀·e^(−t/τ), so the
 * refractory state (left below 90 % of L) cannot end before
 *     t = τ·ln(u₀ / (0.9·L)).
 *
 * Return contract: seconds ≥ 0; 0 when the state can change now;
 * INFINITY when it never can (L of 100 % or more, or a limit of 0).
 */
#ifndef ISO_HORIZON_H
#define ISO_HORIZON_H

/* usage_pct and limit_pct in percent of all CPUs, period_s = τ. */
double iso_time_to_limit(double usage_pct, double limit_pct, double period_s);
double iso_time_to_restore(double usage_pct, double limit_pct, double period_s);

/* The plan's horizons (iso_plan.h, iso_percpu.h), in seconds: an average
 * at u fed at most max_pct first above limit; one fed nothing first below
 * limit. 0 when already there, INFINITY when it cannot be. */
double iso_plan_rise_s(double u, double max_pct, double limit, unsigned period_s);
double iso_plan_fall_s(double u, double limit, unsigned period_s);

#endif
