/* regrant — two spinners, one pinned to each of CPUs 0 and 1, that hold
 * ISO (ISO_FIFO, priority ESC_PRIO or 30) for HOLD_MS, release it and ask
 * again at once, for SECONDS (HOLD_MS 0: ask once and hold throughout),
 * while a SCHED_OTHER probe thread of the same process, on any CPU, counts
 * how long it was kept off every CPU (issue 28 item 2: re-grant cycling
 * must gain nothing over holding continuously).
 *
 *   regrant SECONDS HOLD_MS
 *
 * Output, one line at the end:
 *   both_rt S stalled S max_gap S rt S grants N failed N
 * both_rt: the time both spinners were kernel RT at once, from their own
 * looks at their policy between two turns of their loops: the time a
 * SCHED_OTHER thread could run on neither CPU — what the probe measures,
 * without what other work on a shared machine takes from it. stalled: the
 * probe's own figure, the sum of its gaps longer than GAP_S (a time share
 * with SCHED_OTHER spinners gives it slices far shorter). rt: the two
 * spinners' time as RT, summed. Bounded: SECONDS at most 20,
 * alarm(SECONDS + 3); each spinner releases ISO before it ends. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

#include "isosched.h"

#define GAP_S 0.010

#define MAX_SPANS 8192

/* set once by main before the threads start, read by them */
static double g_end, g_hold;
static int g_prio;
static atomic_int grants, failed;

/* each spinner's spans of kernel RT: written by it alone, read by main
 * after the join */
struct spans {
	double from[MAX_SPANS], to[MAX_SPANS];
	int n;
	bool open;
};
static struct spans g_spans[2];

/* Note the spinner's policy at t: a span opens or closes. */
static void note(struct spans *sp, double t)
{
	int pol = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	bool rt = pol == SCHED_FIFO || pol == SCHED_RR;

	if (rt && !sp->open) {
		if (sp->n == MAX_SPANS)
			sp->n--; /* full: the last span grows (it only over-counts) */
		else
			sp->from[sp->n] = t;
		sp->open = true;
	}
	if (sp->open) {
		sp->to[sp->n] = t;
		if (!rt) {
			sp->n++;
			sp->open = false;
		}
	}
}

/* The time both spinners' spans overlap. */
static double overlap(const struct spans *a, const struct spans *b)
{
	double sum = 0;
	int i = 0, j = 0;

	while (i < a->n && j < b->n) {
		double lo = a->from[i] > b->from[j] ? a->from[i] : b->from[j];
		double hi = a->to[i] < b->to[j] ? a->to[i] : b->to[j];

		if (hi > lo)
			sum += hi - lo;
		if (a->to[i] < b->to[j])
			i++;
		else
			j++;
	}
	return sum;
}

static double total(const struct spans *a)
{
	double sum = 0;

	for (int i = 0; i < a->n; i++)
		sum += a->to[i] - a->from[i];
	return sum;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spinner(void *arg)
{
	struct spans *sp = &g_spans[(long)arg];
	cpu_set_t set;
	double next, t;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	while (now_s() < g_end) {
		if (iso_set_thread(0, ISO_SCHED_ISO_FIFO, g_prio, 0, NULL) == 0)
			atomic_fetch_add(&grants, 1);
		else
			atomic_fetch_add(&failed, 1);
		next = g_hold > 0 ? now_s() + g_hold : g_end;
		if (next > g_end)
			next = g_end;
		while ((t = now_s()) < next)
			note(sp, t);
		(void)iso_set_thread(0, ISO_SCHED_NORMAL, 0, 0, NULL);
		note(sp, now_s());
	}
	if (sp->open)
		sp->n++;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds, prev, t, stalled = 0, max_gap = 0;
	const char *p = getenv("ESC_PRIO");
	pthread_t th[2];

	if (argc != 3 || (seconds = atof(argv[1])) <= 0 || seconds > 20 || atoi(argv[2]) < 0) {
		fprintf(stderr, "usage: regrant SECONDS(<=20) HOLD_MS\n");
		return 2;
	}
	alarm((unsigned)seconds + 3);
	g_hold = atoi(argv[2]) / 1000.0;
	g_prio = p ? atoi(p) : 30;
	g_end = now_s() + seconds;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, spinner, (void *)i))
			return 1;
	prev = now_s();
	while ((t = now_s()) < g_end) {
		if (t - prev > GAP_S)
			stalled += t - prev;
		if (t - prev > max_gap)
			max_gap = t - prev;
		prev = t;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* REGRANT_SPANS set: every span of 20 ms or more, for a look at why */
	if (getenv("REGRANT_SPANS"))
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < g_spans[k].n; i++)
				if (g_spans[k].to[i] - g_spans[k].from[i] >= 0.020)
					fprintf(stderr, "span %d %.3f %.3f\n", k, g_spans[k].from[i],
						g_spans[k].to[i] - g_spans[k].from[i]);
	printf("both_rt %.3f stalled %.3f max_gap %.3f rt %.3f grants %d failed %d\n",
	       overlap(&g_spans[0], &g_spans[1]), stalled, max_gap,
	       total(&g_spans[0]) + total(&g_spans[1]), atomic_load(&grants), atomic_load(&failed));
	return 0;
}
