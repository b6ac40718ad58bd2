/* selftest.c — `doctor --test`: the calling user asks isod for ISO for a
 * measuring thread, which sleeps 1 ms periods (clock_nanosleep, absolute
 * deadlines, as cyclictest) and records how late it wakes, next to a
 * SCHED_OTHER thread doing the same at the same time. */
#include "doctor.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERIOD_NS 1000000L
#define SELFTEST_ISO_PRIO 50 /* the middle of the ISO range, of the band */

struct meter {
	bool iso;
	unsigned seconds;
	pthread_barrier_t *start;
	long *lat_us;
	size_t n, cap;
	int err;              /* iso_set_thread's, 0 if granted */
	char message[200];
	int kernel_policy;    /* sched_getscheduler() after the grant */
	int kernel_prio;
};

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void *measure(void *arg)
{
	struct meter *m = arg;
	struct timespec next, now;
	struct sched_param sp;
	int64_t end;

	if (m->iso) {
		m->err = iso_set_thread(0, ISO_SCHED_ISO_FIFO, SELFTEST_ISO_PRIO, 0, NULL);
		if (m->err > 0)
			m->err = 0;
		if (m->err < 0)
			snprintf(m->message, sizeof(m->message), "%s%s%s", strerror(-m->err),
				 iso_last_error()[0] ? ": " : "", iso_last_error());
	}
	/* isod grants with SCHED_RESET_ON_FORK, which getscheduler reports */
	m->kernel_policy = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	m->kernel_prio = sched_getparam(0, &sp) == 0 ? sp.sched_priority : -1;
	pthread_barrier_wait(m->start);
	if (m->iso && m->err)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = ns_of(&next) + (int64_t)m->seconds * 1000000000;
	while (m->n < m->cap) {
		next.tv_nsec += PERIOD_NS;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		if (ns_of(&next) > end)
			break;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
		m->lat_us[m->n++] = (long)((ns_of(&now) - ns_of(&next)) / 1000);
	}
	if (m->iso)
		iso_set_thread(0, ISO_SCHED_NORMAL, 0, 0, NULL);
	return NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

long doc_percentile(const long *sorted, size_t n, unsigned p)
{
	size_t i;

	if (!n)
		return 0;
	/* nearest rank: the smallest value with at least p % at or below it */
	i = ((size_t)p * n + 99) / 100;
	return sorted[i ? i - 1 : 0];
}

static void summarize(struct meter *m, struct doc_latency *l)
{
	qsort(m->lat_us, m->n, sizeof(long), cmp_long);
	l->valid = m->n > 0;
	l->samples = (unsigned)m->n;
	l->p50_us = doc_percentile(m->lat_us, m->n, 50);
	l->p99_us = doc_percentile(m->lat_us, m->n, 99);
	l->max_us = m->n ? m->lat_us[m->n - 1] : 0;
}

static const char *policy_name(int p)
{
	return p == SCHED_FIFO ? "SCHED_FIFO" : p == SCHED_RR ? "SCHED_RR" :
	       p == SCHED_OTHER ? "SCHED_OTHER" : "another policy";
}

static void report(struct doc_report *r, const struct doc_ctx *c, const struct meter *iso)
{
	const struct doc_latency *li = &r->iso, *lo = &r->other;

	if (iso->err)
		doc_add(r, "test", "iso", DOC_FAIL,
			iso->err == -EPERM ? "see the limits/allowed check above"
					   : "see the isod check above",
			"isod refused ISO_FIFO %d for the measuring thread: %s", SELFTEST_ISO_PRIO,
			iso->message);
	else if (!li->valid)
		doc_add(r, "test", "iso", DOC_SKIP, NULL, "no wakeups measured");
	else
		doc_add(r, "test", "iso", li->p99_us < 1000 ? DOC_OK : DOC_WARN,
			li->p99_us < 1000 ? NULL : "see the WARN lines above (preemption, IRQs, power)",
			"ISO thread (kernel %s %d, band %d..%d): wakeup latency p50 %ld us, p99 %ld us, "
			"max %ld us over %u 1 ms sleeps", policy_name(iso->kernel_policy),
			iso->kernel_prio, c->band_lo, c->band_hi, li->p50_us, li->p99_us, li->max_us,
			li->samples);
	if (lo->valid)
		doc_add(r, "test", "other", DOC_INFO, NULL,
			"SCHED_OTHER thread at the same time: p50 %ld us, p99 %ld us, max %ld us "
			"over %u 1 ms sleeps", lo->p50_us, lo->p99_us, lo->max_us, lo->samples);
	else
		doc_add(r, "test", "other", DOC_SKIP, NULL, "no wakeups measured");
}

void doc_selftest(struct doc_report *r, const struct doc_ctx *c, unsigned seconds)
{
	struct meter m[2];
	pthread_barrier_t start;
	pthread_t th[2];
	size_t cap = (size_t)seconds * (1000000000 / PERIOD_NS) + 16;
	bool started[2] = { false, false };

	r->selftest_run = true;
	memset(m, 0, sizeof(m));
	if (pthread_barrier_init(&start, NULL, 2) != 0) {
		doc_add(r, "test", "iso", DOC_SKIP, NULL, "cannot start the self-test");
		return;
	}
	for (int i = 0; i < 2; i++) {
		m[i].iso = i == 0;
		m[i].seconds = seconds;
		m[i].start = &start;
		m[i].cap = cap;
		m[i].lat_us = calloc(cap, sizeof(long));
	}
	if (m[0].lat_us && m[1].lat_us) {
		started[0] = pthread_create(&th[0], NULL, measure, &m[0]) == 0;
		/* Without the first thread the barrier would never open. */
		started[1] = started[0] && pthread_create(&th[1], NULL, measure, &m[1]) == 0;
		if (started[0] && !started[1])
			pthread_barrier_wait(&start); /* take its place: the first may finish */
	}
	for (int i = 0; i < 2; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	if (!started[1]) {
		doc_add(r, "test", "iso", DOC_SKIP, NULL, "cannot start the self-test threads");
	} else {
		summarize(&m[0], &r->iso);
		summarize(&m[1], &r->other);
		report(r, c, &m[0]);
	}
	free(m[0].lat_us);
	free(m[1].lat_us);
}
