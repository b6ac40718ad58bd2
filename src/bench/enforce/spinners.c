/* spinners.c — the runaway of --enforcement: one process of user nobody
 * with a spinning thread per online CPU. Each spinner asks for ISO_FIFO,
 * spins, and polls its own kernel policy between short stretches of work;
 * it records its own CPU time on a 1 ms grid and the moment it sees
 * SCHED_OTHER (the demotion) — or, in a share run, its CPU time while
 * SCHED_FIFO and while demoted.
 *
 * Every spinner is bounded: it stops at its demotion or at a deadline,
 * RLIMIT_RTTIME, alarm(), PR_SET_PDEATHSIG, and the parent's SIGKILL. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common/child.h"
#include "common/clock.h"
#include "isosched.h"
#include "spin.h"

struct spin_arg {
	struct spin_shared *sh;
	struct spinner *s;
};

static void spin_error(struct spin_shared *sh, const char *fmt, const char *a)
{
	if (atomic_flag_test_and_set(&sh->error_taken))
		return;
	snprintf(sh->error, sizeof(sh->error), fmt, a);
}

/* the spinner sees SCHED_OTHER: by our isod's budget, or by something else? */
static void note_demotion(struct spinner *s, uint64_t now, int pol)
{
	struct iso_thread_info info;
	struct iso_status_info st;

	s->demote_ns = now;
	s->demoted = 1;
	s->seen_policy = pol;
	s->ours = iso_get_thread(0, &info) >= 0 &&
		  (info.flags & ISO_THREAD_DEMOTED);
	if (iso_status(&st, NULL, 0) >= 0) {
		s->budget_over = st.refractory != 0;
		s->usage_milli = st.usage_milli;
	}
}

/* granted ISO_FIFO (retrying a rate limit, uncounted) and so run: 0 or -1 */
static int get_iso(struct spin_shared *sh, struct spinner *s)
{
	int r;

	for (;;) {
		r = iso_set_thread(0, ISO_SCHED_ISO_FIFO, BENCH_PRIO, 0, NULL);
		if (r != -EAGAIN)
			break;
		bench_sleep_ns(10000000);
	}
	if (r < 0) {
		spin_error(sh, "iso_set_thread: %s", strerror(-r));
		s->failed = 1;
		return -1;
	}
	s->grant_ns = bench_clock_ns(CLOCK_MONOTONIC);
	r = bench_kernel_policy();
	if (r != SCHED_FIFO) {
		char pol[16];

		snprintf(pol, sizeof(pol), "%d", r);
		spin_error(sh, "granted, but the kernel runs the thread as policy"
			       " %s", pol);
		s->failed = 1;
		return -1;
	}
	s->granted = 1;
	return 0;
}

static void *spinner_main(void *arg)
{
	struct spin_shared *sh = ((struct spin_arg *)arg)->sh;
	struct spinner *s = ((struct spin_arg *)arg)->s;
	const int last = (int)sh->grid - 1;
	uint64_t cpu0, now, cpu, prev = 0;
	int k;

	atomic_store(&s->tid, (int)gettid());
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		bench_sleep_ns(200000);
	if (get_iso(sh, s) < 0)
		return NULL;
	cpu0 = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	k = (int)((s->grant_ns - sh->t0_ns) / GRID_NS);
	for (int i = 0; i <= k && i <= last; i++)
		s->cpu[i] = 0;
	s->last_k = k;
	for (;;) {
		now = bench_clock_ns(CLOCK_MONOTONIC);
		cpu = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		k = (int)((now - sh->t0_ns) / GRID_NS);
		if (k > last)
			k = last;
		/* steps we did not see (preempted) got no CPU: fill forward */
		while (s->last_k < k)
			s->cpu[++s->last_k] = cpu;
		if (sh->until_demoted) {
			int pol = bench_kernel_policy();

			if (pol != SCHED_FIFO) {
				note_demotion(s, now, pol);
				break;
			}
			s->fifo_ns = now;
		} else {
			_Atomic uint64_t *to = bench_kernel_policy() == SCHED_FIFO
						       ? &s->rt_ns : &s->other_ns;

			atomic_fetch_add_explicit(to, cpu - prev, memory_order_relaxed);
			prev = cpu;
		}
		if (now >= sh->stop_ns)
			break;
		busy_work(200); /* well below a microsecond */
	}
	return NULL;
}

static _Noreturn void spin_child(struct spin_shared *sh, pid_t parent, double max_s)
{
	uint64_t rt_us = (uint64_t)((max_s + 2.0) * 1e6);
	pthread_t th[MAX_SPIN];
	struct spin_arg args[MAX_SPIN];
	pthread_attr_t attr;

	if (!child_become_rt_nobody(parent, (unsigned)max_s + 10, rt_us))
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (int i = 0; i < sh->n; i++) {
		args[i] = (struct spin_arg){ sh, &sh->sp[i] };
		if (pthread_create(&th[i], &attr, spinner_main, &args[i])) {
			spin_error(sh, "pthread_create: %s", strerror(errno));
			_exit(1);
		}
	}
	for (int i = 0; i < sh->n; i++)
		pthread_join(th[i], NULL);
	_exit(sh->error[0] ? 1 : 0);
}

static size_t shared_size(int n, size_t grid)
{
	return sizeof(struct spin_shared) + (size_t)n * grid * sizeof(uint64_t);
}

void spin_shared_reset(struct spin_shared *sh)
{
	uint64_t *cpu = (uint64_t *)(sh + 1);
	int n = sh->n;
	size_t grid = sh->grid;

	memset(sh, 0, sizeof(*sh));
	atomic_flag_clear(&sh->error_taken);
	sh->n = n;
	sh->grid = grid;
	for (int i = 0; i < n; i++)
		sh->sp[i].cpu = cpu + (size_t)i * grid;
}

struct spin_shared *spin_shared_new(int n, size_t grid)
{
	struct spin_shared *sh = shm_new(shared_size(n, grid));

	if (!sh)
		return NULL;
	sh->n = n;
	sh->grid = grid;
	spin_shared_reset(sh);
	return sh;
}

void spin_shared_free(struct spin_shared *sh)
{
	if (sh)
		shm_free(sh, shared_size(sh->n, sh->grid));
}

pid_t spin_start(struct spin_shared *sh, double max_s, bool until_demoted)
{
	pid_t parent = getpid(), p;

	sh->until_demoted = until_demoted;
	fflush(NULL);
	p = fork();
	if (p < 0)
		return -errno;
	if (p == 0)
		spin_child(sh, parent, max_s);
	child_track(p);
	/* the threads exist; then the clock starts and they ask for ISO */
	for (int i = 0; i < 1000 && atomic_load(&sh->ready) < sh->n; i++)
		bench_sleep_ns(2000000);
	sh->t0_ns = bench_clock_ns(CLOCK_MONOTONIC);
	sh->stop_ns = sh->t0_ns + (uint64_t)(max_s * 1e9);
	atomic_store(&sh->go, 1);
	return p;
}

int spin_wait(pid_t p, double max_s, void (*tick)(void *), void *arg)
{
	uint64_t deadline = bench_clock_ns(CLOCK_MONOTONIC) +
			    (uint64_t)((max_s + 5) * 1e9);
	int status;

	if (child_wait(p, deadline, tick ? 1000000 : 5000000, tick, arg,
		       &status) < 0)
		return -1;
	return status == 0 ? 0 : -1;
}
