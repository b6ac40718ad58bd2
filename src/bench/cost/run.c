/* run.c — cost_run: for each thread count N a fresh private isod (default
 * sampling interval; per-user and global caps raised, the request rate
 * limit off where isod has one) polices the client's N sleepers. isod's
 * CPU time over a window, summed over its threads from
 * /proc/PID/task/TID/schedstat (ns), and from /proc/PID/stat utime+stime
 * (clock ticks) as a cross-check, gives its cost in percent of one CPU; a
 * least-squares line over the N gives the per-thread cost. isod's CPU
 * time over the client's requests gives its CPU cost per request. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/child.h"
#include "common/clock.h"
#include "common/isod.h"
#include "common/procfs.h"
#include "cost.h"
#include "isosched.h"

unsigned cost_bound_s(const struct cost_opts *o)
{
	/* and the floor: three ways of at most 5000 round trips */
	return (unsigned)(o->n_nthreads * (o->window_s + 90.0 + o->requests / 500.0)) + 60 +
	       (o->requests > 0 ? 30 : 0);
}

/* isod's CPU time: all its threads, its enforcer, and /proc/PID/stat's;
 * the times its threads went on a CPU */
struct isod_cpu {
	uint64_t all, enforcer, stat, slices;
};

static int read_isod_cpu(pid_t pid, struct isod_cpu *c)
{
	int r = procfs_threads_cpu(pid, &c->all, &c->enforcer, &c->slices);

	return r < 0 ? r : procfs_stat_cpu_ns(pid, &c->stat);
}

/* Wait until the client's phase reaches want (or it dies, or timeout_s):
 * true if it did. */
static bool await_phase(const atomic_int *flag, int want, pid_t p, double timeout_s)
{
	uint64_t deadline = bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(timeout_s * 1e9);
	int status;

	while (atomic_load(flag) < want && bench_clock_ns(CLOCK_MONOTONIC) < deadline &&
	       waitpid(p, &status, WNOHANG) == 0)
		bench_sleep_ns(10000000);
	return atomic_load(flag) >= want;
}

/* isod's CPU over the window, with the client's threads asleep */
static void measure_idle(const struct cost_opts *o, pid_t ipid, struct cost_point *pt)
{
	struct isod_cpu a, b;
	uint64_t t0, t1;
	double dt;

	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	if (read_isod_cpu(ipid, &a) < 0) {
		snprintf(pt->note, sizeof(pt->note), "cannot read isod's CPU time");
		return;
	}
	bench_sleep_s(o->window_s);
	t1 = bench_clock_ns(CLOCK_MONOTONIC);
	read_isod_cpu(ipid, &b);
	dt = (double)(t1 - t0);
	pt->window_s = dt / 1e9;
	pt->cpu_pct = 100.0 * (double)(b.all - a.all) / dt;
	pt->cpu_pct_stat = 100.0 * (double)(b.stat - a.stat) / dt;
	pt->enf_pct = 100.0 * (double)(b.enforcer - a.enforcer) / dt;
	pt->wakeups_per_s = (double)(b.slices - a.slices) / (dt / 1e9);
}

static void take_requests(const struct cost_shared *sh, uint64_t isod_ns,
			  struct cost_point *pt)
{
	pt->requests = sh->set.count;
	pt->set_p50 = hist_percentile_ns(&sh->set, 50) / 1e3;
	pt->set_p99 = hist_percentile_ns(&sh->set, 99) / 1e3;
	pt->set_max = (double)sh->set.max_ns / 1e3;
	pt->rel_p50 = hist_percentile_ns(&sh->rel, 50) / 1e3;
	pt->rel_p99 = hist_percentile_ns(&sh->rel, 99) / 1e3;
	pt->eagain = sh->eagain;
	pt->policy_errors = sh->policy_errors;
	pt->request_errors = sh->request_errors;
	pt->req_isod_us = pt->requests ? (double)isod_ns / 1e3 / (double)pt->requests : 0;
}

/* With the private isod running: the client, the window, the requests. */
static void measure_with_client(const struct cost_opts *o, struct cost_shared *sh,
				struct cost_point *pt, double *sample_ms)
{
	pid_t ipid = isod_private_pid();
	struct iso_status_info st;
	struct isod_cpu a, b;
	pid_t p;
	int status;

	sh->n = pt->n;
	sh->requests = o->requests;
	/* n threads together at iso_load_pct of the machine: each works its
	 * share once every 100 ms */
	sh->period_ns = 100000000;
	sh->work_ns = pt->n ? (int64_t)(o->iso_load_pct / 100.0 * (double)sysconf(_SC_NPROCESSORS_ONLN) *
					(double)sh->period_ns / pt->n)
			    : 0;
	p = cost_client_start(sh, (unsigned)(o->window_s + 120 + o->requests / 200));
	if (p < 0) {
		snprintf(pt->note, sizeof(pt->note), "fork: %s", strerror((int)-p));
		return;
	}
	if (!await_phase(&sh->ready, 1, p, 60) || atomic_load(&sh->failed)) {
		snprintf(pt->note, sizeof(pt->note), "granting %d threads: %s",
			 pt->n, sh->error[0] ? sh->error : "timed out");
		goto kill;
	}
	if (iso_status(&st, NULL, 0) >= 0) {
		pt->tracked = (int)st.total;
		if (st.sample_us)
			*sample_ms = st.sample_us / 1000.0;
	}
	bench_sleep_s(1.0); /* settle */
	measure_idle(o, ipid, pt);
	if (pt->note[0])
		goto kill;
	read_isod_cpu(ipid, &a);
	atomic_store(&sh->phase, 1);
	await_phase(&sh->phase, 2, p, 60 + o->requests / 200);
	read_isod_cpu(ipid, &b);
	if (atomic_load(&sh->phase) < 2) {
		snprintf(pt->note, sizeof(pt->note), "requests: %s",
			 sh->error[0] ? sh->error : "timed out");
		goto kill;
	}
	take_requests(sh, b.all - a.all, pt);
	pt->ok = true;
	if (sh->error[0])
		snprintf(pt->note, sizeof(pt->note), "%s", sh->error);
kill:
	kill(p, SIGKILL);
	while (waitpid(p, &status, 0) < 0 && errno == EINTR)
		;
	child_track(0);
}

static void measure_point(const struct cost_opts *o, const struct isod_bin *bin,
			  struct cost_point *pt, double *sample_ms)
{
	const struct isod_want want = {
		/* the sleepers and the requesting thread */
		.max_threads_per_user = COST_MAX_THREADS + 16, .max_threads = COST_MAX_THREADS + 16,
		.log_level = "warning", .rate_limit_off = true,
		.accounting = o->accounting,
	};
	struct cost_shared *sh;
	char err[512] = "";

	if (isod_start(bin, &want, err, sizeof(err)) < 0) {
		snprintf(pt->note, sizeof(pt->note), "isod: %s", err);
		return;
	}
	sh = shm_new(sizeof(*sh));
	if (!sh) {
		snprintf(pt->note, sizeof(pt->note), "mmap: %s", strerror(errno));
	} else {
		atomic_flag_clear(&sh->error_taken);
		hist_init(&sh->set);
		hist_init(&sh->rel);
		measure_with_client(o, sh, pt, sample_ms);
		shm_free(sh, sizeof(*sh));
	}
	isod_stop_private();
}

/* the least-squares line through the points that ran */
static void fit(struct cost_result *r)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 0;

	for (int i = 0; i < r->npoints; i++) {
		const struct cost_point *p = &r->points[i];

		if (!p->ok)
			continue;
		sx += p->n;
		sy += p->cpu_pct;
		sxx += (double)p->n * p->n;
		sxy += p->n * p->cpu_pct;
		n++;
	}
	r->nfit = n;
	if (n >= 2 && n * sxx - sx * sx > 0) {
		r->slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		r->intercept = (sy - r->slope * sx) / n;
	}
	/* % of one CPU per thread -> ns of CPU per thread per sample */
	r->per_thread_ns = r->slope / 100.0 * r->sample_ms * 1e6;
}

int cost_run(const struct cost_opts *o, struct cost_result *r)
{
	struct isod_bin bin;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->sample_ms = 10.0;
	r->window_s = o->window_s;
	r->requests = o->requests;
	if (isod_bin_find(o->isod, &bin) < 0) {
		fprintf(stderr, "isobench: %s\n", ISOD_NOT_FOUND);
		return -1;
	}
	r->rate_limit_off = bin.has_rate_limit;
	r->accounting = o->accounting && bin.has_accounting ? o->accounting : "isod's default";
	r->iso_load_pct = o->iso_load_pct;
	/* before any isod starts: nothing else of the run's on the CPUs */
	if (o->requests > 0)
		cost_floor_measure(o->requests, r->floor);
	for (int i = 0; i < o->n_nthreads; i++) {
		r->points[i].n = o->nthreads[i];
		measure_point(o, &bin, &r->points[i], &r->sample_ms);
		r->npoints++;
		if (!r->points[i].ok)
			rc = -1;
	}
	fit(r);
	isod_bin_free(&bin);
	return rc;
}
