/* accounting_bpf.h — the BPF accounting's life and its extras beyond
 * struct accounting: the kernel's stray reports (users' RT threads at any
 * priority) and the band's time.
 * Built with meson -Dbpf (ISOD_HAVE_BPF); without it acct_bpf_load says
 * so (-EOPNOTSUPP, accounting.c). The rest is the implementation of
 * struct accounting's optional members (accounting.h): the daemon calls
 * them only through that door (accounting_stray_fd and so on).
 * One program per isod: its state is struct acct_bpf
 * (accounting_bpf_look.h).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ACCOUNTING_BPF_H
#define ISOD_ACCOUNTING_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "accounting.h"
#include "accounting_bpf_look.h" /* acct_bpf_bind and the waker's */

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
/* Nanoseconds users' threads spent at a band priority, all CPUs, since
 * the program was loaded. */
int acct_bpf_band_ns(uint64_t *ns);

#endif
