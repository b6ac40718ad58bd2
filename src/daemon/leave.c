/* leave.c — what a thread's run is charged to, what a thread leaving ISO
 * is charged and leaves behind, and what a fresh grant takes up again
 * (leave.h). */
#include "leave.h"

#include <time.h>

#include "log.h"
#include "percpu.h"

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void isod_account(struct isod *d, struct tracked *e, int64_t now_ns, bool leaving)
{
	/* before the engine moves the baseline (iso_share.h) */
	uint64_t iso_ns = iso_task_iso_delta(&e->core, e->cpu_ns);

	if (iso_share_on(&d->share))
		(void)(leaving ? iso_share_charge : iso_share_account)(&d->share, e->charged, iso_ns);
	isod_percpu_charge(d, e);
	if (leaving)
		iso_engine_charge(&d->engine, &e->core, e->cpu_ns);
	else
		iso_engine_account_placed(&d->engine, &e->core, e->cpu_ns, now_ns, &e->off);
	thread_stats_sample(&e->stats, e->cpu_ns, now_ns);
}

void isod_leave(struct isod *d, struct tracked *e)
{
	int64_t now = monotonic_ns(), burst_ns = (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_burst_sample s;
	struct iso_burst_carry c;
	uint64_t nv = 0;
	bool have_nv;

	/* What it ran since its last sample counts, as a step would have
	 * counted it. Readable: a live thread; with BPF accounting an exited
	 * one too, from the kernel's sum at its last switch (the TASK_DEAD
	 * one) while the map still has it. Not readable: with proc
	 * accounting an exited thread's schedstat is gone with it, and what
	 * it ran after its last sample (at most one check's interval) is not
	 * charged; nor is a thread whose read fails for another reason. */
	if (d->acct->sample(d->acct, e, 0) == 0) {
		isod_account(d, e, now, true);
		s = (struct iso_burst_sample){ .now_ns = now, .cpu_ns = e->cpu_ns,
					       .wait_ns = e->wait_ns };
	} else {
		/* what the guard saw last is all there is */
		s = e->burst.prev;
		s.has_block = false;
	}
	have_nv = d->acct->voluntary_switches(d->acct, d->proc, e, &nv) == 0;
	if (iso_burst_leave(&e->burst, burst_ns, &s, have_nv, nv, &c)) {
		iso_recent_put(&d->recent, e->tid, e->starttime, e->pid, e->charged, &c);
		log_debug("thread %d: its %s kept for its next grant", (int)e->tid,
			  c.demoted ? "back-off" : "run without a block");
	}
}

void isod_guard_resume(struct isod *d, struct tracked *e, int64_t now_ns)
{
	int64_t burst_ns = (int64_t)d->cfg.burst_ms * 1000000;
	struct iso_burst_sample s = { .now_ns = now_ns, .cpu_ns = e->cpu_ns, .wait_ns = e->wait_ns };
	struct iso_burst_carry c;
	bool same = false, have;
	uint64_t nv = 0;
	int r;

	/* the baseline of blocks from here on: the ask's own block is in it
	 * (the thread waits for isod's reply) */
	if (d->acct->voluntary_switches(d->acct, d->proc, e, &nv) < 0) {
		/* cannot tell its blocks: a fresh guard, as before issue 28 */
		iso_burst_init(&e->burst);
		(void)iso_burst_feed(&e->burst, burst_ns, &s, false, 0);
		e->core.held = false;
		return;
	}
	have = iso_recent_take(&d->recent, e->tid, e->starttime, e->pid, e->charged, now_ns, &c, &same);
	r = iso_burst_resume(&e->burst, burst_ns, have ? &c : NULL, same, &s, nv);
	e->core.held = iso_burst_demoted(&e->burst);
	if (r == ISO_BURST_DEMOTE)
		log_info("thread %d (pid %d, uid %u): burst guard, SCHED_OTHER until it blocks (or a trial in %lld ms): %s ran without blocking before it asked again",
			 (int)e->tid, (int)e->pid, (unsigned)e->uid,
			 (long long)((e->burst.until_ns - now_ns) / 1000000),
			 same ? "it" : "a thread of its user");
	else if (have && e->burst.phase == ISO_BURST_RUNNING)
		log_debug("thread %d: its run goes on from %s, %lld ms of CPU left without blocking",
			  (int)e->tid, same ? "its last grant" : "its user's last thread",
			  (long long)(e->burst.allowance_ns / 1000000));
}
