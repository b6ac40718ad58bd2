/* measure.c — the measuring side: calibrated busy work, and per policy run
 * one child process with N periodic threads.
 *
 * Each thread sleeps to absolute CLOCK_MONOTONIC deadlines
 * (clock_nanosleep TIMER_ABSTIME), records the wakeup latency (time of
 * wakeup minus the deadline), then does work_pct % of a period of
 * calibrated busy work. A miss ("xrun") is a cycle whose work ends after
 * the next deadline; if even the deadline after that has passed, the
 * periods skipped over count as misses too and the schedule moves on to
 * the next boundary still ahead (as an audio engine would drop buffers).
 *
 * The child is bounded: alarm(), RLIMIT_RTTIME, PR_SET_PDEATHSIG, and the
 * parent SIGKILLs it on a timeout. For the iso modes it drops privileges to
 * nobody (65534) when run as root and asks isod for ISO through
 * libisosched; memory is locked (as root, before the drop) in every mode
 * so that only the scheduling differs. */
#include <errno.h>
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
#include <grp.h>

#include "bench.h"
#include "isosched.h"

#define STACK_SIZE (256 * 1024)

/* ---- policies ------------------------------------------------------------ */

static const char *const names[POL_COUNT] = {
	[POL_NORMAL] = "normal",   [POL_NORMAL_NICE20] = "normal-nice-20",
	[POL_FIFO] = "fifo",       [POL_RR] = "rr",
	[POL_ISO] = "iso",         [POL_ISO_RR] = "iso-rr",
};

const char *policy_name(enum bench_policy p)
{
	return (unsigned)p < POL_COUNT ? names[p] : "?";
}

int policy_parse(const char *name)
{
	for (int i = 0; i < POL_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

bool policy_needs_root(enum bench_policy p)
{
	return p == POL_NORMAL_NICE20 || p == POL_FIFO || p == POL_RR;
}

bool policy_is_iso(enum bench_policy p)
{
	return p == POL_ISO || p == POL_ISO_RR;
}

static int expected_kernel_policy(enum bench_policy p)
{
	switch (p) {
	case POL_FIFO:
	case POL_ISO:
		return SCHED_FIFO;
	case POL_RR:
	case POL_ISO_RR:
		return SCHED_RR;
	default:
		return SCHED_OTHER;
	}
}

/* ---- time and work --------------------------------------------------------- */

int bench_kernel_policy(void)
{
	int p = sched_getscheduler(0);

	return p < 0 ? p : p & ~SCHED_RESET_ON_FORK;
}

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

/* ---- the run child ----------------------------------------------------------- */

struct shared_run {
	atomic_int failed;
	atomic_flag error_taken;
	char error[256];
	int kernel_policy, kernel_prio;
	int band_lo, band_hi;
	uint64_t samples, misses, policy_lost;
	int finished;
	struct hist hist;
};

struct worker {
	pthread_t th;
	int index;
	uint64_t samples, misses, lost;
	int kpol, kprio;
	struct hist hist;
};

static const struct bench_config *g_cfg;
static enum bench_policy g_pol;
static struct shared_run *g_sh;
static pthread_barrier_t g_bar;
static uint64_t g_start_ns;

static void set_error(const char *fmt, const char *a, const char *b)
{
	atomic_store(&g_sh->failed, 1);
	if (atomic_flag_test_and_set(&g_sh->error_taken))
		return;
	snprintf(g_sh->error, sizeof(g_sh->error), fmt, a, b);
}

static int apply_policy(struct worker *w)
{
	struct sched_param sp = { .sched_priority = g_cfg->rt_prio };
	struct iso_thread_info info;
	int r;

	switch (g_pol) {
	case POL_NORMAL:
		break;
	case POL_NORMAL_NICE20:
		if (setpriority(PRIO_PROCESS, (id_t)gettid(), -20) < 0) {
			set_error("setpriority(-20): %s%s", strerror(errno), "");
			return -1;
		}
		break;
	case POL_FIFO:
	case POL_RR:
		r = pthread_setschedparam(pthread_self(),
					  g_pol == POL_FIFO ? SCHED_FIFO : SCHED_RR,
					  &sp);
		if (r) {
			set_error("pthread_setschedparam: %s%s", strerror(r), "");
			return -1;
		}
		break;
	case POL_ISO:
	case POL_ISO_RR:
		r = iso_set_thread(0,
				   g_pol == POL_ISO ? ISO_SCHED_ISO_FIFO
						    : ISO_SCHED_ISO_RR,
				   BENCH_PRIO, 0, &info);
		if (r < 0) {
			set_error("iso_set_thread: %s: %s", strerror(-r),
				  iso_last_error());
			return -1;
		}
		break;
	default:
		return -1;
	}
	w->kpol = bench_kernel_policy();
	if (sched_getparam(0, &sp) == 0)
		w->kprio = sp.sched_priority;
	if (w->kpol != expected_kernel_policy(g_pol)) {
		char got[32];

		snprintf(got, sizeof(got), "%d", w->kpol);
		set_error("thread runs as kernel policy %s, not %s", got,
			  g_pol == POL_ISO || g_pol == POL_FIFO ? "SCHED_FIFO"
			  : g_pol == POL_RR || g_pol == POL_ISO_RR ? "SCHED_RR"
			  : "SCHED_OTHER");
		return -1;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const uint64_t period = g_cfg->period_ns, loops = g_cfg->work_loops;
	const int want = expected_kernel_policy(g_pol);
	uint64_t next, end, now, done;
	struct timespec ts;

	apply_policy(w);
	pthread_barrier_wait(&g_bar);
	pthread_barrier_wait(&g_bar); /* g_start_ns is set in between */
	if (atomic_load(&g_sh->failed))
		return NULL;
	next = g_start_ns;
	end = g_start_ns + (uint64_t)(g_cfg->duration_s * 1e9);
	while (next < end) {
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		now = bench_clock_ns(CLOCK_MONOTONIC);
		hist_add(&w->hist, now > next ? now - next : 0);
		w->samples++;
		busy_work(loops);
		done = bench_clock_ns(CLOCK_MONOTONIC);
		next += period; /* this cycle's deadline, the next wakeup */
		if (done > next) {
			w->misses++;
			if (done >= next + period) {
				uint64_t k = (done - next) / period;

				w->misses += k;
				next += k * period;
			}
		}
		if ((w->samples & 127) == 0 && bench_kernel_policy() != want)
			w->lost++;
	}
	return NULL;
}

static _Noreturn void run_child(pid_t parent)
{
	uint64_t rt_us = 2 * g_cfg->period_ns / 1000 + 200000;
	struct rlimit rl = { rt_us, rt_us + 1000000 };
	struct worker *ws;
	pthread_attr_t attr;
	int n = g_cfg->threads, started = 0;

	if (!child_bind_to_parent(parent, SIGKILL))
		_exit(1);
	alarm((unsigned)g_cfg->duration_s + 20);
	/* a thread running RT without blocking for long gets SIGXCPU/SIGKILL */
	setrlimit(RLIMIT_RTTIME, &rl);

	ws = calloc((size_t)n, sizeof(*ws));
	if (!ws) {
		set_error("out of memory%s%s", "", "");
		_exit(1);
	}
	for (int i = 0; i < n; i++) {
		ws[i].index = i;
		ws[i].kpol = -1;
		hist_init(&ws[i].hist); /* also faults the pages in */
	}
	if (geteuid() == 0) {
		struct rlimit ml = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_MEMLOCK, &ml);
		(void)mlockall(MCL_CURRENT | MCL_FUTURE);
	}
	if (policy_is_iso(g_pol) && geteuid() == 0) {
		if (bench_drop_to_nobody() < 0) {
			set_error("dropping privileges to uid %s: %s", "65534",
				  strerror(errno));
			_exit(1);
		}
		/* a credential change clears the parent-death signal */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
	}

	pthread_barrier_init(&g_bar, NULL, (unsigned)n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
	for (; started < n; started++) {
		int r = pthread_create(&ws[started].th, &attr, worker_main,
				       &ws[started]);
		if (r) {
			set_error("pthread_create: %s%s", strerror(r), "");
			/* the barrier counts n + 1: can't release the others
			 * cleanly; the exit below takes them all */
			_exit(1);
		}
	}
	pthread_barrier_wait(&g_bar);
	/* start on a clean boundary a little ahead, all threads in phase */
	g_start_ns = bench_clock_ns(CLOCK_MONOTONIC) + 20000000ull;
	pthread_barrier_wait(&g_bar);
	for (int i = 0; i < n; i++)
		pthread_join(ws[i].th, NULL);

	for (int i = 0; i < n; i++) {
		hist_merge(&g_sh->hist, &ws[i].hist);
		g_sh->samples += ws[i].samples;
		g_sh->misses += ws[i].misses;
		g_sh->policy_lost += ws[i].lost;
	}
	g_sh->kernel_policy = ws[0].kpol;
	g_sh->kernel_prio = ws[0].kprio;
	if (policy_is_iso(g_pol)) {
		struct iso_status_info st;

		if (iso_status(&st, NULL, 0) >= 0) {
			g_sh->band_lo = st.band_lo;
			g_sh->band_hi = st.band_hi;
		}
	}
	g_sh->finished = 1;
	_exit(atomic_load(&g_sh->failed) ? 1 : 0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void run_policy(const struct bench_config *cfg, enum bench_policy pol,
		struct bench_result *res, volatile pid_t *child_pid)
{
	struct shared_run *sh;
	pid_t parent = getpid(), p;
	uint64_t deadline;
	int status = 0;
	bool timed_out = false;

	res->policy = pol;
	res->state = RUN_FAILED;
	res->note[0] = '\0';
	res->kernel_policy = res->kernel_prio = -1;
	res->iso_band_lo = res->iso_band_hi = 0;
	hist_init(res->hist);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		snprintf(res->note, sizeof(res->note), "mmap: %s",
			 strerror(errno));
		return;
	}
	memset(sh, 0, sizeof(*sh));
	atomic_init(&sh->failed, 0);
	atomic_flag_clear(&sh->error_taken);
	hist_init(&sh->hist);
	g_cfg = cfg;
	g_pol = pol;
	g_sh = sh;

	fflush(NULL);
	p = fork();
	if (p < 0) {
		snprintf(res->note, sizeof(res->note), "fork: %s",
			 strerror(errno));
		munmap(sh, sizeof(*sh));
		return;
	}
	if (p == 0)
		run_child(parent);
	*child_pid = p;

	deadline = bench_clock_ns(CLOCK_MONOTONIC) +
		   (uint64_t)((cfg->duration_s + 15.0) * 1e9);
	for (;;) {
		int r = child_reap(p, deadline, &status);

		timed_out = r < 0;
		if (r)
			break;
		sleep_ms(20);
	}
	*child_pid = 0;

	if (sh->error[0]) {
		snprintf(res->note, sizeof(res->note), "%s", sh->error);
	} else if (timed_out) {
		snprintf(res->note, sizeof(res->note),
			 "measuring child timed out and was killed");
	} else if (WIFSIGNALED(status)) {
		snprintf(res->note, sizeof(res->note),
			 "measuring child killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) || !sh->finished) {
		snprintf(res->note, sizeof(res->note),
			 "measuring child failed (status %d)", status);
	} else {
		res->state = RUN_OK;
		res->samples = sh->samples;
		res->misses = sh->misses;
		res->policy_lost = sh->policy_lost;
		res->kernel_policy = sh->kernel_policy;
		res->kernel_prio = sh->kernel_prio;
		res->iso_band_lo = sh->band_lo;
		res->iso_band_hi = sh->band_hi;
		hist_merge(res->hist, &sh->hist);
		if (!res->samples) {
			res->state = RUN_FAILED;
			snprintf(res->note, sizeof(res->note), "no samples");
		}
	}
	munmap(sh, sizeof(*sh));
}
