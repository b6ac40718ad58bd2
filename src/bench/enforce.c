/* enforce.c — isobench --enforcement: how fast isod demotes a runaway and
 * how much CPU a runaway leaves to SCHED_OTHER tasks, for each iso_cpu.
 *
 * Reaction. Each trial starts a fresh private isod (zero budget history)
 * with the given iso_cpu and a short iso_period, then one process of user
 * nobody with a spinning thread per online CPU. Each spinner asks for
 * ISO_FIFO, spins, and polls its own kernel policy (sched_getscheduler)
 * between short stretches of work; it records its own CPU time on a 1 ms
 * grid and the moment it sees SCHED_OTHER (the demotion). The budget
 * crossing is what libisocore's exponential average (iso_budget_feed, the
 * engine's own code) gives for the CPU time the spinners really got, fed
 * at 1 ms steps from the first grant: the first step at which usage
 * exceeds iso_cpu. Reaction = first demotion seen − crossing. isod samples
 * every sample_ms, and counts a new thread from its first sample after the
 * grant, so ~1 sample interval of reaction is expected by design.
 *
 * CPU left to others. The same spinners run for a warm-up (past the first
 * demotion) and a measured window against one SCHED_OTHER competitor
 * process (nice 0); the competitor's CPU time over the window, from
 * /proc/PID/schedstat, is the share isod leaves to normal tasks. The parent
 * reads the counters as SCHED_FIFO 60 (mostly asleep) so that the runaway
 * cannot delay its readings.
 *
 * Every spinner is bounded: it stops at its demotion or at a deadline,
 * RLIMIT_RTTIME, alarm(), PR_SET_PDEATHSIG, and the parent's SIGKILL. */
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
#include "iso_budget.h"
#include "isosched.h"

#define GRID_NS 1000000ull /* 1 ms */
#define MAX_SPIN 64
#define PARENT_PRIO 60

/* ---- shared between the parent and the spinning child -------------------- */

struct spinner {
	atomic_int tid;
	int granted, demoted, failed;
	uint64_t grant_ns, demote_ns;
	uint64_t fifo_ns; /* the last poll that still saw SCHED_FIFO */
	int seen_policy;  /* the kernel policy seen at the demotion */
	int ours;         /* our isod lists the thread as demoted */
	int budget_over;  /* and its budget was over iso_cpu (refractory) */
	uint32_t usage_milli; /* isod's usage then */
	/* share runs: CPU time while the kernel ran it SCHED_FIFO / not */
	_Atomic uint64_t rt_ns, other_ns;
	int last_k;
	uint64_t *cpu; /* ISO CPU time since the grant at grid step k */
};

struct spin_shared {
	int n;
	uint64_t t0_ns, stop_ns; /* grid origin; spin no longer than this */
	bool until_demoted;
	atomic_int ready, go;
	char error[256];
	atomic_flag error_taken;
	struct spinner sp[MAX_SPIN];
};

static struct spin_shared *g_sh;
static size_t g_grid;

static void spin_error(const char *fmt, const char *a)
{
	if (atomic_flag_test_and_set(&g_sh->error_taken))
		return;
	snprintf(g_sh->error, sizeof(g_sh->error), fmt, a);
}

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	uint64_t cpu0, now, cpu;
	int k, r;

	atomic_store(&s->tid, (int)gettid());
	atomic_fetch_add(&g_sh->ready, 1);
	while (!atomic_load(&g_sh->go))
		bench_sleep_ns(200000);
	for (;;) {
		r = iso_set_thread(0, ISO_SCHED_ISO_FIFO, BENCH_PRIO, 0, NULL);
		if (r != -EAGAIN) /* a rate limit: try again, uncounted */
			break;
		bench_sleep_ns(10000000);
	}
	if (r < 0) {
		spin_error("iso_set_thread: %s", strerror(-r));
		s->failed = 1;
		return NULL;
	}
	s->grant_ns = bench_clock_ns(CLOCK_MONOTONIC);
	cpu0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	r = bench_kernel_policy();
	if (r != SCHED_FIFO) {
		char pol[16];

		snprintf(pol, sizeof(pol), "%d", r);
		spin_error("granted, but the kernel runs the thread as policy"
			   " %s", pol);
		s->failed = 1;
		return NULL;
	}
	s->granted = 1;
	k = (int)((s->grant_ns - g_sh->t0_ns) / GRID_NS);
	for (int i = 0; i <= k && i < (int)g_grid; i++)
		s->cpu[i] = 0;
	s->last_k = k;
	for (;;) {
		now = bench_clock_ns(CLOCK_MONOTONIC);
		cpu = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		k = (int)((now - g_sh->t0_ns) / GRID_NS);
		if (k >= (int)g_grid)
			k = (int)g_grid - 1;
		/* steps we did not see (preempted) got no CPU: fill forward */
		while (s->last_k < k)
			s->cpu[++s->last_k] = cpu;
		if (g_sh->until_demoted) {
			int pol = bench_kernel_policy();

			if (pol != SCHED_FIFO) {
				struct iso_thread_info info;

				s->demote_ns = now;
				s->demoted = 1;
				s->seen_policy = pol;
				/* by our isod, or by someone else? */
				s->ours = iso_get_thread(0, &info) >= 0 &&
					  (info.flags & ISO_THREAD_DEMOTED);
				/* by the budget, or by something else in isod
				 * (a watchdog)? */
				{
					struct iso_status_info st;

					if (iso_status(&st, NULL, 0) >= 0) {
						s->budget_over = st.refractory != 0;
						s->usage_milli = st.usage_milli;
					}
				}
				break;
			}
			s->fifo_ns = now;
		} else {
			static _Thread_local uint64_t prev;
			uint64_t d = cpu - prev;

			prev = cpu;
			if (bench_kernel_policy() == SCHED_FIFO)
				atomic_fetch_add_explicit(&s->rt_ns, d,
							  memory_order_relaxed);
			else
				atomic_fetch_add_explicit(&s->other_ns, d,
							  memory_order_relaxed);
		}
		if (now >= g_sh->stop_ns)
			break;
		busy_work(200); /* well below a microsecond */
	}
	return NULL;
}

static _Noreturn void spin_child(pid_t parent, double max_s)
{
	uint64_t rt_us = (uint64_t)((max_s + 2.0) * 1e6);
	pthread_t th[MAX_SPIN];
	pthread_attr_t attr;

	if (!child_become_rt_nobody(parent, (unsigned)max_s + 10, rt_us))
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (int i = 0; i < g_sh->n; i++) {
		if (pthread_create(&th[i], &attr, spinner_main, &g_sh->sp[i])) {
			spin_error("pthread_create: %s", strerror(errno));
			_exit(1);
		}
	}
	for (int i = 0; i < g_sh->n; i++)
		pthread_join(th[i], NULL);
	_exit(g_sh->error[0] ? 1 : 0);
}

/* Empty for a new trial; the CPU-time grids follow the struct. */
static void shared_reset(struct spin_shared *sh, int n, size_t grid)
{
	uint64_t *cpu = (uint64_t *)(sh + 1);

	memset(sh, 0, sizeof(*sh));
	atomic_flag_clear(&sh->error_taken);
	sh->n = n;
	for (int i = 0; i < n; i++)
		sh->sp[i].cpu = cpu + (size_t)i * grid;
}

static struct spin_shared *shared_new(int n, size_t grid)
{
	size_t sz = sizeof(struct spin_shared) + (size_t)n * grid * sizeof(uint64_t);
	struct spin_shared *sh = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED)
		return NULL;
	shared_reset(sh, n, grid);
	return sh;
}

static void shared_free(struct spin_shared *sh, int n, size_t grid)
{
	munmap(sh, sizeof(*sh) + (size_t)n * grid * sizeof(uint64_t));
}

/* Fork the spinning child; it spins until demoted (until_demoted) or until
 * max_s after its start. */
static pid_t spin_start(struct spin_shared *sh, double max_s,
			bool until_demoted, volatile pid_t *child_pid)
{
	pid_t parent = getpid(), p;

	sh->until_demoted = until_demoted;
	g_sh = sh;
	fflush(NULL);
	p = fork();
	if (p < 0)
		return -1;
	if (p == 0)
		spin_child(parent, max_s);
	*child_pid = p;
	/* the threads exist; then the clock starts and they ask for ISO */
	for (int i = 0; i < 1000 && atomic_load(&sh->ready) < sh->n; i++)
		bench_sleep_ns(2000000);
	sh->t0_ns = bench_clock_ns(CLOCK_MONOTONIC);
	sh->stop_ns = sh->t0_ns + (uint64_t)(max_s * 1e9);
	atomic_store(&sh->go, 1);
	return p;
}

/* ISOBENCH_DEBUG=1: the parent follows isod's enforcer thread (the one
 * running SCHED_FIFO) every ms — /proc schedstat: time run, time waited
 * runnable, timeslices — and explains an outlier reaction on stderr. */
struct enf_trace {
	uint64_t t, run, wait, slices;
	uint64_t spin; /* the spinners' schedstat run time, summed */
};
static pid_t g_spin_pid;
static struct enf_trace *g_tr;
static size_t g_ntr, g_captr;
static pid_t g_enf_tid;

static pid_t find_enforcer(pid_t isod)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	pid_t found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", isod);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t t = (pid_t)atoi(e->d_name);
		int pol;

		if (t <= 0)
			continue;
		pol = sched_getscheduler(t);
		if (pol >= 0 && (pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO)
			found = t;
	}
	closedir(d);
	return found;
}

static void trace_poll(void)
{
	char path[80];
	unsigned long long a, b, c;
	FILE *f;

	if (!g_tr || g_ntr >= g_captr || g_enf_tid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
		 isod_private_pid(), g_enf_tid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%llu %llu %llu", &a, &b, &c) == 3) {
		g_tr[g_ntr].t = bench_clock_ns(CLOCK_MONOTONIC);
		g_tr[g_ntr].run = a;
		g_tr[g_ntr].wait = b;
		g_tr[g_ntr].slices = c;
		g_tr[g_ntr].spin = 0;
		for (int i = 0; i < g_sh->n; i++) {
			FILE *g;
			int tid = atomic_load(&g_sh->sp[i].tid);

			snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
				 g_spin_pid, tid);
			g = fopen(path, "r");
			if (g) {
				if (fscanf(g, "%llu", &a) == 1)
					g_tr[g_ntr].spin += a;
				fclose(g);
			}
		}
		g_ntr++;
	}
	fclose(f);
}

/* the spinners' CPU time since t0 as /proc showed it at time t */
static uint64_t trace_spin_at(uint64_t t, uint64_t base)
{
	uint64_t v = 0;

	for (size_t i = 0; i < g_ntr && g_tr[i].t <= t; i++)
		v = g_tr[i].spin;
	return v > base ? v - base : 0;
}

static void trace_explain(int L, double react_ms, uint64_t from, uint64_t to,
			  uint64_t cross)
{
	uint64_t gap = 0, last_t = 0, last_sl = 0, w0 = 0, w1 = 0, r0 = 0, r1 = 0;
	uint64_t gap_at = 0;
	bool have = false;

	for (size_t i = 0; i < g_ntr; i++) {
		struct enf_trace *x = &g_tr[i];

		if (x->t < from || x->t > to)
			continue;
		if (!have) {
			have = true;
			last_t = x->t;
			last_sl = x->slices;
			w0 = x->wait;
			r0 = x->run;
		}
		if (x->slices != last_sl) {
			last_sl = x->slices;
			last_t = x->t;
		} else if (x->t - last_t > gap) {
			gap = x->t - last_t;
			gap_at = last_t;
		}
		w1 = x->wait;
		r1 = x->run;
	}
	fprintf(stderr, "isobench: debug: iso_cpu %d reaction %.1f ms: enforcer"
			" %d from the first grant to the demotion: longest"
			" stretch without being scheduled %.1f ms (from %.1f ms"
			" after the grant), waited runnable %.1f ms, ran %.3f ms\n",
		L, react_ms, (int)g_enf_tid, (double)gap / 1e6,
		gap_at > from ? (double)(gap_at - from) / 1e6 : 0.0,
		(double)(w1 - w0) / 1e6, (double)(r1 - r0) / 1e6);
	from = cross - 30000000ull;
	/* what /proc said about the spinners vs what their own clocks said */
	if (g_ntr) {
		uint64_t base = g_tr[0].spin, own = 0;
		uint64_t t = from + 30000000ull;
		int k = (int)((t - g_sh->t0_ns) / GRID_NS);

		for (int i = 0; i < g_sh->n; i++) {
			struct spinner *sp = &g_sh->sp[i];

			own += sp->cpu[k < sp->last_k ? k : sp->last_k];
		}
		fprintf(stderr, "isobench: debug:   at the model's crossing the"
				" spinners' own clocks say %.1f ms of CPU since"
				" the grant, /proc schedstat %.1f ms since the"
				" first poll (%.1f ms after t0)\n",
			(double)own / 1e6, (double)trace_spin_at(t, base) / 1e6,
			(double)(g_tr[0].t - g_sh->t0_ns) / 1e6);
	}
}

static int spin_wait(pid_t p, double max_s, volatile pid_t *child_pid)
{
	uint64_t deadline = bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)((max_s + 5) * 1e9);
	int status = 0;

	for (;;) {
		int r = child_reap(p, deadline, &status);

		if (r < 0)
			status = -1;
		if (r)
			break;
		if (g_tr) {
			trace_poll();
			bench_sleep_ns(1000000);
		} else {
			bench_sleep_ns(5000000);
		}
	}
	*child_pid = 0;
	return status;
}

/* ---- statistics over trials ------------------------------------------------ */

struct dist {
	double min, p50, p99, max, mean;
	int n;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank */
static void dist_of(double *v, int n, struct dist *d)
{
	double sum = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (!n)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (int i = 0; i < n; i++)
		sum += v[i];
	d->min = v[0];
	d->max = v[n - 1];
	d->mean = sum / n;
	d->p50 = v[(int)ceil(0.50 * n) - 1];
	d->p99 = v[(int)ceil(0.99 * n) - 1];
}

/* ---- the modes -------------------------------------------------------------- */

struct level {
	int iso_cpu;
	int trials, demoted, failed, no_cross, foreign, not_budget;
	double model_cross_s; /* τ·ln(1/(1 − L/100)), at 100 % of all CPUs */
	struct dist cross_s, react_ms, react_samples, last_ms, gap_ms;
	double *all_react; /* per trial, sorted */
	bool share_ok;
	double comp_pct_cpu, comp_pct_all, iso_pct_all, window_s;
	double rt_pct_all, other_pct_all; /* the runaway as RT / demoted */
	char note[600];
};

static int start_isod(const struct mode_opts *o, const char *isod, int iso_cpu,
		      bool rate_opt, char *err, size_t errlen)
{
	char cpu[16], per[16];
	const char *args[16];
	int n = 0;

	snprintf(cpu, sizeof(cpu), "%d", iso_cpu);
	snprintf(per, sizeof(per), "%d", o->iso_period_s);
	args[n++] = "--iso-cpu";
	args[n++] = cpu;
	args[n++] = "--iso-period";
	args[n++] = per;
	args[n++] = "--log-level";
	args[n++] = "warning";
	if (rate_opt) {
		args[n++] = "--rate-limit";
		args[n++] = "0";
	}
	/* the budget's reaction is measured: the burst guard and the stall
	 * cap (issue 17; isobench --stall) would act first */
	if (isod_has_option(isod, "--burst-ms")) {
		args[n++] = "--burst-ms";
		args[n++] = "0";
		args[n++] = "--stall-ms";
		args[n++] = "0";
	}
	args[n] = NULL;
	return isod_start_private_args(isod, args, err, errlen);
}

/* /proc/PID/schedstat (or task/TID): ns on CPU, or -1 */
static int64_t schedstat_ns(pid_t pid, pid_t tid)
{
	char path[64];
	unsigned long long v;
	FILE *f;
	int ok;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	return ok ? (int64_t)v : -1;
}

static void one_trial(const struct mode_opts *o, int ncpu, int L,
		      struct spin_shared *sh, size_t grid, double max_s,
		      volatile pid_t *child_pid, double *cross, double *react,
		      double *last, double *gap, int *status_out)
{
	struct iso_tunables tun = { (unsigned)L, (unsigned)o->iso_period_s };
	struct iso_budget b;
	uint64_t first_grant = UINT64_MAX, first_dem = UINT64_MAX, last_dem = 0;
	uint64_t first_fifo = 0;
	int first_ours = 0, first_budget = 0;
	int64_t cross_ns = -1;
	pid_t p;
	int st;

	shared_reset(sh, ncpu, grid);
	*status_out = -1;
	p = spin_start(sh, max_s, true, child_pid);
	if (p < 0)
		return;
	if (getenv("ISOBENCH_DEBUG")) {
		g_captr = (size_t)(max_s + 6) * 1000;
		g_tr = g_tr ? g_tr : calloc(g_captr, sizeof(*g_tr));
		g_ntr = 0;
		g_enf_tid = find_enforcer(isod_private_pid());
		g_spin_pid = p;
	}
	st = spin_wait(p, max_s, child_pid);
	if (sh->error[0] || st != 0) {
		*status_out = -2;
		return;
	}
	for (int i = 0; i < ncpu; i++) {
		struct spinner *s = &sh->sp[i];

		if (!s->granted)
			return;
		if (s->grant_ns < first_grant)
			first_grant = s->grant_ns;
		if (!s->demoted)
			continue;
		if (s->demote_ns < first_dem) {
			first_dem = s->demote_ns;
			first_fifo = s->fifo_ns;
			first_ours = s->ours;
			first_budget = s->budget_over;
		}
		if (s->demote_ns > last_dem)
			last_dem = s->demote_ns;
	}
	if (first_dem == UINT64_MAX) {
		*status_out = 0; /* not demoted */
		return;
	}
	if (!first_ours) {
		*status_out = -4; /* its policy changed, but not by our isod */
		return;
	}
	if (!first_budget) {
		*status_out = -5; /* our isod, but its budget was not over */
		return;
	}
	/* the engine's average over what the spinners really got */
	iso_budget_init(&b);
	{
		int k0 = (int)((first_grant - sh->t0_ns) / GRID_NS);
		int kmax = 0;
		uint64_t recent[64] = { 0 };

		for (int i = 0; i < ncpu; i++)
			if (sh->sp[i].last_k > kmax)
				kmax = sh->sp[i].last_k;
		iso_budget_feed(&b, &tun, (int64_t)(sh->t0_ns + (uint64_t)k0 * GRID_NS),
				0, (unsigned)ncpu);
		for (int k = k0 + 1; k <= kmax; k++) {
			uint64_t d = 0;

			for (int i = 0; i < ncpu; i++) {
				struct spinner *s = &sh->sp[i];
				int a = k - 1 < s->last_k ? k - 1 : s->last_k;
				int c = k < s->last_k ? k : s->last_k;

				if ((uint64_t)k * GRID_NS + sh->t0_ns <= s->grant_ns)
					continue;
				d += s->cpu[c] - s->cpu[a];
			}
			iso_budget_feed(&b, &tun,
					(int64_t)(sh->t0_ns + (uint64_t)k * GRID_NS),
					d, (unsigned)ncpu);
			recent[k % 64] = d;
			if (b.usage > (double)L) {
				cross_ns = (int64_t)(sh->t0_ns + (uint64_t)k * GRID_NS);
				break;
			}
		}
		/* demoted before the average of what we saw crossed (isod
		 * ahead of the model: a negative reaction): go on at the rate
		 * of the last 64 ms until it crosses */
		if (cross_ns < 0 && kmax > k0 + 64) {
			uint64_t d = 0;

			for (int i = 0; i < 64; i++)
				d += recent[i];
			d /= 64;
			for (int k = kmax + 1; k < kmax + 100000 && d; k++) {
				iso_budget_feed(&b, &tun,
						(int64_t)(sh->t0_ns + (uint64_t)k * GRID_NS),
						d, (unsigned)ncpu);
				if (b.usage > (double)L) {
					cross_ns = (int64_t)(sh->t0_ns +
							     (uint64_t)k * GRID_NS);
					break;
				}
			}
		}
	}
	if (cross_ns < 0) {
		*status_out = -3; /* no crossing: demoted for another reason */
		cross_ns = (int64_t)first_dem;
	}
	*cross = (double)(cross_ns - (int64_t)first_grant) / 1e9;
	*react = ((double)first_dem - (double)cross_ns) / 1e6;
	/* the spinner saw FIFO last at first_fifo: a large gap means it was
	 * not running when isod demoted it (another task had its CPU) */
	*gap = ((double)first_dem - (double)first_fifo) / 1e6;
	if (g_tr && (*react > 20.0 || *react < -5.0))
		trace_explain(L, *react, first_grant, first_dem,
			      (uint64_t)cross_ns);
	*last = ((double)last_dem - (double)cross_ns) / 1e6;
	if (*status_out == -1)
		*status_out = 1;
}

static void share_run(const struct mode_opts *o, int ncpu, int L,
		      struct spin_shared *sh, size_t grid, double warm_s,
		      volatile pid_t *child_pid, struct level *lv)
{
	pid_t p, comp, parent = getpid();
	int64_t c0, c1, s0 = 0, s1 = 0;
	uint64_t rt0 = 0, rt1 = 0, ot0 = 0, ot1 = 0;
	uint64_t t0, t1;
	double max_s = warm_s + o->window_s + 1.0;

	(void)L;
	shared_reset(sh, ncpu, grid);
	comp = fork();
	if (comp < 0) {
		snprintf(lv->note, sizeof(lv->note), "fork: %s", strerror(errno));
		return;
	}
	if (comp == 0) {
		struct sched_param sp0 = { 0 };
		volatile uint64_t x = 1;

		if (!child_bind_to_parent(parent, SIGKILL))
			_exit(0);
		sched_setscheduler(0, SCHED_OTHER, &sp0);
		setpriority(PRIO_PROCESS, 0, 0);
		alarm((unsigned)max_s + 5);
		for (;;)
			x = x * 6364136223846793005ull + 1;
	}
	p = spin_start(sh, max_s, false, child_pid);
	if (p < 0) {
		kill(comp, SIGKILL);
		waitpid(comp, NULL, 0);
		return;
	}
	bench_sleep_ns((uint64_t)(warm_s * 1e9));
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	c0 = schedstat_ns(comp, 0);
	for (int i = 0; i < ncpu; i++) {
		s0 += schedstat_ns(p, atomic_load(&sh->sp[i].tid));
		rt0 += atomic_load(&sh->sp[i].rt_ns);
		ot0 += atomic_load(&sh->sp[i].other_ns);
	}
	bench_sleep_ns((uint64_t)(o->window_s * 1e9));
	t1 = bench_clock_ns(CLOCK_MONOTONIC);
	c1 = schedstat_ns(comp, 0);
	for (int i = 0; i < ncpu; i++) {
		s1 += schedstat_ns(p, atomic_load(&sh->sp[i].tid));
		rt1 += atomic_load(&sh->sp[i].rt_ns);
		ot1 += atomic_load(&sh->sp[i].other_ns);
	}
	kill(comp, SIGKILL);
	waitpid(comp, NULL, 0);
	spin_wait(p, max_s, child_pid);
	if (sh->error[0]) {
		snprintf(lv->note, sizeof(lv->note), "%s", sh->error);
		return;
	}
	if (c0 < 0 || c1 < 0) {
		snprintf(lv->note, sizeof(lv->note), "cannot read schedstat");
		return;
	}
	lv->window_s = (double)(t1 - t0) / 1e9;
	lv->comp_pct_cpu = 100.0 * (double)(c1 - c0) / (double)(t1 - t0);
	lv->comp_pct_all = lv->comp_pct_cpu / ncpu;
	lv->iso_pct_all = 100.0 * (double)(s1 - s0) / (double)(t1 - t0) / ncpu;
	lv->rt_pct_all = 100.0 * (double)(rt1 - rt0) / (double)(t1 - t0) / ncpu;
	lv->other_pct_all = 100.0 * (double)(ot1 - ot0) / (double)(t1 - t0) / ncpu;
	lv->share_ok = true;
}

static void print_dist_json(const char *key, const struct dist *d)
{
	printf("\"%s\":{", key);
	json_num("min", d->min);
	putchar(',');
	json_num("p50", d->p50);
	putchar(',');
	json_num("p99", d->p99);
	putchar(',');
	json_num("max", d->max);
	putchar(',');
	json_num("mean", d->mean);
	printf(",\"n\":%d}", d->n);
}

int enforcement_main(const struct mode_opts *o, volatile pid_t *child_pid)
{
	long ncpu_l = sysconf(_SC_NPROCESSORS_ONLN);
	int ncpu = ncpu_l < 1 ? 1 : ncpu_l > MAX_SPIN ? MAX_SPIN : (int)ncpu_l;
	struct level *lv = calloc((size_t)o->n_iso_cpu, sizeof(*lv));
	char *isod = isod_find(o->isod_arg);
	struct sched_param sp = { .sched_priority = PARENT_PRIO };
	struct iso_status_info st;
	double sample_ms = 10.0;
	bool rate_opt;
	int rc = 0;

	if (!lv || !isod) {
		fprintf(stderr, "isobench: %s\n",
			!lv ? "out of memory"
			    : "no isod binary found (--isod, $ISOD, next to"
			      " isobench, PATH)");
		free(lv);
		free(isod);
		return 1;
	}
	rate_opt = isod_has_option(isod, "--rate-limit");
	/* read the counters and timestamps on time, whatever spins; the
	 * children start SCHED_OTHER */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		fprintf(stderr, "isobench: warning: cannot run the parent as"
				" SCHED_FIFO %d: %s\n", PARENT_PRIO, strerror(errno));

	for (int li = 0; li < o->n_iso_cpu; li++) {
		struct level *l = &lv[li];
		int L = o->iso_cpu[li];
		double frac = L / 100.0;
		/* the spinners get ~95 % (RT throttling): allow for 90 % */
		double slow = frac < 0.9 ? -log(1.0 - frac / 0.9) : 6.0;
		double max_s = o->iso_period_s * slow + 3.0;
		size_t grid = (size_t)((max_s + 1.0) * 1e9 / GRID_NS) + 2;
		struct spin_shared *sh = shared_new(ncpu, grid);
		double *cross = calloc((size_t)o->trials, sizeof(double));
		double *react = calloc((size_t)o->trials, sizeof(double));
		double *last = calloc((size_t)o->trials, sizeof(double));
		double *react_s = calloc((size_t)o->trials, sizeof(double));
		double *gap = calloc((size_t)o->trials, sizeof(double));
		char err[512] = "";
		int nd = 0;

		g_grid = grid;
		l->iso_cpu = L;
		l->model_cross_s = frac < 1.0 ? -o->iso_period_s * log(1.0 - frac)
					      : INFINITY;
		if (!sh || !cross || !react || !last || !react_s || !gap) {
			fprintf(stderr, "isobench: out of memory\n");
			exit(1);
		}
		for (int t = 0; t < o->trials; t++) {
			int status;
			double c = 0, r = 0, la = 0, g = 0;

			if (start_isod(o, isod, L, rate_opt, err, sizeof(err)) < 0) {
				snprintf(l->note, sizeof(l->note), "isod: %s", err);
				rc = 1;
				break;
			}
			if (iso_status(&st, NULL, 0) >= 0 && st.sample_us)
				sample_ms = st.sample_us / 1000.0;
			one_trial(o, ncpu, L, sh, grid, max_s, child_pid, &c, &r,
				  &la, &g, &status);
			isod_stop_private();
			l->trials++;
			if (status == -2 || status == -1) {
				l->failed++;
				snprintf(l->note, sizeof(l->note), "%s",
					 sh->error[0] ? sh->error
						      : "spinning child failed");
				continue;
			}
			if (status == 0)
				continue; /* never demoted within max_s */
			if (status == -5) {
				l->not_budget++; /* isod demoted, not its budget */
				continue;
			}
			if (status == -4) {
				l->foreign++; /* someone else changed it */
				continue;
			}
			if (status == -3) {
				l->no_cross++; /* demoted, the model never crossed */
				continue;
			}
			cross[nd] = c;
			react[nd] = r;
			last[nd] = la;
			react_s[nd] = r / sample_ms;
			gap[nd] = g;
			nd++;
		}
		l->demoted = nd;
		dist_of(cross, nd, &l->cross_s);
		dist_of(last, nd, &l->last_ms);
		dist_of(react_s, nd, &l->react_samples);
		dist_of(react, nd, &l->react_ms);
		dist_of(gap, nd, &l->gap_ms);
		l->all_react = react; /* sorted by dist_of; freed at the end */
		if (o->window_s > 0 && !l->note[0]) {
			if (start_isod(o, isod, L, rate_opt, err, sizeof(err)) < 0) {
				snprintf(l->note, sizeof(l->note), "isod: %s", err);
				rc = 1;
			} else {
				share_run(o, ncpu, L, sh, grid,
					  o->iso_period_s * slow + 1.0 + 2.0 * o->iso_period_s,
					  child_pid, l);
				isod_stop_private();
			}
		}
		if (l->failed || (l->note[0] && !l->share_ok && o->window_s > 0))
			rc = 1;
		shared_free(sh, ncpu, grid);
		free(cross);
		free(last);
		free(react_s);
		free(gap);
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);

	if (o->json) {
		printf("{\"mode\":\"enforcement\",\"ncpus\":%d,\"spinners\":%d,"
		       "\"iso_period_s\":%d,", ncpu, ncpu, o->iso_period_s);
		json_num("sample_ms", sample_ms);
		printf(",\"trials\":%d,", o->trials);
		json_num("window_s", o->window_s);
		printf(",\"levels\":[");
		for (int li = 0; li < o->n_iso_cpu; li++) {
			struct level *l = &lv[li];

			printf("%s{\"iso_cpu\":%d,\"trials\":%d,\"demoted\":%d,"
			       "\"failed\":%d,\"no_crossing\":%d,\"foreign\":%d,"
			       "\"not_budget\":%d,",
			       li ? "," : "", l->iso_cpu, l->trials, l->demoted,
			       l->failed, l->no_cross, l->foreign, l->not_budget);
			json_num("model_crossing_s", l->model_cross_s);
			putchar(',');
			print_dist_json("crossing_s", &l->cross_s);
			putchar(',');
			print_dist_json("reaction_ms", &l->react_ms);
			putchar(',');
			print_dist_json("reaction_samples", &l->react_samples);
			putchar(',');
			print_dist_json("last_demotion_ms", &l->last_ms);
			putchar(',');
			print_dist_json("poll_gap_ms", &l->gap_ms);
			printf(",\"reactions_ms\":[");
			for (int i = 0; i < l->react_ms.n; i++)
				printf("%s%.3f", i ? "," : "", l->all_react[i]);
			putchar(']');
			if (l->share_ok) {
				printf(",\"share\":{");
				json_num("window_s", l->window_s);
				putchar(',');
				json_num("competitor_pct_of_cpu", l->comp_pct_cpu);
				putchar(',');
				json_num("competitor_pct_of_all", l->comp_pct_all);
				putchar(',');
				json_num("iso_threads_pct_of_all", l->iso_pct_all);
				putchar(',');
				json_num("iso_threads_rt_pct_of_all", l->rt_pct_all);
				putchar(',');
				json_num("iso_threads_demoted_pct_of_all",
					 l->other_pct_all);
				putchar(',');
				json_num("left_to_normal_pct_of_all",
					 100.0 - l->rt_pct_all);
				putchar('}');
			} else {
				printf(",\"share\":null");
			}
			printf(",\"note\":");
			json_string(l->note);
			putchar('}');
		}
		printf("]}\n");
	} else {
		printf("isobench --enforcement: %d CPUs, a runaway ISO_FIFO thread"
		       " per CPU (user nobody), iso_period %d s, isod samples"
		       " every %.1f ms, %d trials per iso_cpu\n",
		       ncpu, o->iso_period_s, sample_ms, o->trials);
		printf("reaction = first demotion seen by a spinner - the budget"
		       " crossing (libisocore's average of the spinners' CPU"
		       " time)\n");
		printf("%-7s %8s %9s %9s | %-31s | %-23s | %s\n", "", "", "model",
		       "measured", "reaction ms", "reaction in samples",
		       "poll gap");
		printf("%-7s %8s %9s %9s | %7s %7s %7s %7s | %5s %5s %5s %5s |"
		       " %7s\n",
		       "iso_cpu", "demoted", "cross_s", "cross_s", "min", "p50",
		       "p99", "max", "min", "p50", "p99", "max", "max ms");
		for (int li = 0; li < o->n_iso_cpu; li++) {
			struct level *l = &lv[li];

			printf("%-7d %4d/%-3d %9.3f %9.3f | %7.1f %7.1f %7.1f %7.1f |"
			       " %5.2f %5.2f %5.2f %5.2f | %7.2f\n",
			       l->iso_cpu, l->demoted, l->trials, l->model_cross_s,
			       l->cross_s.p50, l->react_ms.min, l->react_ms.p50,
			       l->react_ms.p99, l->react_ms.max,
			       l->react_samples.min, l->react_samples.p50,
			       l->react_samples.p99, l->react_samples.max,
			       l->gap_ms.max);
		}
		if (o->window_s > 0) {
			printf("\nCPU left to a SCHED_OTHER competitor (nice 0) under"
			       " the runaway, %.1f s window after the warm-up:\n",
			       o->window_s);
			printf("%-7s %16s %16s %16s %16s %16s\n", "iso_cpu",
			       "competitor %cpu", "competitor %all",
			       "runaway RT %all", "runaway SO %all",
			       "left normal %all");
			for (int li = 0; li < o->n_iso_cpu; li++) {
				struct level *l = &lv[li];

				if (!l->share_ok)
					continue;
				printf("%-7d %16.1f %16.1f %16.1f %16.1f %16.1f\n",
				       l->iso_cpu, l->comp_pct_cpu, l->comp_pct_all,
				       l->rt_pct_all, l->other_pct_all,
				       100.0 - l->rt_pct_all);
			}
		}
		for (int li = 0; li < o->n_iso_cpu; li++)
			if (lv[li].not_budget)
				printf("note: iso_cpu %d: %d trial%s left out: isod"
				       " demoted the spinners while its budget was"
				       " not over iso_cpu (its watchdog?)\n",
				       lv[li].iso_cpu, lv[li].not_budget,
				       lv[li].not_budget == 1 ? "" : "s");
		for (int li = 0; li < o->n_iso_cpu; li++)
			if (lv[li].foreign)
				printf("note: iso_cpu %d: %d trial%s left out: the"
				       " spinner's policy changed but our isod did"
				       " not demote it (another program on the"
				       " machine)\n", lv[li].iso_cpu, lv[li].foreign,
				       lv[li].foreign == 1 ? "" : "s");
		for (int li = 0; li < o->n_iso_cpu; li++)
			if (lv[li].no_cross)
				printf("note: iso_cpu %d: %d trial%s demoted although"
				       " the model never crossed (left out)\n",
				       lv[li].iso_cpu, lv[li].no_cross,
				       lv[li].no_cross == 1 ? "" : "s");
		for (int li = 0; li < o->n_iso_cpu; li++)
			if (lv[li].note[0])
				printf("note: iso_cpu %d: %s\n", lv[li].iso_cpu,
				       lv[li].note);
	}
	for (int li = 0; li < o->n_iso_cpu; li++)
		if (lv[li].note[0] && o->json)
			fprintf(stderr, "isobench: iso_cpu %d: %s\n",
				lv[li].iso_cpu, lv[li].note);
	for (int li = 0; li < o->n_iso_cpu; li++)
		free(lv[li].all_react);
	free(lv);
	free(isod);
	return rc;
}
