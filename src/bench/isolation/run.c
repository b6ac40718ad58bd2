/* run.c — isobench --isolation (isolation.h). Per run:
 *
 *   B  one process per CPU, pinned to it, as uid ISOL_AGGR_UID, ISO_FIFO
 *      ISOL_AGGR_PRIO from the private isod; each spins 12 ms from every
 *      20 ms boundary of CLOCK_MONOTONIC (in step on every CPU) and
 *      sleeps the rest: 60 % of the machine, every thread blocking each
 *      period (no burst guard), the budget at iso_cpu 95 out of the way.
 *   A  one thread, unpinned: from its start every 5.333 ms (absolute
 *      releases) 1 ms of calibrated work; a period whose work ends after
 *      the next release is missed. As band ISO_FIFO 10 (nobody), with a
 *      reservation of 1.2 ms every 5.333 ms (nobody, iso_set_reservation),
 *      or as root SCHED_DEADLINE with the same parameters.
 *   load  (cpu+vm) one SCHED_OTHER CPU hog and one page-faulting memory
 *      hog per CPU.
 *
 * The runs are interleaved: load, then run, then victim. Every child is
 * bound to us, has an alarm and is SIGKILLed past its deadline. */
#include <errno.h>
#include <grp.h>
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

#include "common/child.h"
#include "common/clock.h"
#include "common/isod.h"
#include "isolation.h"
#include "isosched.h"

struct isol_shared {
	atomic_int stop;        /* B: stop now */
	atomic_int ready;       /* B's processes granted and spinning */
	atomic_int failed;
	uint64_t periods, missed;
	int demoted;            /* A did not end as it started */
	uint64_t aggr_cpu_ns[ISOL_MAX_CPUS];
	char error[200];
};

static void note_error(struct isol_shared *sh, const char *what, int err)
{
	if (!sh->error[0])
		snprintf(sh->error, sizeof(sh->error), "%s: %s", what, strerror(err));
	atomic_store(&sh->failed, 1);
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / 1000000000ull), (long)(t_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* In a child as root: bound to us, then uid (and gid) uid for good. */
static bool become_uid(pid_t parent, unsigned bound_s, uid_t uid)
{
	struct rlimit rl = { (rlim_t)bound_s * 1000000, (rlim_t)bound_s * 1000000 + 1000000 };

	if (!child_bind_to_parent(parent, SIGKILL))
		return false;
	alarm(bound_s);
	setrlimit(RLIMIT_RTTIME, &rl);
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		return false;
	/* a credential change clears the parent-death signal */
	return child_bind_to_parent(parent, SIGKILL);
}

static _Noreturn void aggressor(pid_t parent, struct isol_shared *sh, int cpu, unsigned bound_s)
{
	cpu_set_t set;
	int r;

	if (!become_uid(parent, bound_s, ISOL_AGGR_UID))
		_exit(1);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		note_error(sh, "sched_setaffinity", errno);
	r = iso_set_thread(0, ISO_SCHED_ISO_FIFO, ISOL_AGGR_PRIO, 0, NULL);
	if (r < 0) {
		note_error(sh, "iso_set_thread (B)", -r);
		_exit(2);
	}
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->stop)) {
		uint64_t now = bench_clock_ns(CLOCK_MONOTONIC);
		uint64_t start = now - now % ISOL_BURST_PERIOD_NS + ISOL_BURST_PERIOD_NS;

		sleep_until(start);
		while (bench_clock_ns(CLOCK_MONOTONIC) < start + ISOL_BURST_NS)
			;
	}
	if (cpu < ISOL_MAX_CPUS)
		sh->aggr_cpu_ns[cpu] = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	_exit(0);
}

static _Noreturn void victim(pid_t parent, struct isol_shared *sh, enum isol_victim v,
			     double loops_per_ns, double window_s, unsigned bound_s)
{
	uint64_t loops = (uint64_t)(loops_per_ns * (double)ISOL_WORK_NS), t0, end;
	int r, want;

	if (v == VIC_ROOT_DL) {
		if (!child_bind_to_parent(parent, SIGKILL))
			_exit(1);
		alarm(bound_s);
		r = bench_set_deadline(ISOL_RUNTIME_NS, ISOL_PERIOD_NS, ISOL_PERIOD_NS);
	} else {
		if (!child_become_rt_nobody(parent, bound_s, (uint64_t)bound_s * 1000000))
			_exit(1);
		r = v == VIC_ISO ? iso_set_thread(0, ISO_SCHED_ISO_FIFO, ISOL_VICTIM_PRIO, 0, NULL)
				 : iso_set_reservation(0, ISOL_RUNTIME_NS, ISOL_PERIOD_NS, 0, NULL);
	}
	if (r < 0) {
		note_error(sh, v == VIC_ISO ? "iso_set_thread (A)" : v == VIC_RESERVE
				       ? "iso_set_reservation (A)" : "sched_setattr DEADLINE (A)", -r);
		_exit(2);
	}
	want = bench_kernel_policy();
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	end = t0 + (uint64_t)(window_s * 1e9);
	for (uint64_t k = 0;; k++) {
		uint64_t release = t0 + k * ISOL_PERIOD_NS;

		if (release + ISOL_PERIOD_NS > end)
			break;
		sleep_until(release);
		busy_work(loops);
		sh->periods++;
		if (bench_clock_ns(CLOCK_MONOTONIC) > release + ISOL_PERIOD_NS)
			sh->missed++;
	}
	sh->demoted = bench_kernel_policy() != want;
	_exit(0);
}

/* A hog that makes the kernel's memory management work: fault in and
 * give back 64 MB over and over. */
static _Noreturn void hog_vm(void)
{
	const size_t len = 64u << 20;

	for (;;) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		for (size_t i = 0; i < len; i += 4096)
			p[i] = (char)i;
		munmap(p, len);
	}
}

static void kill_all(pid_t *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] > 0) {
			kill(p[i], SIGKILL);
			waitpid(p[i], NULL, 0);
			p[i] = 0;
		}
}

/* One run of victim v: B, then A for the window. 0, or -1 (note set). */
static int one_run(struct isol_shared *sh, enum isol_victim v, int ncpu, double window_s,
		   double loops_per_ns, struct isol_cell *c, double *aggr_pct)
{
	pid_t parent = getpid(), aggr[ISOL_MAX_CPUS] = { 0 }, a;
	unsigned bound_s = (unsigned)window_s + 10;
	uint64_t deadline, t0;
	int status, i, rc = 0;

	memset(sh, 0, sizeof(*sh));
	for (i = 0; i < ncpu; i++) {
		aggr[i] = fork();
		if (aggr[i] == 0)
			aggressor(parent, sh, i, bound_s);
		if (aggr[i] < 0) {
			aggr[i] = 0;
			note_error(sh, "fork", errno);
		}
	}
	deadline = bench_clock_ns(CLOCK_MONOTONIC) + 5000000000ull;
	while (atomic_load(&sh->ready) < ncpu && !atomic_load(&sh->failed) &&
	       bench_clock_ns(CLOCK_MONOTONIC) < deadline)
		bench_sleep_ns(1000000);
	if (atomic_load(&sh->ready) < ncpu) {
		snprintf(c->note, sizeof(c->note), "B not ready: %.120s", sh->error);
		kill_all(aggr, ncpu);
		return -1;
	}
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	a = fork();
	if (a == 0)
		victim(parent, sh, v, loops_per_ns, window_s, bound_s);
	if (a < 0 || child_wait(a, bench_clock_ns(CLOCK_MONOTONIC) +
				    (uint64_t)(window_s * 1e9) + 5000000000ull,
			       10000000, NULL, NULL, &status) < 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(c->note, sizeof(c->note), "A did not run: %.120s",
			 sh->error[0] ? sh->error : "killed or failed");
		rc = -1;
	}
	atomic_store(&sh->stop, 1);
	for (i = 0; i < ncpu; i++)
		if (aggr[i] > 0 && child_wait(aggr[i], bench_clock_ns(CLOCK_MONOTONIC) + 2000000000ull,
					      5000000, NULL, NULL, &status) == 0)
			aggr[i] = 0;
	kill_all(aggr, ncpu);
	if (rc == 0) {
		uint64_t cpu = 0, wall = bench_clock_ns(CLOCK_MONOTONIC) - t0;
		int n = c->nruns++;

		for (i = 0; i < ncpu && i < ISOL_MAX_CPUS; i++)
			cpu += sh->aggr_cpu_ns[i];
		*aggr_pct = 100.0 * (double)cpu / ((double)wall * ncpu);
		c->periods[n] = sh->periods;
		c->missed[n] = sh->missed;
		c->miss_pct[n] = sh->periods ? 100.0 * (double)sh->missed / (double)sh->periods : 0;
		c->demoted_runs += sh->demoted;
	}
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

unsigned isolation_bound_s(const struct isolation_opts *o)
{
	return (unsigned)(ISOL_LOADS * ISOL_RUNS * VIC_COUNT * (o->window_s + 12)) + 60;
}

int isolation_run(const struct isolation_opts *o, struct isolation_result *r)
{
	struct isod_want want = { .iso_cpu = 95 };
	struct isol_shared *sh;
	struct isod_bin bin;
	pid_t hogs[2 * ISOL_MAX_CPUS] = { 0 };
	char err[256];
	double loops_per_ns;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->window_s = o->window_s;
	r->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (r->ncpu < 1 || r->ncpu > ISOL_MAX_CPUS)
		r->ncpu = r->ncpu < 1 ? 1 : ISOL_MAX_CPUS;
	if (isod_bin_find(o->isod, &bin) < 0) {
		fprintf(stderr, "isobench: %s\n", ISOD_NOT_FOUND);
		return -1;
	}
	if (isod_start(&bin, &want, err, sizeof(err)) < 0) {
		fprintf(stderr, "isobench: %s\n", err);
		isod_bin_free(&bin);
		return -1;
	}
	r->started = true;
	sh = shm_new(sizeof(*sh));
	if (!sh) {
		isod_stop_private();
		isod_bin_free(&bin);
		return -1;
	}
	loops_per_ns = calibrate_loops_per_ns();
	for (int l = 0; l < ISOL_LOADS; l++) {
		int nh = 0;

		if (l == ISOL_CPU_VM)
			for (int i = 0; i < r->ncpu; i++) {
				unsigned max_s = isolation_bound_s(o);
				pid_t h = child_spawn_hog(max_s, hog_spin_cpu), m = child_spawn_hog(max_s, hog_vm);

				if (h > 0)
					hogs[nh++] = h;
				if (m > 0)
					hogs[nh++] = m;
			}
		for (int run = 0; run < ISOL_RUNS; run++)
			for (int v = 0; v < VIC_COUNT; v++) {
				struct isol_cell *c = &r->c[l][v];

				if (one_run(sh, (enum isol_victim)v, r->ncpu, o->window_s, loops_per_ns, c,
					    &r->aggr_cpu_pct) < 0)
					rc = -1;
				if (o->progress && c->nruns)
					fprintf(stderr, "isobench: %s, %s, run %d: %.1f %% missed\n",
						isol_load_name[l], isol_victim_name[v], run + 1,
						c->miss_pct[c->nruns - 1]);
			}
		kill_all(hogs, nh);
	}
	for (int l = 0; l < ISOL_LOADS; l++)
		for (int v = 0; v < VIC_COUNT; v++) {
			struct isol_cell *c = &r->c[l][v];
			double s[ISOL_RUNS];

			if (!c->nruns)
				continue;
			memcpy(s, c->miss_pct, sizeof(s));
			qsort(s, (size_t)c->nruns, sizeof(double), cmp_double);
			c->median_pct = s[c->nruns / 2];
		}
	shm_free(sh, sizeof(*sh));
	isod_stop_private();
	isod_bin_free(&bin);
	return rc;
}
