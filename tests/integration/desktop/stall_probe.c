/*
 * stall_probe — a SCHED_OTHER thread that asks to run every millisecond
 * and reports the longest gap between two of its wake-ups: how long the
 * desktop's ordinary work was kept off its CPU (pin it beside the thread
 * under test with taskset). Prints "ready" once running, then, at SIGTERM
 * or after --seconds (bounded), "longest_gap_ms X".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* set by the signal handler: when to stop */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 60;
	if (!(seconds > 0 && seconds <= 3600)) {
		fprintf(stderr, "usage: stall_probe [SECONDS (0..3600]]\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	double start = now_ms(), last = start, worst = 0;
	printf("ready\n");
	while (!stop && last - start < seconds * 1e3) {
		struct timespec d = { 0, 1000000 };
		nanosleep(&d, NULL);
		double t = now_ms();
		if (t - last > worst)
			worst = t - last;
		last = t;
	}
	printf("longest_gap_ms %.1f\n", worst);
	return 0;
}
