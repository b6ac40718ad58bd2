/* clock.h — time, sleep, calibrated busy work and the calling thread's
 * kernel policy: what every part of isobench measures with. */
#ifndef ISOBENCH_CLOCK_H
#define ISOBENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock c now, in ns. */
uint64_t bench_clock_ns(clockid_t c);
/* Sleep ns, restarted after signals. */
void bench_sleep_ns(uint64_t ns);
/* Sleep s seconds (fractions too), restarted after signals. */
void bench_sleep_s(double s);
/* The calling thread's kernel policy without SCHED_RESET_ON_FORK (isod
 * sets it), or -errno. */
int bench_kernel_policy(void);
/* Make the calling thread kernel SCHED_DEADLINE (needs root), with
 * SCHED_FLAG_RESET_ON_FORK as isod's reservations have it: the reference
 * a reservation from isod is measured against. 0 or -errno. */
int bench_set_deadline(uint64_t runtime_ns, uint64_t deadline_ns, uint64_t period_ns);
/* Loops of the calibrated busy work per nanosecond of CPU time. */
double calibrate_loops_per_ns(void);
void busy_work(uint64_t loops);

#endif
