/* accounting.h — where a thread's CPU time comes from, as one set of
 * operations beside the scheduler's (backend.h). Two implementations:
 *
 *  proc  /proc/PID/task/TID/schedstat through the task table's identity
 *        handle (accounting_proc.c).
 *  bpf   a sched_switch program counts the tracked threads' run time in
 *        the kernel, and users' threads that run as kernel RT untracked
 *        (strays, on a ring buffer) (accounting_bpf.c, bpf/acct.bpf.c); built with
 *        meson -Dbpf, loaded when the kernel and privileges allow.
 *
 * accounting_choose (isod_init) picks one from the accounting setting
 * (isod.h: d->acct). Called under the daemon's lock, from the server (a
 * new grant's baseline) and the enforcer (every sample).
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone). */
#ifndef ISOD_ACCOUNTING_H
#define ISOD_ACCOUNTING_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting_check.h"
#include "config.h"
#include "tasks.h"

struct accounting {
	const char *name;
	/* The implementation's state, given back to it through the first
	 * argument of every operation (a->self): proc has none (NULL), bpf
	 * its struct acct_bpf, owned by this instance (accounting_bpf.c). */
	void *self;
	/* Re-read e's cumulative CPU time and run-queue wait into e->cpu_ns
	 * and e->wait_ns (the burst guard's); -EBADMSG if unreadable.
	 * as_of_ns: the CLOCK_MONOTONIC time the figure is for (a check's
	 * time: what a thread runs while the check is held off, its own
	 * CPU RT-throttled say, is the next check's), 0: now. bpf takes
	 * the thread's run up to as_of_ns; proc reads what it reads. */
	int (*sample)(const struct accounting *a, struct tracked *e, uint64_t as_of_ns);
	/* Its voluntary context switches (~10 us on proc: only for threads
	 * the burst guard suspects). proc: the /proc root isod reads. */
	int (*voluntary_switches)(const struct accounting *a, const char *proc,
				  const struct tracked *e, uint64_t *nvcsw);
	/* The CPU e was on at its last switch (scope per-cpu): proc reads
	 * `processor` of /proc/PID/task/TID/stat (a handle opened at the
	 * first read and kept in e->cpufd), bpf takes it from the map. Not
	 * range-checked here (iso_percpu_charge does). */
	int (*last_cpu)(const struct accounting *a, const char *proc, struct tracked *e, int *cpu);
	/* e joins / leaves the task table (grants.c): bpf counts it in the
	 * kernel from now on, or no more; proc has nothing to do. */
	void (*track)(const struct accounting *a, const struct tracked *e);
	void (*untrack)(const struct accounting *a, const struct tracked *e);
	/* Optional (NULL: every check reads every thread). A check at
	 * now_ns begins: take what the kernel saw run since the last one. */
	void (*look_begin)(const struct accounting *a, uint64_t now_ns);
	/* Must this check read e (slot: its index in the task table)? If
	 * not, it has neither run nor exited since its last read: its
	 * cpu_ns and wait_ns stand as they are. */
	bool (*look_needed)(const struct accounting *a, const struct tracked *e, size_t slot);
	/* After a check (or a re-plan): has no tracked thread run since the
	 * check began, and none runs now? Then the kernel is armed to wake
	 * isod (isod_replan) at the next switch-in of one, and threads not
	 * running need no look of the burst guard until then. */
	bool (*quiet)(const struct accounting *a);
	/* Optional (NULL: ask the kernel). The kernel policy and RT priority
	 * e runs with, as the kernel last showed them without a system call
	 * (bpf: its last switch, e off every CPU since): 0, or -EAGAIN when
	 * that view may be out of date (on a CPU now, not seen yet, not in
	 * the map). Called under d->lock, like sample. */
	int (*seen_policy)(const struct accounting *a, const struct tracked *e, int *policy,
			   int *prio);

	/* Optional, the kernel's reports (bpf has them, proc none: NULL).
	 * Call them through the accounting_* functions below, which say
	 * what a source without them answers. */
	int (*stray_fd)(const struct accounting *a);
	int (*take_reports)(const struct accounting *a,
			    void (*fn)(void *ctx, const struct acct_stray *s),
			    void (*lineage)(void *ctx, const struct acct_lineage *l), void *ctx);
	bool (*follows_lineage)(const struct accounting *a);
	void (*report_forks)(const struct accounting *a, bool on);
	bool (*lineage_lost)(const struct accounting *a);
	uint64_t (*strays_lost)(const struct accounting *a);
	void (*quiet_tid)(const struct accounting *a, pid_t tid, unsigned seconds);
	void (*report_strays)(const struct accounting *a, bool on);
	int (*bind)(const struct accounting *a, const struct tracked *table,
		    void (*fn)(void *ctx, const struct acct_event *ev), void *ctx, int prio);
	void (*unbind)(const struct accounting *a);
	int64_t (*woken_ns)(const struct accounting *a);
	bool (*wake_overdue)(const struct accounting *a, int64_t now_ns);
	int64_t (*quiet_since)(const struct accounting *a);
	int (*band_ns)(const struct accounting *a, uint64_t *ns);
	/* Optional: undo the choice (bpf: unload the program, free a). */
	void (*close)(const struct accounting *a);
};

/* The one door to the optional operations: each asks a's, or answers for
 * a source that has none (bpf has them all: accounting_bpf.c and
 * accounting_bpf_look.c). */
/* The stray reports' fd to poll (readable: strays reported); -1: none. */
static inline int accounting_stray_fd(const struct accounting *a)
{
	return a->stray_fd ? a->stray_fd(a) : -1;
}
/* Hand the pending stray and lineage reports to fn and lineage, checked
 * (acct_stray_valid, acct_lineage_valid): how many. Server thread,
 * d->lock not held. */
static inline int accounting_take_reports(const struct accounting *a,
					  void (*fn)(void *ctx, const struct acct_stray *s),
					  void (*lineage)(void *ctx, const struct acct_lineage *l),
					  void *ctx)
{
	return a->take_reports ? a->take_reports(a, fn, lineage, ctx) : 0;
}
/* Does the source report tracked threads' forks and execs itself? */
static inline bool accounting_follows_lineage(const struct accounting *a)
{
	return a->follows_lineage && a->follows_lineage(a);
}
/* Report a tracked thread's new processes (isod's inherit)? */
static inline void accounting_report_forks(const struct accounting *a, bool on)
{
	if (a->report_forks)
		a->report_forks(a, on);
}
/* Was a fork or exec report lost since the last call (and clear it)? */
static inline bool accounting_lineage_lost(const struct accounting *a)
{
	return a->lineage_lost && a->lineage_lost(a);
}
/* Stray reports the kernel could not write (its ring was full) since the
 * program was loaded: a running count. */
static inline uint64_t accounting_strays_lost(const struct accounting *a)
{
	return a->strays_lost ? a->strays_lost(a) : 0;
}
/* No stray report of tid for that many seconds: isod looked and left it
 * alone (root's, allowed by RLIMIT_RTPRIO), so it costs a wakeup per that
 * many seconds, not per second. */
static inline void accounting_quiet_tid(const struct accounting *a, pid_t tid, unsigned seconds)
{
	if (a->quiet_tid)
		a->quiet_tid(a, tid, seconds);
}
/* Report strays at all (sweep_orphans, strays.h)? Off: no wakeups. */
static inline void accounting_report_strays(const struct accounting *a, bool on)
{
	if (a->report_strays)
		a->report_strays(a, on);
}
/* The task table (its index is a thread's slot, acct_maps.h), and whom
 * the kernel's wake and exit reports go to: fn runs on a thread of its own
 * at SCHED_FIFO prio (the enforcer's: ISO threads cannot starve it),
 * d->lock not held. Main thread, once; unbind stops that thread (before
 * the table goes). 0 where there are no reports. */
static inline int accounting_bind(const struct accounting *a, const struct tracked *table,
				  void (*fn)(void *ctx, const struct acct_event *ev), void *ctx,
				  int prio)
{
	return a->bind ? a->bind(a, table, fn, ctx, prio) : 0;
}
static inline void accounting_unbind(const struct accounting *a)
{
	if (a->unbind)
		a->unbind(a);
}
/* The kernel's wake since the last (quiet) plan, CLOCK_MONOTONIC ns, not
 * yet planned for (INT64_MAX: none): the watchdog counts the enforcer's
 * lateness from it (a starved enforcer's waker is starved too). */
static inline int64_t accounting_woken_ns(const struct accounting *a)
{
	return a->woken_ns ? a->woken_ns(a) : INT64_MAX;
}
/* Did the kernel's wake not reach the enforcer: it woke more than 100 ms
 * before now_ns and nobody planned since, a report was lost, or a tracked
 * thread ran while armed and no wake came at all? */
static inline bool accounting_wake_overdue(const struct accounting *a, int64_t now_ns)
{
	return a->wake_overdue && a->wake_overdue(a, now_ns);
}
/* Since when the kernel has been armed by quiet plans without a wake (no
 * tracked thread has run since); INT64_MAX: not armed, woken, or a
 * tracked thread has run. */
static inline int64_t accounting_quiet_since(const struct accounting *a)
{
	return a->quiet_since ? a->quiet_since(a) : INT64_MAX;
}
/* Nanoseconds users' threads spent at a band priority, all CPUs, since the
 * source started; -EOPNOTSUPP: not counted. */
static inline int accounting_band_ns(const struct accounting *a, uint64_t *ns)
{
	return a->band_ns ? a->band_ns(a, ns) : -EOPNOTSUPP;
}

extern const struct accounting accounting_proc;

/* Field 39 (processor: the CPU it last ran on) of /proc/TID/stat text;
 * -EBADMSG if it is not there or not a number 0..INT_MAX. */
int parse_stat_processor(const char *buf, int *cpu);

/* The accounting cfg asks for (cfg->accounting): auto takes bpf if it is
 * built in and loads, else proc with one log line saying why; bpf that
 * cannot load is an error (logged, -errno). */
int accounting_choose(const struct isod_config *cfg, const struct accounting **out);
/* Undo accounting_choose (bpf: unload the program, free its state). */
void accounting_close(const struct accounting *a);

#endif
