/* measure.c — the measuring side: calibrated busy work, and per policy run
 * one child process with N periodic threads.
 *
 * Each thread sleeps to absolute CLOCK_MONOTONIC deadlines
 * (clock_nanosleep TIMER_ABSTIME), records the wakeup latency (time of
 * wakeup minus the deadline), then does work_pct % of a period of
 * calibrated busy work. A miss ("xrun") is a cycle whose work ends after
 * the next deadline; if even the deadline after that has passed, the
 * periods skipped over count as misses too (those before the run's end)
 * and the schedule moves on to the next boundary still ahead (as an audio
 * engine would drop buffers).
 *
 * The child is bounded: alarm(), RLIMIT_RTTIME, PR_SET_PDEATHSIG, and the
 * parent SIGKILLs it on a timeout. For the iso modes it drops privileges to
 * nobody (65534) when run as root and asks isod for ISO through
 * libisosched; memory is locked (as root, before the drop) in every mode
 * so that only the scheduling differs: everything the threads touch,
 * their stacks too (lock_before_drop), and nothing allocated later. */
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

#include "bench.h"
#include "common/child.h"
#include "common/clock.h"
#include "latency.h"
#include "isosched.h"

#define STACK_SIZE (256 * 1024)

/* ---- the run child ----------------------------------------------------------- */

struct shared_run {
	atomic_int failed;
	atomic_flag error_taken;
	char error[256];
	int kernel_policy, kernel_prio;
	int band_lo, band_hi;
	uint64_t samples, misses, policy_lost;
	uint64_t on_pinned_cpu;
	int pinned_cpu;
	int finished;
	struct hist hist;
};

struct worker {
	pthread_t th;
	struct run_ctx *ctx;
	int index;
	uint64_t samples, misses, lost;
	uint64_t on_pinned_cpu; /* samples taken on pinned_cpu (all, unless the pin failed) */
	int pinned_cpu;         /* -1: not pinned */
	int kpol, kprio;
	struct hist hist;
};

/* What the measuring threads of the child share (its stack): no globals. */
struct run_ctx {
	const struct bench_config *cfg;
	enum bench_policy pol;
	struct shared_run *sh;
	pthread_barrier_t bar;
	uint64_t start_ns; /* set between the two barrier waits */
	cpu_set_t allowed; /* the child's CPUs, as it was started */
	int nallowed;
};

static void set_error(struct shared_run *sh, const char *fmt, const char *a, const char *b)
{
	atomic_store(&sh->failed, 1);
	if (atomic_flag_test_and_set(&sh->error_taken))
		return;
	snprintf(sh->error, sizeof(sh->error), fmt, a, b);
}

/* dl: the kernel's SCHED_DEADLINE, as root sets it (RESET_ON_FORK as
 * isod's reservations have it); iso-dl: the same parameters from isod */
static int apply_deadline(struct worker *w)
{
	const struct bench_config *cfg = w->ctx->cfg;
	uint64_t runtime = policy_dl_runtime_ns(cfg->period_ns, cfg->work_pct);
	int r;

	if (w->ctx->pol == POL_DL) {
		r = bench_set_deadline(runtime, cfg->period_ns, cfg->period_ns);
		if (r == 0)
			return 0;
		set_error(w->ctx->sh, "sched_setattr(SCHED_DEADLINE): %s%s", strerror(-r), "");
		return -1;
	}
	r = iso_set_reservation(0, runtime, cfg->period_ns, 0, NULL);
	if (r < 0) {
		set_error(w->ctx->sh, "iso_set_reservation: %s: %s", strerror(-r), iso_last_error());
		return -1;
	}
	return 0;
}

static int apply_policy(struct worker *w)
{
	const enum bench_policy pol = w->ctx->pol;
	struct sched_param sp = { .sched_priority = w->ctx->cfg->rt_prio };
	struct iso_thread_info info;
	int r;

	switch (pol) {
	case POL_NORMAL:
		break;
	case POL_NORMAL_NICE20:
		if (setpriority(PRIO_PROCESS, (id_t)gettid(), -20) < 0) {
			set_error(w->ctx->sh, "setpriority(-20): %s%s", strerror(errno), "");
			return -1;
		}
		break;
	case POL_FIFO:
	case POL_RR:
		r = pthread_setschedparam(pthread_self(),
					  pol == POL_FIFO ? SCHED_FIFO : SCHED_RR,
					  &sp);
		if (r) {
			set_error(w->ctx->sh, "pthread_setschedparam: %s%s", strerror(r), "");
			return -1;
		}
		break;
	case POL_ISO:
	case POL_ISO_RR:
		r = iso_set_thread(0,
				   pol == POL_ISO ? ISO_SCHED_ISO_FIFO
						    : ISO_SCHED_ISO_RR,
				   BENCH_PRIO, 0, &info);
		if (r < 0) {
			set_error(w->ctx->sh, "iso_set_thread: %s: %s", strerror(-r),
				  iso_last_error());
			return -1;
		}
		break;
	case POL_DL:
	case POL_ISO_DL:
		if (apply_deadline(w) < 0)
			return -1;
		break;
	default:
		return -1;
	}
	w->kpol = bench_kernel_policy();
	if (sched_getparam(0, &sp) == 0)
		w->kprio = sp.sched_priority;
	if (w->kpol != policy_kernel(pol)) {
		char got[32];

		snprintf(got, sizeof(got), "%d", w->kpol);
		set_error(w->ctx->sh, "thread runs as kernel policy %s, not %s", got,
			  pol == POL_ISO || pol == POL_FIFO ? "SCHED_FIFO"
			  : pol == POL_RR || pol == POL_ISO_RR ? "SCHED_RR"
			  : policy_is_deadline(pol) ? "SCHED_DEADLINE"
			  : "SCHED_OTHER");
		return -1;
	}
	return 0;
}

/* The i-th CPU (mod their count) of the set, or -1. */
static int nth_cpu(const cpu_set_t *set, int count, int i)
{
	if (count <= 0)
		return -1;
	i %= count;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && i-- == 0)
			return c;
	return -1;
}

/* Where the thread runs: in round k, thread i on the (k + i)-th of the
 * child's CPUs, for every policy alike, as cyclictest's -a pins its
 * threads. On a shared VM the CPUs differ (interrupts, the host, which
 * CPU the load's memory toucher is on: 27 against 44 µs p50 here, and
 * which one is slow changes), and left to the kernel the threads did not
 * stay put alike: an ISO thread left its CPU right after its grant (isod's
 * threads run above the band, on its CPU just then) and ran on the other
 * one round after round, FIFO's stayed — so an unplaced comparison
 * measured the CPU, not the policy. Pinned, isod's work on the thread's
 * CPU preempts it where it is: what the ratio is meant to show. */
static void place(struct worker *w)
{
	struct run_ctx *ctx = w->ctx;
	cpu_set_t one;

	/* a DEADLINE thread must be free to run on its whole root domain
	 * (the kernel refuses the policy to a pinned one): dl and iso-dl
	 * run where the kernel's EDF places them, and say so (cpu -1) */
	w->pinned_cpu = -1;
	if (policy_is_deadline(ctx->pol))
		return;
	w->pinned_cpu = nth_cpu(&ctx->allowed, ctx->nallowed, ctx->cfg->round + w->index);
	if (w->pinned_cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(w->pinned_cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		w->pinned_cpu = -1;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run_ctx *ctx = w->ctx;
	const uint64_t period = ctx->cfg->period_ns, loops = ctx->cfg->work_loops;
	const int want = policy_kernel(ctx->pol);
	uint64_t next, end, now, done;
	struct timespec ts;

	place(w);
	apply_policy(w);
	pthread_barrier_wait(&ctx->bar);
	pthread_barrier_wait(&ctx->bar); /* ctx->start_ns is set in between */
	if (atomic_load(&ctx->sh->failed))
		return NULL;
	next = ctx->start_ns;
	end = ctx->start_ns + (uint64_t)(ctx->cfg->duration_s * 1e9);
	while (next < end) {
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		now = bench_clock_ns(CLOCK_MONOTONIC);
		hist_add(&w->hist, now > next ? now - next : 0);
		w->samples++;
		w->on_pinned_cpu += sched_getcpu() == w->pinned_cpu;
		busy_work(loops);
		done = bench_clock_ns(CLOCK_MONOTONIC);
		next += period; /* this cycle's deadline, the next wakeup */
		if (done > next) {
			w->misses++;
			if (done >= next + period) {
				uint64_t k = (done - next) / period;
				/* only the skipped wake-ups before the run's end
				 * are its misses: a stall past the end is not the
				 * run's (a 143 ms one at the end of a 0.2 s round
				 * counted 107 periods the round never had) */
				uint64_t left = next < end ? (end - next + period - 1) / period : 0;

				w->misses += k < left ? k : left;
				next += k * period;
			}
		}
		if ((w->samples & 127) == 0 && bench_kernel_policy() != want)
			w->lost++;
	}
	return NULL;
}

/* The workers' stacks, mapped by the child before it locks its memory:
 * each STACK_SIZE, below it a guard page. */
static void *map_stacks(int n)
{
	size_t one = STACK_SIZE + (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, one * (size_t)n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	for (int i = 0; i < n; i++)
		(void)mprotect(p + one * (size_t)i, one - STACK_SIZE, PROT_NONE);
	return p;
}

static void *stack_of(void *stacks, int i)
{
	size_t one = STACK_SIZE + (size_t)sysconf(_SC_PAGESIZE);

	return (char *)stacks + one * (size_t)i + (one - STACK_SIZE);
}

/* Lock what the run uses, as root, before an iso mode drops to nobody:
 * MCL_CURRENT only. MCL_FUTURE would lock every later mapping too, and
 * after the drop each one is checked against nobody's RLIMIT_MEMLOCK
 * (8 MiB by default) with all that root locked counted already: with
 * libjack and libpipewire linked in that was over the limit, and every
 * pthread_create failed with EAGAIN (its stack's mmap). Raising the
 * limit first needs CAP_SYS_RESOURCE, which a confined root may lack. So
 * the stacks are mapped before the lock (map_stacks) and nothing the
 * workers touch is mapped after it. */
static void lock_before_drop(void)
{
	if (geteuid() == 0)
		(void)mlockall(MCL_CURRENT);
}

static _Noreturn void run_child(pid_t parent, const struct bench_config *cfg,
				 enum bench_policy pol, struct shared_run *sh)
{
	struct run_ctx ctx = { .cfg = cfg, .pol = pol, .sh = sh };
	uint64_t rt_us = 2 * cfg->period_ns / 1000 + 200000;
	struct rlimit rl = { rt_us, rt_us + 1000000 };
	struct worker *ws;
	void *stacks;
	pthread_attr_t attr;
	int n = cfg->threads, started = 0;

	if (!child_bind_to_parent(parent, SIGKILL))
		_exit(1);
	alarm((unsigned)cfg->duration_s + 20);
	/* a thread running RT without blocking for long gets SIGXCPU/SIGKILL */
	setrlimit(RLIMIT_RTTIME, &rl);

	ws = calloc((size_t)n, sizeof(*ws));
	if (!ws) {
		set_error(sh, "out of memory%s%s", "", "");
		_exit(1);
	}
	if (sched_getaffinity(0, sizeof(ctx.allowed), &ctx.allowed) == 0)
		ctx.nallowed = CPU_COUNT(&ctx.allowed);
	for (int i = 0; i < n; i++) {
		ws[i].index = i;
		ws[i].ctx = &ctx;
		ws[i].kpol = -1;
		hist_init(&ws[i].hist); /* also faults the pages in */
	}
	stacks = map_stacks(n);
	if (!stacks) {
		set_error(sh, "mmap of the stacks: %s%s", strerror(errno), "");
		_exit(1);
	}
	lock_before_drop();
	if (policy_is_iso(pol) && geteuid() == 0) {
		int r = bench_drop_to_nobody();

		if (r < 0) {
			set_error(sh, "dropping privileges to uid %s: %s", "65534",
				  strerror(-r));
			_exit(1);
		}
		/* a credential change clears the parent-death signal */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
	}

	pthread_barrier_init(&ctx.bar, NULL, (unsigned)n + 1);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
	for (; started < n; started++) {
		int r = pthread_attr_setstack(&attr, stack_of(stacks, started), STACK_SIZE);

		if (!r)
			r = pthread_create(&ws[started].th, &attr, worker_main, &ws[started]);
		if (r) {
			set_error(sh, "pthread_create: %s%s", strerror(r), "");
			/* the barrier counts n + 1: can't release the others
			 * cleanly; the exit below takes them all */
			_exit(1);
		}
	}
	pthread_barrier_wait(&ctx.bar);
	/* start on a clean boundary a little ahead, all threads in phase */
	ctx.start_ns = bench_clock_ns(CLOCK_MONOTONIC) + 20000000ull;
	pthread_barrier_wait(&ctx.bar);
	for (int i = 0; i < n; i++)
		pthread_join(ws[i].th, NULL);

	for (int i = 0; i < n; i++) {
		hist_merge(&sh->hist, &ws[i].hist);
		sh->samples += ws[i].samples;
		sh->misses += ws[i].misses;
		sh->policy_lost += ws[i].lost;
		sh->on_pinned_cpu += ws[i].on_pinned_cpu;
	}
	sh->pinned_cpu = ws[0].pinned_cpu;
	sh->kernel_policy = ws[0].kpol;
	sh->kernel_prio = ws[0].kprio;
	if (policy_is_iso(pol)) {
		struct iso_status_info st;

		if (iso_status(&st, NULL, 0) >= 0) {
			sh->band_lo = st.band_lo;
			sh->band_hi = st.band_hi;
		}
	}
	sh->finished = 1;
	_exit(atomic_load(&sh->failed) ? 1 : 0);
}

void run_policy(const struct bench_config *cfg, enum bench_policy pol,
		struct bench_result *res)
{
	struct shared_run *sh;
	pid_t parent = getpid(), p;
	int status = 0;
	bool timed_out;

	res->policy = pol;
	res->state = RUN_FAILED;
	res->note[0] = '\0';
	res->kernel_policy = res->kernel_prio = -1;
	res->iso_band_lo = res->iso_band_hi = 0;
	hist_init(res->hist);

	sh = shm_new(sizeof(*sh));
	if (!sh) {
		snprintf(res->note, sizeof(res->note), "mmap: %s",
			 strerror(errno));
		return;
	}
	atomic_init(&sh->failed, 0);
	atomic_flag_clear(&sh->error_taken);
	hist_init(&sh->hist);

	fflush(NULL);
	p = fork();
	if (p < 0) {
		snprintf(res->note, sizeof(res->note), "fork: %s",
			 strerror(errno));
		shm_free(sh, sizeof(*sh));
		return;
	}
	if (p == 0)
		run_child(parent, cfg, pol, sh);
	child_track(p);
	timed_out = child_wait(p, bench_clock_ns(CLOCK_MONOTONIC) +
				       (uint64_t)((cfg->duration_s + 15.0) * 1e9),
			       20000000ull, NULL, NULL, &status) < 0;

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
		res->pinned_cpu = sh->pinned_cpu;
		res->on_pinned_cpu = sh->on_pinned_cpu;
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
	shm_free(sh, sizeof(*sh));
}
