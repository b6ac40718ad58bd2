/* stray_log.h — the stray auditor's journal lines and counts. Every
 * stray isod demotes is counted, and its warning written unless
 * STRAY_LOG_BURST have been written in the current window of
 * STRAY_LOG_WINDOW_NS; the window's end writes one "N more suppressed"
 * line. A flood of strays cannot flood the journal, and hides none: the
 * counts are isoctl status's (ISO_MSG_STRAYS). Counted beside them: the
 * exiting threads found still RT (exiting.h, demoted without a warning),
 * the kernel's stray reports its ring had no room for, and the full
 * audits.
 *
 * Not locked here: the caller holds d->lock. */
#ifndef ISOD_STRAY_LOG_H
#define ISOD_STRAY_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "isosched.h"

#define STRAY_LOG_BURST 10
#define STRAY_LOG_WINDOW_NS (10 * 1000000000LL)

struct stray_log {
	int64_t window_ns; /* start of the current window; 0: none open */
	unsigned written;  /* warnings written in it */
	uint64_t held;     /* warnings held back in it, not yet said */
	/* since isod started */
	uint64_t demoted, suppressed, exiting, lost, sweeps;
	uint64_t lost_seen; /* the kernel's lost count at isod's last look */
};

/* One more stray demoted at now_ns (CLOCK_MONOTONIC): counted; true when
 * its warning is to be written, false when the window's quota is spent. */
bool stray_log_admit(struct stray_log *sl, int64_t now_ns);
/* Write a stray's warning line if stray_log_admit lets it (now). */
void stray_log_warn(struct stray_log *sl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The window is over at now_ns: write its "N more suppressed" line, if
 * any was held; returns how many were. The server's tick calls it (and
 * wakes for it: stray_log_due). */
uint64_t stray_log_flush(struct stray_log *sl, int64_t now_ns);
/* When the current window with held lines ends (INT64_MAX: none held):
 * the server wakes for its line. */
int64_t stray_log_due(const struct stray_log *sl);
/* The kernel's running count of lost reports is total: how many are new
 * since the last look (counted). */
uint64_t stray_log_lost(struct stray_log *sl, uint64_t total);
/* The counts, for a reply. */
void stray_log_info(const struct stray_log *sl, struct iso_strays_info *o);

#endif
