/* cost.c — isobench --daemon-cost: what isod itself costs.
 *
 * For each thread count N: a fresh private isod (default sampling
 * interval; per-user and global caps raised, the request rate limit off
 * where isod has one), one process of user nobody with N threads, each
 * granted ISO_FIFO and then asleep (blocked on a condition variable) for
 * the whole measurement. isod's CPU time over a window, summed over its
 * threads from /proc/PID/task/TID/schedstat (ns), and from /proc/PID/stat
 * utime+stime (clock ticks) as a cross-check, gives its cost in percent of
 * one CPU; a least-squares line over the N gives the per-thread cost.
 *
 * Then request latency: the process's main thread makes R requests
 * iso_set_thread(0, ISO_FIFO 50) — from the call to its return, a fresh
 * connection each as libisosched does — and checks that the kernel then
 * runs it as SCHED_FIFO; each is followed by a release to SCHED_OTHER
 * (timed separately). isod's CPU time over the requests gives its CPU cost
 * per request. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "isosched.h"

struct cost_shared {
	atomic_int granted, failed, ready, phase; /* phase 1: requests, 2: done */
	int n, requests;
	uint64_t eagain, policy_errors, request_errors;
	char error[256];
	atomic_flag error_taken;
	struct hist set, rel;
};

static struct cost_shared *g_sh;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_done;

static void cost_error(const char *fmt, const char *a)
{
	if (atomic_flag_test_and_set(&g_sh->error_taken))
		return;
	snprintf(g_sh->error, sizeof(g_sh->error), fmt, a);
}

/* iso_set_thread, again after EAGAIN (a rate limit), uncounted */
static int set_retry(int policy, int prio, uint64_t *eagain)
{
	int r;

	for (int i = 0; i < 2000; i++) {
		r = iso_set_thread(0, policy, prio, 0, NULL);
		if (r != -EAGAIN)
			return r;
		(*eagain)++;
		bench_sleep_ns(5000000);
	}
	return r;
}

static void *sleeper(void *arg)
{
	uint64_t ea = 0;
	int r;

	(void)arg;
	r = set_retry(ISO_SCHED_ISO_FIFO, 10, &ea);
	if (r < 0) {
		cost_error("iso_set_thread: %s", strerror(-r));
		atomic_fetch_add(&g_sh->failed, 1);
	} else if (bench_kernel_policy() != SCHED_FIFO) {
		cost_error("granted thread not SCHED_FIFO%s", "");
		atomic_fetch_add(&g_sh->failed, 1);
	} else {
		atomic_fetch_add(&g_sh->granted, 1);
	}
	pthread_mutex_lock(&g_mu);
	while (!g_done)
		pthread_cond_wait(&g_cv, &g_mu);
	pthread_mutex_unlock(&g_mu);
	return NULL;
}

/* One request, timed from call to return; refusals by isod's rate limit
 * (EAGAIN) are counted in *ea and retried after 5 ms. */
static int timed_set(int policy, int prio, uint64_t *ea, uint64_t *dt)
{
	for (;;) {
		uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
		int r = iso_set_thread(0, policy, prio, 0, NULL);

		*dt = bench_clock_ns(CLOCK_MONOTONIC) - t0;
		if (r != -EAGAIN)
			return r;
		(*ea)++;
		bench_sleep_ns(5000000);
	}
}

static _Noreturn void cost_child(pid_t parent, unsigned bound_s)
{
	pthread_attr_t attr;
	pthread_t th;
	uint64_t ea = 0;

	if (!child_become_rt_nobody(parent, bound_s, 2000000))
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < g_sh->n; i++) {
		int r = pthread_create(&th, &attr, sleeper, NULL);

		if (r) {
			cost_error("pthread_create: %s", strerror(r));
			_exit(1);
		}
	}
	while (atomic_load(&g_sh->granted) + atomic_load(&g_sh->failed) <
	       g_sh->n)
		bench_sleep_ns(5000000);
	atomic_store(&g_sh->ready, 1);
	while (atomic_load(&g_sh->phase) < 1)
		bench_sleep_ns(5000000);
	for (int i = 0; i < g_sh->requests; i++) {
		uint64_t dt;
		int r;

		r = timed_set(ISO_SCHED_ISO_FIFO, BENCH_PRIO, &ea, &dt);
		if (r < 0) {
			g_sh->request_errors++;
			cost_error("request: iso_set_thread: %s", strerror(-r));
			continue;
		}
		if (bench_kernel_policy() != SCHED_FIFO)
			g_sh->policy_errors++;
		hist_add(&g_sh->set, dt);
		r = timed_set(ISO_SCHED_NORMAL, 0, &ea, &dt);
		if (r < 0) {
			g_sh->request_errors++;
			cost_error("release: iso_set_thread: %s", strerror(-r));
			continue;
		}
		if (bench_kernel_policy() != SCHED_OTHER)
			g_sh->policy_errors++;
		hist_add(&g_sh->rel, dt);
	}
	g_sh->eagain = ea;
	atomic_store(&g_sh->phase, 2);
	pthread_mutex_lock(&g_mu);
	g_done = 1;
	pthread_cond_broadcast(&g_cv);
	pthread_mutex_unlock(&g_mu);
	_exit(0);
}

/* isod's CPU time: the sum over its threads' schedstat (ns), and
 * utime+stime of /proc/PID/stat (ns, tick resolution). */
static uint64_t g_enforcer_ns; /* of the last isod_cpu: its SCHED_FIFO thread */

static int isod_cpu(pid_t pid, uint64_t *sched_ns, uint64_t *stat_ns)
{
	char path[64], buf[1024];
	struct dirent *e;
	unsigned long long ut, stt;
	DIR *d;
	FILE *f;
	char *rp;
	long hz = sysconf(_SC_CLK_TCK);

	*sched_ns = 0;
	g_enforcer_ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		unsigned long long v;

		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "/proc/%d/task/%s/schedstat", pid,
			 e->d_name);
		f = fopen(buf, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1) {
			int pol = sched_getscheduler((pid_t)atoi(e->d_name));

			*sched_ns += v;
			if (pol >= 0 && (pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO)
				g_enforcer_ns += v;
		}
		fclose(f);
	}
	closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	rp = strrchr(buf, ')');
	/* after ") ": state(3) ... utime is field 14, stime 15 */
	if (!rp || sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
				  " %llu %llu", &ut, &stt) != 2)
		return -1;
	*stat_ns = (ut + stt) * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
	return 0;
}

struct point {
	int n, tracked;
	bool ok;
	double cpu_pct, cpu_pct_stat, window_s;
	double enf_pct; /* of it, the enforcer thread (SCHED_FIFO) */
	double set_p50, set_p99, set_max, rel_p50, rel_p99;
	double req_isod_us; /* isod CPU per request (set + release pair) */
	uint64_t requests, eagain, policy_errors, request_errors;
	char note[320];
};

static double g_sample_ms = 10.0;

static void measure_point(const struct mode_opts *o, const char *isod,
			  bool rate_opt, struct point *pt,
			  volatile pid_t *child_pid)
{
	const char *args[] = { "--max-threads-per-user", "2048", "--max-threads",
			       "4096", "--log-level", "warning", "--rate-limit",
			       "0", NULL };
	struct cost_shared *sh;
	struct iso_status_info st;
	uint64_t a0, a1, b0, b1, t0, t1, r0, r1, dummy, deadline, e0;
	char err[512] = "";
	pid_t p, ipid, parent = getpid();
	int status;

	if (!rate_opt)
		args[6] = NULL;
	if (isod_start_private_args(isod, args, err, sizeof(err)) < 0) {
		snprintf(pt->note, sizeof(pt->note), "isod: %s", err);
		return;
	}
	ipid = isod_private_pid();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(pt->note, sizeof(pt->note), "mmap: %s", strerror(errno));
		isod_stop_private();
		return;
	}
	memset(sh, 0, sizeof(*sh));
	atomic_flag_clear(&sh->error_taken);
	hist_init(&sh->set);
	hist_init(&sh->rel);
	sh->n = pt->n;
	sh->requests = o->requests;
	g_sh = sh;
	fflush(NULL);
	p = fork();
	if (p < 0) {
		snprintf(pt->note, sizeof(pt->note), "fork: %s", strerror(errno));
		goto out;
	}
	if (p == 0)
		cost_child(parent, (unsigned)(o->window_s + 120 +
					      o->requests / 200));
	*child_pid = p;
	deadline = bench_clock_ns(CLOCK_MONOTONIC) + 60000000000ull;
	while (!atomic_load(&sh->ready) && bench_clock_ns(CLOCK_MONOTONIC) < deadline &&
	       waitpid(p, &status, WNOHANG) == 0)
		bench_sleep_ns(10000000);
	if (!atomic_load(&sh->ready) || atomic_load(&sh->failed)) {
		snprintf(pt->note, sizeof(pt->note), "granting %d threads: %s",
			 pt->n, sh->error[0] ? sh->error : "timed out");
		goto kill;
	}
	if (iso_status(&st, NULL, 0) >= 0) {
		pt->tracked = (int)st.total;
		if (st.sample_us)
			g_sample_ms = st.sample_us / 1000.0;
	}
	bench_sleep_ns(1000000000ull); /* settle */
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	if (isod_cpu(ipid, &a0, &b0) < 0) {
		snprintf(pt->note, sizeof(pt->note), "cannot read isod's CPU time");
		goto kill;
	}
	e0 = g_enforcer_ns;
	bench_sleep_ns((uint64_t)(o->window_s * 1e9));
	t1 = bench_clock_ns(CLOCK_MONOTONIC);
	isod_cpu(ipid, &a1, &b1);
	pt->window_s = (double)(t1 - t0) / 1e9;
	pt->cpu_pct = 100.0 * (double)(a1 - a0) / (double)(t1 - t0);
	pt->cpu_pct_stat = 100.0 * (double)(b1 - b0) / (double)(t1 - t0);
	pt->enf_pct = 100.0 * (double)(g_enforcer_ns - e0) / (double)(t1 - t0);

	isod_cpu(ipid, &r0, &dummy);
	atomic_store(&sh->phase, 1);
	deadline = bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(60 + o->requests / 200) * 1000000000ull;
	while (atomic_load(&sh->phase) < 2 && bench_clock_ns(CLOCK_MONOTONIC) < deadline &&
	       waitpid(p, &status, WNOHANG) == 0)
		bench_sleep_ns(10000000);
	isod_cpu(ipid, &r1, &dummy);
	if (atomic_load(&sh->phase) < 2) {
		snprintf(pt->note, sizeof(pt->note), "requests: %s",
			 sh->error[0] ? sh->error : "timed out");
		goto kill;
	}
	pt->requests = sh->set.count;
	pt->set_p50 = hist_percentile_ns(&sh->set, 50) / 1e3;
	pt->set_p99 = hist_percentile_ns(&sh->set, 99) / 1e3;
	pt->set_max = (double)sh->set.max_ns / 1e3;
	pt->rel_p50 = hist_percentile_ns(&sh->rel, 50) / 1e3;
	pt->rel_p99 = hist_percentile_ns(&sh->rel, 99) / 1e3;
	pt->eagain = sh->eagain;
	pt->policy_errors = sh->policy_errors;
	pt->request_errors = sh->request_errors;
	pt->req_isod_us = pt->requests ? (double)(r1 - r0) / 1e3 /
					 (double)pt->requests : 0;
	pt->ok = true;
	if (sh->error[0])
		snprintf(pt->note, sizeof(pt->note), "%s", sh->error);
kill:
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	*child_pid = 0;
out:
	munmap(sh, sizeof(*sh));
	isod_stop_private();
}

int daemon_cost_main(const struct mode_opts *o, volatile pid_t *child_pid)
{
	struct point *pts = calloc((size_t)o->n_nthreads, sizeof(*pts));
	char *isod = isod_find(o->isod_arg);
	double sx = 0, sy = 0, sxx = 0, sxy = 0, slope = 0, icpt = 0;
	int n = 0, rc = 0;
	bool rate_opt;
	double sample_ms;

	if (!pts || !isod) {
		fprintf(stderr, "isobench: %s\n",
			!pts ? "out of memory"
			     : "no isod binary found (--isod, $ISOD, next to"
			       " isobench, PATH)");
		free(pts);
		free(isod);
		return 1;
	}
	rate_opt = isod_has_option(isod, "--rate-limit");
	for (int i = 0; i < o->n_nthreads; i++) {
		pts[i].n = o->nthreads[i];
		measure_point(o, isod, rate_opt, &pts[i], child_pid);
		if (!pts[i].ok) {
			rc = 1;
			continue;
		}
		sx += pts[i].n;
		sy += pts[i].cpu_pct;
		sxx += (double)pts[i].n * pts[i].n;
		sxy += pts[i].n * pts[i].cpu_pct;
		n++;
	}
	sample_ms = g_sample_ms;
	if (n >= 2 && n * sxx - sx * sx > 0) {
		slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
		icpt = (sy - slope * sx) / n;
	}
	/* % of one CPU per thread -> ns of CPU per thread per sample */
	{
		double per_ns = slope / 100.0 * sample_ms * 1e6;

		if (o->json) {
			printf("{\"mode\":\"daemon_cost\",");
			json_num("sample_ms", sample_ms);
			putchar(',');
			json_num("window_s", o->window_s);
			printf(",\"requests\":%d,\"rate_limit_off\":%s,\"points\":[",
			       o->requests, rate_opt ? "true" : "false");
			for (int i = 0; i < o->n_nthreads; i++) {
				struct point *q = &pts[i];

				printf("%s{\"threads\":%d,\"ok\":%s,\"tracked\":%d,",
				       i ? "," : "", q->n, q->ok ? "true" : "false",
				       q->tracked);
				json_num("isod_cpu_pct", q->cpu_pct);
				putchar(',');
				json_num("isod_cpu_pct_stat", q->cpu_pct_stat);
				putchar(',');
				json_num("enforcer_cpu_pct", q->enf_pct);
				putchar(',');
				json_num("window_s", q->window_s);
				printf(",\"requests\":%llu,",
				       (unsigned long long)q->requests);
				json_num("request_p50_us", q->set_p50);
				putchar(',');
				json_num("request_p99_us", q->set_p99);
				putchar(',');
				json_num("request_max_us", q->set_max);
				putchar(',');
				json_num("release_p50_us", q->rel_p50);
				putchar(',');
				json_num("release_p99_us", q->rel_p99);
				putchar(',');
				json_num("isod_cpu_per_request_us", q->req_isod_us);
				printf(",\"eagain\":%llu,\"policy_errors\":%llu,"
				       "\"request_errors\":%llu,\"note\":",
				       (unsigned long long)q->eagain,
				       (unsigned long long)q->policy_errors,
				       (unsigned long long)q->request_errors);
				json_string(q->note);
				putchar('}');
			}
			printf("],");
			json_num("per_thread_cpu_pct", slope);
			putchar(',');
			json_num("per_thread_ns_per_sample", per_ns);
			putchar(',');
			json_num("base_cpu_pct", icpt);
			printf("}\n");
		} else {
			printf("isobench --daemon-cost: isod's own CPU time, %.1f s"
			       " window, threads granted ISO_FIFO as nobody and"
			       " asleep; %d requests per point (rate limit %s)\n",
			       o->window_s, o->requests,
			       rate_opt ? "off" : "not in this isod");
			printf("%8s %8s %10s %10s %10s | %9s %9s %9s %9s %9s %8s\n",
			       "threads", "tracked", "isod %cpu", "(stat)", "enforcer",
			       "set p50", "set p99", "set max", "rel p50",
			       "isod/req", "bad pol");
			for (int i = 0; i < o->n_nthreads; i++) {
				struct point *q = &pts[i];

				if (!q->ok) {
					printf("%8d FAILED: %s\n", q->n, q->note);
					continue;
				}
				printf("%8d %8d %10.3f %10.3f %10.3f | %7.1fus %7.1fus"
				       " %7.1fus %7.1fus %7.1fus %8llu\n",
				       q->n, q->tracked, q->cpu_pct,
				       q->cpu_pct_stat, q->enf_pct, q->set_p50,
				       q->set_p99,
				       q->set_max, q->rel_p50, q->req_isod_us,
				       (unsigned long long)q->policy_errors);
			}
			if (n >= 2)
				printf("fit: isod %%cpu = %.4f + %.6f per thread"
				       " (%.0f ns per thread per %.0f ms sample)\n",
				       icpt, slope, per_ns, sample_ms);
		}
	}
	for (int i = 0; i < o->n_nthreads; i++)
		if (pts[i].note[0] && o->json)
			fprintf(stderr, "isobench: %d threads: %s\n", pts[i].n,
				pts[i].note);
	free(pts);
	free(isod);
	return rc;
}
