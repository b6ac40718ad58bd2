/* strays_tick.h — the server thread's chores between requests: the
 * queued process checks, the audits and the policy checks when due
 * (strays.h says what a stray is and how it is found), and the BPF
 * accounting's reports (strays, a tracked thread's forks and execs).
 *
 * Return contract: a count, or milliseconds (-1: no timeout). */
#ifndef ISOD_STRAYS_TICK_H
#define ISOD_STRAYS_TICK_H

#include <stdint.h>

#include "isod.h"

/* Server thread, every loop: check the processes isod_forget queued, and
 * when due audit the machine (audit_interval) and verify the tracked threads'
 * kernel policy (isod_verify, every second). */
void strays_tick(struct isod *d, int64_t now_ns);
/* The BPF accounting saw users' threads switch in as kernel RT that isod
 * does not track (accounting_take_reports, accounting.h): check and demote them, as a sweep
 * would, at once (only with sweep_orphans, like the sweeps). Server
 * thread, when the ring buffer is readable. */
int strays_kernel(struct isod *d);
/* How long the server may sleep before strays_tick (and the watchdog)
 * need it, in ms for epoll_wait: 100 while a check is queued or the state
 * file is to be written; while threads are tracked, until the next
 * second's policy check or the watchdog's moment (with BPF accounting, up
 * to 2 s while none has run since the last check); else until the next
 * audit, or -1 (no audit: only an event wakes it). */
int strays_timeout_ms(struct isod *d, int64_t now_ns);

#endif
