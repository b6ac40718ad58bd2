/* share.c — CPU left to others under a runaway: the spinners run for a
 * warm-up (past the first demotion) and a measured window against one
 * SCHED_OTHER competitor process (nice 0); the competitor's CPU time over
 * the window, from /proc/PID/schedstat, is the share isod leaves to normal
 * tasks. The parent reads the counters as SCHED_FIFO 60 (mostly asleep) so
 * that the runaway cannot delay its readings. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/child.h"
#include "common/clock.h"
#include "common/procfs.h"
#include "spin.h"

struct reading {
	uint64_t t;
	int64_t comp, spin;  /* schedstat: the competitor, the spinners */
	uint64_t rt, other;  /* the spinners' own: as RT, demoted */
};

static void read_now(const struct spin_shared *sh, pid_t comp, pid_t spin,
		     struct reading *r)
{
	*r = (struct reading){ .t = bench_clock_ns(CLOCK_MONOTONIC) };
	r->comp = procfs_run_ns(comp, 0);
	for (int i = 0; i < sh->n; i++) {
		r->spin += procfs_run_ns(spin, atomic_load(&sh->sp[i].tid));
		r->rt += atomic_load(&sh->sp[i].rt_ns);
		r->other += atomic_load(&sh->sp[i].other_ns);
	}
}

void share_run(const struct trial_setup *t, double warm_s, double window_s,
	       struct enforce_share *out, char *note, size_t notelen)
{
	struct spin_shared *sh = t->sh;
	double max_s = warm_s + window_s + 1.0, dt, n = sh->n;
	struct reading a, b;
	pid_t p, comp;

	spin_shared_reset(sh);
	comp = child_spawn_hog((unsigned)max_s + 5, hog_spin_cpu);
	if (comp < 0) {
		snprintf(note, notelen, "fork: %s", strerror((int)-comp));
		return;
	}
	p = spin_start(sh, max_s, false);
	if (p < 0) {
		kill(comp, SIGKILL);
		waitpid(comp, NULL, 0);
		return;
	}
	bench_sleep_s(warm_s);
	read_now(sh, comp, p, &a);
	bench_sleep_s(window_s);
	read_now(sh, comp, p, &b);
	kill(comp, SIGKILL);
	waitpid(comp, NULL, 0);
	spin_wait(p, max_s, NULL, NULL);
	if (sh->error[0]) {
		snprintf(note, notelen, "%s", sh->error);
		return;
	}
	if (a.comp < 0 || b.comp < 0) {
		snprintf(note, notelen, "cannot read schedstat");
		return;
	}
	dt = (double)(b.t - a.t);
	out->window_s = dt / 1e9;
	out->comp_pct_cpu = 100.0 * (double)(b.comp - a.comp) / dt;
	out->comp_pct_all = out->comp_pct_cpu / n;
	out->iso_pct_all = 100.0 * (double)(b.spin - a.spin) / dt / n;
	out->rt_pct_all = 100.0 * (double)(b.rt - a.rt) / dt / n;
	out->other_pct_all = 100.0 * (double)(b.other - a.other) / dt / n;
	out->ok = true;
}
