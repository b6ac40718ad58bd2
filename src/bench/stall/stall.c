/* stall.c — isobench --stall: what a person at the desktop feels during a
 * runaway (issue 17). A SCHED_OTHER probe sleeps 1 ms in a loop and
 * records every gap between its wake-ups; gaps over 50 ms are stalls. One
 * spinner per CPU runs for the window (12 s) from 1 s after the probe
 * starts, and the probe goes on 1 s after it, in each scenario:
 *
 *   iso          ISO_FIFO spinners of user nobody under a private isod with
 *                its defaults (burst guard and stall cap on)
 *   iso-cap      the same with burst_ms 0 (the stall cap alone)
 *   iso-patch    burst_ms 0, stall_ms 0: the patch's 5 s average alone
 *   fifo-root    kernel SCHED_FIFO spinners as root, no isod (only the
 *                kernel's RT throttle)
 *   rttime       kernel SCHED_FIFO with RLIMIT_RTTIME 200 ms, as rtkit
 *                requires of its clients: the kernel kills them
 *
 * Each spinner is a process of its own, so "killed" counts spinners; each
 * polls its own kernel policy while it spins and records its demotions.
 * Then periodic ISO threads (1.33 ms at 20/50/80 %, 170 ms at 80 %) run
 * 10 s in two rounds under isod's defaults but iso_cpu 95 (the budget stays
 * out of it), each checking its own policy every period: any demotion
 * there is the guard's.
 *
 * Bounds: every child dies with the parent (PR_SET_PDEATHSIG), has an
 * alarm and RLIMIT_RTTIME, and is SIGKILLed past its deadline. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/child.h"
#include "common/clock.h"
#include "common/isod.h"
#include "isosched.h"
#include "stall.h"

/* ---- the probe ------------------------------------------------------------ */

static _Noreturn void probe_child(pid_t parent, struct shared *sh, unsigned bound_s)
{
	uint64_t prev, start;

	if (!child_bind_to_parent(parent, SIGKILL))
		_exit(1);
	alarm(bound_s);
	start = prev = bench_clock_ns(CLOCK_MONOTONIC);
	while (!atomic_load(&sh->probe_stop)) {
		uint64_t now, gap;

		bench_sleep_ns(1000000);
		now = bench_clock_ns(CLOCK_MONOTONIC);
		gap = now - prev;
		if (gap > sh->longest_ns)
			sh->longest_ns = gap;
		if (gap > STALL_GAP_NS) {
			sh->stalled_ns += gap;
			if (sh->ngaps < MAX_GAPS) {
				sh->gap_at_ns[sh->ngaps] = prev - start;
				sh->gap_ns[sh->ngaps] = gap;
			}
			sh->ngaps++;
		}
		prev = now;
	}
	_exit(0);
}

/* ---- the spinners --------------------------------------------------------- */

static void note_error(struct shared *sh, const char *what, int err)
{
	if (!sh->error[0])
		snprintf(sh->error, sizeof(sh->error), "%s: %s", what, strerror(err));
}

static _Noreturn void spinner_child(pid_t parent, struct shared *sh, int i,
				    enum scenario sc, unsigned bound_s)
{
	struct spin_stat *st = &sh->sp[i];
	struct sched_param sp = { .sched_priority = SPIN_PRIO };
	uint64_t rt_us = (uint64_t)bound_s * 1000000;
	int was_rt = 1;

	if (sc == SC_FIFO_ROOT || sc == SC_RTTIME) {
		/* rtkit's clients: soft = hard = 200 ms, the kernel's SIGKILL */
		struct rlimit rl = { sc == SC_RTTIME ? 200000 : rt_us,
				     sc == SC_RTTIME ? 200000 : rt_us };

		if (!child_bind_to_parent(parent, SIGKILL))
			_exit(1);
		alarm(bound_s);
		setrlimit(RLIMIT_RTTIME, &rl);
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			note_error(sh, "sched_setscheduler", errno);
			st->failed = 1;
			_exit(2);
		}
	} else {
		int r;

		/* RLIMIT_RTTIME past the window: isod, not the kernel, must act */
		if (!child_become_rt_nobody(parent, bound_s, rt_us))
			_exit(1);
		r = iso_set_thread(0, ISO_SCHED_ISO_FIFO, SPIN_PRIO, 0, NULL);
		if (r < 0) {
			note_error(sh, "iso_set_thread", -r);
			st->failed = 1;
			_exit(2);
		}
	}
	st->granted = 1;
	for (;;) {
		uint64_t now = bench_clock_ns(CLOCK_MONOTONIC);
		int rt;

		if (now >= sh->spin_stop_ns)
			break;
		for (volatile int k = 0; k < 20000; k++)
			;
		rt = bench_kernel_policy() == SCHED_FIFO;
		if (was_rt && !rt) {
			st->demotions++;
			if (!st->first_demote_ns)
				st->first_demote_ns = now - sh->spin_t0_ns;
		} else if (!was_rt && rt) {
			st->restores++;
		}
		was_rt = rt;
	}
	_exit(0);
}

static void isod_want_for(enum scenario sc, struct isod_want *w)
{
	*w = (struct isod_want){ .log_level = "info" };
	w->guard_off = sc == SC_ISO_CAP || sc == SC_ISO_PATCH;
	w->stall_cap_off = sc == SC_ISO_PATCH;
}

static void run_scenario(const struct stall_opts *o, const struct isod_bin *isod,
			 enum scenario sc, int ncpu, struct shared *sh,
			 struct sc_result *res)
{
	double window = o->window_s;
	unsigned bound = (unsigned)window + 10;
	pid_t parent = getpid(), probe, spin[MAX_SPINNERS];
	uint64_t t0, deadline;
	struct isod_want want;
	char err[512] = "";

	memset(sh, 0, sizeof(*sh));
	memset(res, 0, sizeof(*res));
	res->spinners = ncpu;
	if (sc <= SC_ISO_PATCH) {
		isod_want_for(sc, &want);
		if (!isod->has_burst_ms) {
			snprintf(res->note, sizeof(res->note), "isod has no --burst-ms");
			return;
		}
		if (isod_start(isod, &want, err, sizeof(err)) < 0) {
			snprintf(res->note, sizeof(res->note), "isod: %.150s", err);
			return;
		}
	}
	probe = fork();
	if (probe == 0)
		probe_child(parent, sh, bound + 5);
	bench_sleep_ns(1000000000ull);
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	sh->spin_t0_ns = t0;
	sh->spin_stop_ns = t0 + (uint64_t)(window * 1e9);
	for (int i = 0; i < ncpu; i++) {
		spin[i] = fork();
		if (spin[i] == 0)
			spinner_child(parent, sh, i, sc, bound);
		child_track(spin[i]);
	}
	deadline = sh->spin_stop_ns + 5000000000ull;
	for (int i = 0; i < ncpu; i++) {
		int status = 0, r;

		while ((r = child_reap(spin[i], deadline, &status)) == 0)
			bench_sleep_ns(10000000);
		if (r < 0)
			snprintf(res->note, sizeof(res->note), "a spinner ran past its deadline");
		else if (WIFSIGNALED(status))
			res->killed++; /* by the kernel (RLIMIT_RTTIME), not by us */
	}
	child_track(0);
	bench_sleep_ns(1000000000ull);
	atomic_store(&sh->probe_stop, 1);
	{
		int status;

		while (child_reap(probe, deadline + 5000000000ull, &status) == 0)
			bench_sleep_ns(10000000);
	}
	if (sc <= SC_ISO_PATCH)
		isod_stop_private();
	res->ran = true;
	res->window_ms = (double)(bench_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6 + 1000.0;
	res->longest_ms = (double)sh->longest_ns / 1e6;
	res->stalled_ms = (double)sh->stalled_ns / 1e6;
	res->ngaps = sh->ngaps;
	for (unsigned g = 0; g < sh->ngaps && g < MAX_GAPS; g++) {
		res->gap_at_s[g] = (double)sh->gap_at_ns[g] / 1e9;
		res->gap_ms[g] = (double)sh->gap_ns[g] / 1e6;
	}
	for (int i = 0; i < ncpu; i++) {
		res->demotions += sh->sp[i].demotions;
		if (sh->sp[i].first_demote_ns &&
		    (res->first_demote_ms == 0 ||
		     (double)sh->sp[i].first_demote_ns / 1e6 < res->first_demote_ms))
			res->first_demote_ms = (double)sh->sp[i].first_demote_ns / 1e6;
		if (sh->sp[i].failed && !res->note[0])
			snprintf(res->note, sizeof(res->note), "%.150s", sh->error);
	}
}

/* ---- the periodic threads ------------------------------------------------- */

const struct periodic_spec periodic[4] = {
	{ 1333000, 20, 0 }, { 1333000, 80, 0 }, { 1333000, 50, 1 }, { 170000000, 80, 1 },
};


static _Noreturn void periodic_child(pid_t parent, struct shared *sh, int i, double secs)
{
	uint64_t next, end, busy = periodic[i].period_ns * (uint64_t)periodic[i].duty / 100;
	struct timespec ts;
	int was_rt = 1, r;

	if (!child_become_rt_nobody(parent, (unsigned)secs + 10, (uint64_t)(secs + 10) * 1000000))
		_exit(1);
	r = iso_set_thread(0, ISO_SCHED_ISO_FIFO, SPIN_PRIO, 0, NULL);
	if (r < 0) {
		note_error(sh, "iso_set_thread", -r);
		_exit(2);
	}
	sh->per[i].granted = 1;
	next = bench_clock_ns(CLOCK_MONOTONIC);
	end = next + (uint64_t)(secs * 1e9);
	while (next < end) {
		int rt;

		while (bench_clock_ns(CLOCK_MONOTONIC) < next + busy)
			;
		rt = bench_kernel_policy() == SCHED_FIFO;
		sh->per[i].periods++;
		sh->per[i].demoted_periods += !rt;
		if (was_rt && !rt)
			sh->per[i].demotions++;
		was_rt = rt;
		next += periodic[i].period_ns;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	_exit(0);
}

static int run_periodic(const struct isod_bin *isod, struct shared *sh, char *note,
			size_t notelen)
{
	const struct isod_want want = { .log_level = "info", .iso_cpu = 95 };
	const double secs = 10.0;
	pid_t parent = getpid();
	char err[512] = "";

	memset(sh, 0, sizeof(*sh));
	if (isod_start(isod, &want, err, sizeof(err)) < 0) {
		snprintf(note, notelen, "isod: %.150s", err);
		return -1;
	}
	for (int round = 0; round < 2; round++) {
		pid_t p[4];
		int n = 0;
		uint64_t deadline = bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)((secs + 10) * 1e9);

		for (int i = 0; i < 4; i++) {
			if (periodic[i].round != round)
				continue;
			p[n] = fork();
			if (p[n] == 0)
				periodic_child(parent, sh, i, secs);
			child_track(p[n++]);
		}
		for (int k = 0; k < n; k++) {
			int status;

			while (child_reap(p[k], deadline, &status) == 0)
				bench_sleep_ns(10000000);
		}
		child_track(0);
	}
	isod_stop_private();
	if (sh->error[0])
		snprintf(note, notelen, "%.150s", sh->error);
	return 0;
}

/* ---- the run -------------------------------------------------------------- */

unsigned stall_bound_s(const struct stall_opts *o)
{
	return (unsigned)(5 * (o->window_s + 25.0)) + 120;
}

int stall_run(const struct stall_opts *o, struct stall_result *r)
{
	long ncpu_l = sysconf(_SC_NPROCESSORS_ONLN);
	struct shared *sh = shm_new(sizeof(*sh));
	struct sched_param sp = { .sched_priority = PARENT_PRIO };
	struct isod_bin isod;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->ncpu = ncpu_l < 1 ? 1 : ncpu_l > MAX_SPINNERS ? MAX_SPINNERS : (int)ncpu_l;
	r->window_s = o->window_s;
	if (!sh || isod_bin_find(o->isod, &isod) < 0) {
		fprintf(stderr, "isobench: %s\n", sh ? ISOD_NOT_FOUND : "out of memory");
		shm_free(sh, sizeof(*sh));
		return -1;
	}
	r->started = true;
	/* stop and reap on time whatever spins; children start SCHED_OTHER */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		fprintf(stderr, "isobench: warning: cannot run as SCHED_FIFO %d: %s\n",
			PARENT_PRIO, strerror(errno));
	for (int s = 0; s < SC_COUNT; s++) {
		run_scenario(o, &isod, (enum scenario)s, r->ncpu, sh, &r->sc[s]);
		if (!r->sc[s].ran)
			rc = -1;
		if (o->progress)
			fprintf(stderr, "isobench: %s: longest gap %.0f ms, stalled %.2f s\n",
				sc_name[s], r->sc[s].longest_ms, r->sc[s].stalled_ms / 1000);
	}
	if (run_periodic(&isod, sh, r->periodic_note, sizeof(r->periodic_note)) < 0)
		rc = -1;
	memcpy(r->per, sh->per, sizeof(r->per));
	shm_free(sh, sizeof(*sh));
	isod_bin_free(&isod);
	return rc;
}
