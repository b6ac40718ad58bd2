/* strays_tick.c — the server thread's chores between requests, and the
 * kernel's reports (strays_tick.h). */
#include "strays_tick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "forkwatch.h"
#include "grants.h"
#include "iso_plan.h"
#include "log.h"
#include "police.h"
#include "schedule.h"
#include "strays.h"

/* One policy check in this many asks the kernel about every thread
 * (isod_verify's full), the others only where the accounting cannot tell. */
#define VERIFY_FULL_EVERY 60

/* The longest the server sleeps while no tracked thread has run since its
 * last policy check (quiet_checked): the last bound on a kernel wake that
 * did not reach the enforcer (accounting_wake_overdue) and on the watchdog
 * past its limit, 1 s otherwise. */
#define QUIET_SERVER_MS 2000

/* Has the last policy check seen everything the kernel can show? It began
 * after the kernel was armed, and no tracked thread has switched in since
 * (the program disarms at the first): their policies at their last switch
 * are the ones it read, so another check would read the same. */
static bool quiet_checked(const struct isod *d)
{
	int64_t since = accounting_quiet_since(d->acct);

	return since != INT64_MAX && d->verified_ns > since;
}

/* ms from now_ns until at, at least 0 (rounded up: never a spin of
 * zero timeouts just before it), at most cap_ms. */
static int ms_until(int64_t at, int64_t now_ns, int cap_ms)
{
	int64_t left;

	if (at == ISO_PLAN_NEVER)
		return cap_ms;
	left = (at - now_ns + 999999) / 1000000;
	return left < 0 ? 0 : left > cap_ms ? cap_ms : (int)left;
}

/* How long the server may sleep. Lost threads, an unwritten state change
 * or no wake-up channel: a tenth of a second. Threads tracked: until
 * the next second's policy check (isod_verify) or the moment the
 * watchdog would act, whichever comes first — not a fixed tick; and while
 * no tracked thread has run since the last check (quiet_checked), only
 * the watchdog's moment, at most QUIET_SERVER_MS away: 1024 sleeping ISO
 * threads cost about one wake-up in two seconds (issue 13). A plan the
 * enforcer moves earlier meanwhile is seen at the next of these (the
 * watchdog acts at most a second later than its limit, two while quiet). */
int strays_timeout_ms(struct isod *d, int64_t now_ns)
{
	bool tracked, audit = d->cfg.sweep_orphans && !d->cfg.dry_run && d->cfg.audit_interval;
	const char *busy;
	int timeout = -1;
	int64_t held_until;

	pthread_mutex_lock(&d->lock);
	busy = d->n_lost > 0 || d->lost_overflow ? "exited processes to look at"
	       : d->server_wake < 0		 ? "no wake-up channel"
	       : atomic_load(&d->state_dirty)	 ? "a change for the state file"
						 : NULL;
	tracked = d->tasks.used > 0;
	held_until = stray_log_due(&d->stray_log);
	pthread_mutex_unlock(&d->lock);
	/* said when it begins: what keeps an idle isod waking (a test of
	 * its idle wakeups reads it) */
	if (busy && busy != d->server_busy)
		log_debug("server: %s: it looks every 100 ms until done", busy);
	d->server_busy = busy;
	if (busy)
		return 100;
	if (tracked) {
		/* nothing to check while nothing runs: but scx_iso's coming
		 * or going is looked for every second (backend.h) */
		bool quiet = quiet_checked(d) && !backend_may_switch();

		timeout = ms_until(isod_watchdog_at(d), now_ns, quiet ? QUIET_SERVER_MS : 1000);
		if (!d->cfg.dry_run && !quiet)
			timeout = ms_until(d->next_verify_ns, now_ns, timeout);
	}
	if (audit) {
		int a = ms_until(d->next_audit_ns, now_ns, 100000);

		timeout = timeout < 0 || a < timeout ? a : timeout;
	}
	/* the "N more suppressed" line of a window, when it ends */
	if (held_until != INT64_MAX) {
		int h = ms_until(held_until, now_ns, 100000);

		timeout = timeout < 0 || h < timeout ? h : timeout;
	}
	return timeout;
}

void strays_tick(struct isod *d, int64_t now_ns)
{
	pid_t pids[sizeof(d->lost_pids) / sizeof(d->lost_pids[0])];
	unsigned n;
	bool all;
	bool police_all = d->cfg.sweep_orphans && !d->cfg.dry_run;

	pthread_mutex_lock(&d->lock);
	n = d->n_lost;
	memcpy(pids, d->lost_pids, n * sizeof(pids[0]));
	all = d->lost_overflow;
	d->n_lost = 0;
	d->lost_overflow = false;
	(void)stray_log_flush(&d->stray_log, now_ns);
	if (now_ns >= d->next_verify_ns && !d->cfg.dry_run) {
		d->next_verify_ns = now_ns + 1000000000;
		/* every VERIFY_FULL_EVERY-th asks the kernel about every
		 * thread: a belt under the accounting's view. None while no
		 * tracked thread has run since the last (1024 sleeping ISO
		 * threads cost a look at each a second, issue 13) */
		if (!quiet_checked(d)) {
			d->verified_ns = now_ns;
			(void)isod_verify(d, d->verify_count++ % VERIFY_FULL_EVERY == 0);
		}
		/* scx_iso may have come or gone: the enforcer moves the
		 * threads at its next check, due now (backend.h) */
		if (d->tasks.used && backend_may_switch() && backend_probe()) {
			d->backend_look = true;
			isod_replan(d);
		}
		/* and the kernel's wake of a quiet plan reached the enforcer */
		if (d->tasks.used && accounting_wake_overdue(d->acct, now_ns))
			isod_replan(d);
	}
	pthread_mutex_unlock(&d->lock);
	for (unsigned i = 0; i < n; i++)
		(void)strays_check_process(d, pids[i]);
	if (all && !police_all)
		log_warning("lost more tracked threads at once than isod can check one by one, and sweep_orphans is off: strays of their processes are caught only by a restart's sweep");
	if (!police_all)
		return;
	if (d->cfg.audit_interval && now_ns >= d->next_audit_ns) {
		d->next_audit_ns = now_ns + (int64_t)d->cfg.audit_interval * 1000000000;
		all = true;
	}
	if (all)
		(void)strays_sweep(d);
}

/* How long the kernel stays quiet about a reported RT thread isod left
 * alone: the default audit_interval. */
#define STRAY_QUIET_S 10

/* One stray report of the kernel's (strays_kernel). */
struct kernel_report {
	struct isod *d;
	bool act;
	int demoted;
};

static void on_kernel_stray(void *ctx, const struct acct_stray *s)
{
	struct kernel_report *k = ctx;

	/* the report is a hint: the kernel is asked again, then strays_police()
	 * pins the thread and checks everything under the lock */
	int r;

	if (!k->act || !strays_maybe((pid_t)s->tid))
		return;
	pthread_mutex_lock(&k->d->lock);
	r = strays_police(k->d, (pid_t)s->tgid, (pid_t)s->tid);
	pthread_mutex_unlock(&k->d->lock);
	k->demoted += r;
	/* still RT and left alone (root's, RLIMIT_RTPRIO's, or tracked by
	 * now): not worth a wakeup every second */
	if (r == 0 && strays_maybe((pid_t)s->tid))
		accounting_quiet_tid(k->d->acct, (pid_t)s->tid, STRAY_QUIET_S);
}

/* A tracked thread's fork (adopt the child, inherit allowing) or an exec
 * in its process (strays_exec), as the process connector would say. */
static void on_kernel_lineage(void *ctx, const struct acct_lineage *l)
{
	struct kernel_report *k = ctx;

	if (l->kind == ACCT_LINEAGE_EXEC) {
		k->demoted += strays_exec(k->d, (pid_t)l->tid);
		return;
	}
	pthread_mutex_lock(&k->d->lock);
	forkwatch_adopt(k->d, (pid_t)l->parent, (pid_t)l->tid, (pid_t)l->tid);
	pthread_mutex_unlock(&k->d->lock);
}

/* A report was lost: every process with a tracked thread is looked at as
 * after an exec (a lost fork leaves its child SCHED_OTHER: safe). */
static void lineage_lost(struct isod *d)
{
	pid_t pids[64];
	size_t n = 0;

	log_warning("BPF accounting: fork or exec reports were lost; checking every process with ISO threads");
	pthread_mutex_lock(&d->lock);
	TASKS_FOREACH(&d->tasks, e) {
		bool seen = false;

		for (size_t i = 0; i < n && !seen; i++)
			seen = pids[i] == e->pid;
		if (!seen && n < sizeof(pids) / sizeof(pids[0]))
			pids[n++] = e->pid;
	}
	pthread_mutex_unlock(&d->lock);
	for (size_t i = 0; i < n; i++)
		(void)strays_exec(d, pids[i]);
	/* more processes than that: the sweep looks at all of them */
	if (n == sizeof(pids) / sizeof(pids[0]) && d->cfg.sweep_orphans && !d->cfg.dry_run)
		(void)strays_sweep(d);
}

int strays_kernel(struct isod *d)
{
	struct kernel_report k = { d, d->cfg.sweep_orphans && !d->cfg.dry_run, 0 };
	int r = accounting_take_reports(d->acct, on_kernel_stray, on_kernel_lineage, &k);
	uint64_t lost;

	if (accounting_lineage_lost(d->acct))
		lineage_lost(d);
	/* the ring was full: reports are gone, their strays are not — a
	 * full audit now finds every one */
	pthread_mutex_lock(&d->lock);
	lost = stray_log_lost(&d->stray_log, accounting_strays_lost(d->acct));
	pthread_mutex_unlock(&d->lock);
	if (lost) {
		log_warning("BPF accounting: %llu stray report%s lost (the kernel's ring was full)%s",
			    (unsigned long long)lost, lost == 1 ? "" : "s",
			    k.act ? ": auditing every thread now" : "");
		if (k.act)
			k.demoted += strays_sweep(d);
	}
	if (r < 0)
		return log_debug_errno(r, "cannot read the BPF accounting's stray reports");
	return k.demoted;
}
