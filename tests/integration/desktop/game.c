/*
 * game — a stand-in for a game started with gamemoderun: its main thread
 * (the one gamemoded gives SCHED_ISO) renders frames at 60 Hz, spinning
 * --duty % of each frame; with --spin-after S it spins without a break
 * from S seconds on (a game that never yields). Bounded: it ends after
 * --seconds whatever happens.
 *
 * Lines on stdout: "ready tid T policy P prio Q" (the kernel's view of
 * the main thread when main() starts: gamemoded has acted by then, in
 * libgamemodeauto's constructor), "spinning" when the break-less spin
 * starts, "frames F" at the end.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double arg_num(const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "game: bad number '%s' (%g..%g)\n", s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double duty = 30, seconds = 10, spin_after = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--duty"))
			duty = arg_num(argv[i + 1], 0, 100);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = arg_num(argv[i + 1], 0.1, 600);
		else if (!strcmp(argv[i], "--spin-after"))
			spin_after = arg_num(argv[i + 1], 0, 600);
		else {
			fprintf(stderr, "usage: game [--duty PCT] [--seconds S] [--spin-after S]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sched_param sp = { 0 };
	int pol = sched_getscheduler(0);
	(void)sched_getparam(0, &sp);
	printf("ready tid %d policy %d prio %d\n", (int)getpid(), pol, sp.sched_priority);

	const uint64_t frame = 1000000000u / 60;
	uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9);
	uint64_t next = start, frames = 0;
	while (now_ns() < end) {
		if (spin_after > 0 && now_ns() - start >= (uint64_t)(spin_after * 1e9)) {
			printf("spinning\n");
			while (now_ns() < end)
				;
			break;
		}
		uint64_t busy = now_ns() + (uint64_t)((double)frame * duty / 100.0);
		while (now_ns() < busy)
			;
		frames++;
		next += frame;
		uint64_t t = now_ns();
		if (next > t) {
			struct timespec d = { (time_t)((next - t) / 1000000000u),
					      (long)((next - t) % 1000000000u) };
			nanosleep(&d, NULL);
		} else {
			next = t;
		}
	}
	printf("frames %llu\n", (unsigned long long)frames);
	return 0;
}
