/* accounting_bpf.h — the BPF accounting's life and its extras beyond
 * struct accounting: the kernel's stray reports (users' RT threads at any
 * priority) and the band's time.
 * Built with meson -Dbpf (ISOD_HAVE_BPF); without it acct_bpf_load says
 * so (-EOPNOTSUPP, accounting.c). The rest is the implementation of
 * struct accounting's optional members (accounting.h): the daemon calls
 * them only through that door (accounting_stray_fd and so on).
 * One program per isod: the state is the file's (accounting_bpf.c).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ACCOUNTING_BPF_H
#define ISOD_ACCOUNTING_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting.h"

extern const struct accounting accounting_bpf;

/* Load and attach the program for cfg's band and max_threads; on failure
 * why (cap bytes) says what is missing. */
int acct_bpf_load(const struct isod_config *cfg, char *why, size_t cap);
void acct_bpf_unload(void);
/* The ring buffer's fd to poll (readable: strays reported), -1 if none. */
int acct_bpf_stray_fd(void);
/* Hand every pending stray report to fn, and fork and exec report to
 * lineage, checked (acct_stray_valid, acct_lineage_valid); returns how
 * many. Server thread, d->lock not held. */
int acct_bpf_take_reports(void (*fn)(void *ctx, const struct acct_stray *s),
			  void (*lineage)(void *ctx, const struct acct_lineage *l), void *ctx);
/* Does the program report the forks and execs of tracked threads (the
 * process connector need not be followed)? */
bool acct_bpf_follows_lineage(void);
/* Report a tracked thread's new processes (isod's inherit)? */
void acct_bpf_report_forks(bool on);
/* Was a fork or exec report lost since the last call (and clear it)? */
bool acct_bpf_lineage_lost(void);
/* Stray reports the kernel could not write (its ring was full) since
 * the program was loaded: a running count. */
uint64_t acct_bpf_strays_lost(void);
/* No report of tid for the next seconds: isod looked and left it alone
 * (root's, allowed by RLIMIT_RTPRIO), so it costs a wakeup per that
 * many seconds, not per second. */
void acct_bpf_quiet(pid_t tid, unsigned seconds);
/* Report strays at all (sweep_orphans, strays.h)? Off: no wakeups. */
void acct_bpf_report_strays(bool on);
/* The task table (its index is a thread's slot, acct_maps.h), and whom
 * the program's "events" reports (a wake, an exit) go to: fn runs on a
 * thread of its own at SCHED_FIFO prio (the enforcer's: ISO threads cannot
 * starve it), d->lock not held. Main thread, once, after the load; unbind
 * stops that thread (before the table goes). */
int acct_bpf_bind(const struct tracked *table, void (*fn)(void *ctx, const struct acct_event *ev),
		  void *ctx, int prio);
void acct_bpf_unbind(void);
/* The kernel's wake since the last (quiet) plan, CLOCK_MONOTONIC ns, not
 * yet planned for (INT64_MAX: none): the watchdog counts the enforcer's
 * lateness from it (a starved enforcer's waker is starved too). Any
 * thread. */
int64_t acct_bpf_woken_ns(void);
/* Did the kernel's wake not reach the enforcer: it woke more than 100 ms
 * before now_ns and nobody planned since, or a report was lost? The
 * server's look (every second; every two while nothing runs), so that
 * a quiet plan needs no short bound of its own. */
bool acct_bpf_wake_overdue(int64_t now_ns);
/* Since when (CLOCK_MONOTONIC ns) the kernel has been armed by quiet plans
 * without a wake: no tracked thread has switched in since then. INT64_MAX:
 * not armed, or woken. Any thread. */
int64_t acct_bpf_quiet_since(void);
/* Nanoseconds users' threads spent at a band priority, all CPUs, since
 * the program was loaded. */
int acct_bpf_band_ns(uint64_t *ns);

#endif
