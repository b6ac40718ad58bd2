/* clock.c — time, sleep, calibrated busy work, the thread's policy. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "iso_sched_abi.h"

uint64_t bench_clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void bench_sleep_s(double s)
{
	bench_sleep_ns(s > 0 ? (uint64_t)(s * 1e9) : 0);
}

int bench_kernel_policy(void)
{
	int p = sched_getscheduler(0);

	return p < 0 ? -errno : p & ~SCHED_RESET_ON_FORK;
}

int bench_set_deadline(uint64_t runtime_ns, uint64_t deadline_ns, uint64_t period_ns)
{
	struct iso_sched_attr a = { .size = sizeof(a), .sched_policy = ISO_KSCHED_DEADLINE,
				    .sched_flags = ISO_KSCHED_FLAG_RESET_ON_FORK,
				    .sched_runtime = runtime_ns,
				    .sched_deadline = deadline_ns,
				    .sched_period = period_ns };

	return syscall(SYS_sched_setattr, 0, &a, 0) < 0 ? -errno : 0;
}

void busy_work(uint64_t loops)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < loops; i++)
		x = x + (i ^ (x >> 3));
}

double calibrate_loops_per_ns(void)
{
	uint64_t n = 1u << 14, t;
	double best = 0.0;

	/* grow until one run takes >= 10 ms of this thread's CPU time */
	for (;;) {
		t = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		busy_work(n);
		t = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t;
		if (t >= 10000000ull || n >= (1ull << 40))
			break;
		n *= 2;
	}
	/* the fastest of a few: CPU time already excludes preemption */
	for (int i = 0; i < 5; i++) {
		double r;

		t = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		busy_work(n);
		t = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t;
		r = (double)n / (double)(t ? t : 1);
		if (r > best)
			best = r;
	}
	return best;
}
