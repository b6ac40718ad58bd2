/* strays.h — isod keeps the rule itself: no thread of a user is kernel
 * RT unless isod polices it. A stray (iso_rule.h, iso_rule_judge: the
 * one definition) is a thread that is
 *
 *   - kernel SCHED_FIFO/RR at ANY priority 1..99, or SCHED_DEADLINE —
 *     not only the band's: any RT thread may lower its own priority
 *     without privilege, and an exec carries it on (issue 28),
 *   - of a user (real or effective uid not 0: root's own RT is root's),
 *   - not tracked by isod,
 *   - and not allowed by its process's HARD RLIMIT_RTPRIO (FIFO/RR at
 *     most that priority: the administrator's limits, e.g. limits.conf's
 *     "@audio - rtprio 95" or systemd's LimitRTPRIO=: left alone, said at
 *     debug level; never DEADLINE, which wants CAP_SYS_NICE).
 *
 * How one arises: a granted non-main thread execs (the program goes on
 * under the process id with the thread's policy — lowered below the band
 * or switched to RR first, perhaps — while isod's handle on the old TID
 * fails), isod's record was lost while it was down, a privileged helper
 * made a user's thread RT or DEADLINE, or some path nobody thought of.
 * A stray is demoted to SCHED_OTHER (its nice kept, RESET_ON_FORK) with
 * one warning naming pid, tid, uid, comm, policy and priority (at most
 * STRAY_LOG_BURST a window, the rest counted: stray_log.h). A thread on
 * its way out (PF_EXITING, a zombie: exiting.h) is no stray — isod
 * forgets a thread at its exit while the kernel keeps its policy a moment
 * longer — and is demoted without a warning.
 *
 * When isod looks:
 *   - the process of a tracked thread found gone (isod_forget queues it;
 *     strays_tick, strays_tick.h, checks it on the server thread);
 *   - an exec of a process with tracked threads (forkwatch.c);
 *   - the whole machine at start-up (after recovering the state file) and
 *     every audit_interval seconds — only with sweep_orphans = yes, since
 *     it touches threads of every process (tests running several private
 *     isods turn it off).
 *   - with the BPF accounting (accounting = bpf), the kernel itself: any
 *     user thread switching in as kernel RT (any priority, DEADLINE) that
 *     isod does not track is reported on a ring buffer the server thread
 *     polls (strays_kernel, strays_tick.h), so a stray is demoted within a loop round,
 *     not at the next audit; reports lost to a full ring start a full
 *     audit.
 * RLIMIT_RTTIME is no exemption: any user may set it (prlimit).
 *
 * Every scan runs on the server thread, never the enforcer, in two
 * phases: an unlocked pass over /proc asks the kernel each thread's policy
 * (one sched_getscheduler per thread), and only the rare kernel RT threads
 * are looked at again under d->lock (tracked?), pinned, judged and
 * demoted.
 *
 * Return contract: the number of threads demoted, or a negative errno.
 * None of these may be called with d->lock held. */
#ifndef ISOD_STRAYS_H
#define ISOD_STRAYS_H

#include <stdbool.h>
#include <stdint.h>

#include "isod.h"

/* Is tid kernel RT now (one system call, no lock)? A first filter. */
bool strays_maybe(pid_t tid);
/* One thread of process pid: demoted if a stray (1), else 0 (the rule
 * and its reasons: strays.c). Caller holds d->lock. */
int strays_police(struct isod *d, pid_t pid, pid_t tid);
/* Demote the strays among the threads of process pid. */
int strays_check_process(struct isod *d, pid_t pid);
/* The whole machine: every process in d->proc. */
int strays_sweep(struct isod *d);
/* An exec by process tgid: forget its tracked threads that are gone,
 * withdraw ISO from those whose exec changed their identity (a setuid or
 * setgid program), then check the process. A tracked main thread that
 * execs an ordinary program keeps ISO (same thread, same owner: what
 * `isoctl run` relies on). */
int strays_exec(struct isod *d, pid_t tgid);
#endif
