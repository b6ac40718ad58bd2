/* isosched.h — libisosched, the client library of isod: put threads into
 * SCHED_ISO (unprivileged soft real time with a CPU budget), read their
 * state and the daemon's status.
 *
 * Return contract: every function returns 0 (or a count) on success and a
 * negative errno on failure, as the kernel would give it: -EPERM (not your
 * thread, not allowed), -EINVAL (bad policy/priority/limit), -ESRCH (no
 * such thread), -EAGAIN (a per-user cap reached), -ECONNREFUSED/-ENOENT
 * (isod not running). iso_last_error() then gives isod's explanation.
 *
 * The socket is ISOSCHED_SOCKET from the environment, else
 * ISO_DEFAULT_SOCKET. Calls are thread-safe and async-signal-safe apart from
 * iso_last_error's per-thread buffer. A process keeps one connection (a
 * close-on-exec socket) from one call to the next; a call that finds it in
 * use by another opens one of its own. A child after fork(), or a process
 * whose effective uid, gid or groups changed, opens a new one.
 */
#ifndef ISOSCHED_H
#define ISOSCHED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISO_DEFAULT_SOCKET "/run/isosched/isod.sock"

/* Policies understood by iso_set_thread. ISO_RR is the number the SCHED_ISO
 * patch used (4, still free in Linux); ISO_FIFO is isosched's own name for
 * the patch's SCHED_ISO_FIFO, since 5 is SCHED_IDLE on current kernels. */
#define ISO_SCHED_NORMAL 0     /* leave ISO: back to SCHED_OTHER */
#define ISO_SCHED_FIFO 1       /* downgraded to ISO_FIFO, as in the patch */
#define ISO_SCHED_RR 2         /* downgraded to ISO_RR */
#define ISO_SCHED_ISO_RR 4
#define ISO_SCHED_ISO_FIFO 0x105
#define ISO_SCHED_DEADLINE 6   /* iso_set_reservation's, as the kernel numbers it */

#define ISO_THREAD_DEMOTED 0x1 /* over budget: runs SCHED_OTHER for now */
#define ISO_THREAD_ADOPTED 0x2 /* taken in as a child of an ISO thread */
#define ISO_THREAD_RESERVED 0x4 /* holds a reservation: runs SCHED_DEADLINE */
#define ISO_THREAD_RESERVE_FALLBACK 0x8 /* asked for one that DEADLINE could not
					 * serve: runs as band ISO_FIFO instead */
/* Why (bits 8..11 of flags, with ISO_THREAD_RESERVE_FALLBACK): */
#define ISO_THREAD_RESERVE_WHY(flags) (((flags) >> 8) & 0xfu)
enum iso_reserve_why {
	ISO_RESERVE_WHY_AFFINITY = 1, /* its CPU affinity does not span its root domain */
	ISO_RESERVE_WHY_KERNEL = 2,   /* the kernel's own DEADLINE admission refused (EBUSY) */
	ISO_RESERVE_WHY_BACKEND = 3,  /* the scx backend runs ISO: no DEADLINE there */
	ISO_RESERVE_WHY_REFUSED = 4,  /* the kernel refused sched_setattr otherwise */
	ISO_RESERVE_WHY_CAP = 5,      /* recovered after a restart, but over reserve_cpu now */
};

struct iso_thread_info {
	int32_t tid, pid; /* in isod's PID namespace */
	uint32_t uid;
	int32_t policy;   /* ISO_SCHED_ISO_RR / _ISO_FIFO; NORMAL when released */
	int32_t prio;     /* ISO priority 1..99 */
	int32_t limit;    /* own CPU limit in percent; 0 = the global iso_cpu */
	int32_t kernel_policy, kernel_prio; /* what the kernel runs it as now */
	int32_t user_prio; /* as the patch's task_prio: ISO -1..-99, normal 0..39 */
	uint32_t flags;   /* ISO_THREAD_* */
	uint64_t cpu_ns;  /* cumulative CPU time */
};

struct iso_status_info {
	uint32_t iso_cpu, iso_period_s; /* the budget: percent over seconds */
	int32_t band_lo, band_hi;       /* kernel RT priorities used for ISO */
	uint32_t usage_milli; /* ISO CPU use now, thousandths of a percent */
	uint32_t refractory;  /* 1 while over iso_cpu */
	uint32_t ncpus;
	uint32_t sample_us;   /* isod's sampling interval */
	uint32_t total;       /* ISO threads in all */
	uint32_t offset;      /* (wire only) index of the first entry */
	uint32_t count;       /* (wire only) entries in this page */
};

/* Per-user shares (isod's user_cpu): each uid's ISO CPU use. */
struct iso_users_info {
	uint32_t user_cpu;    /* percent of iso_cpu one uid may hold; 0: off */
	uint32_t share_milli; /* that share, thousandths of a percent of all CPUs */
	uint32_t total;       /* uids with an average (ISO threads or recent use) */
	uint32_t offset;      /* (wire only) index of the first entry */
	uint32_t count;       /* (wire only) entries in this page */
};
#define ISO_USER_OVER 0x1u /* over its share: its ISO threads run SCHED_OTHER */
struct iso_user_info {
	uint32_t uid;
	uint32_t usage_milli; /* its ISO CPU use, thousandths of a percent of all CPUs */
	uint32_t flags;       /* ISO_USER_OVER */
};

/* isod's stray auditor (iso_strays): what it found since it started.
 * A stray is a thread of a non-root user that was kernel RT in the band
 * with no isod record; isod demotes it. */
struct iso_strays_info {
	uint32_t policing;   /* 1: isod looks for strays (sweep_orphans on, not dry-run) */
	uint32_t reserved;   /* 0 */
	uint64_t demoted;    /* strays demoted, each with a journal warning or in suppressed */
	uint64_t suppressed; /* of those, warnings the rate limit held back (counted, not written) */
	uint64_t exiting;    /* exiting threads still RT (isod's own, just exited): demoted, no warning */
	uint64_t lost;       /* stray reports the kernel's ring had no room for (each: a full audit) */
	uint64_t sweeps;     /* full audits of every thread on the machine */
};

/* isoctl top's view (iso_top): the status, the per-user shares, the
 * recent events and the threads with their counters, in one reply. */
#define ISO_TOP_THREADS 200 /* thread entries per reply */
#define ISO_TOP_USERS 32    /* uid entries per reply */
#define ISO_TOP_EVENTS 32   /* the most recent events */

enum iso_event_kind {
	ISO_EVENT_GRANT = 1,   /* value: the ISO priority */
	ISO_EVENT_DEMOTE = 2,  /* value: ISO_DEMOTE_* (why) */
	ISO_EVENT_RESTORE = 3, /* value: 0 */
	ISO_EVENT_REFUSED = 4, /* a SET refused; pid, uid: the asker; value: -errno */
	ISO_EVENT_STRAY = 5,   /* an unpoliced band thread demoted; value: its kernel priority */
};
enum iso_demote_reason {
	ISO_DEMOTE_BUDGET = 1, /* ISO use over iso_cpu (refractory) */
	ISO_DEMOTE_LIMIT = 2,  /* ISO use over the thread's own limit */
	ISO_DEMOTE_SHARE = 3,  /* its user over user_cpu */
	ISO_DEMOTE_BURST = 4,  /* the burst guard */
	ISO_DEMOTE_STALL = 5,  /* the stall cap */
};

struct iso_event {
	uint32_t seq;    /* counts up by one per event from isod's start */
	uint32_t kind;   /* ISO_EVENT_* */
	int64_t time_ms; /* wall clock (CLOCK_REALTIME), milliseconds */
	int32_t tid, pid; /* in isod's PID namespace */
	uint32_t uid;
	int32_t value;   /* see enum iso_event_kind */
};

struct iso_top_thread {
	struct iso_thread_info info;
	uint32_t demotions; /* times demoted since it was granted */
	uint32_t cpu_milli; /* CPU use over isod's last window of about 1 s,
			     * thousandths of a percent of one CPU */
};

struct iso_top_info {
	struct iso_status_info status; /* status.count: entries in threads */
	struct iso_users_info users;   /* users.count: entries in user_list */
	struct iso_user_info user_list[ISO_TOP_USERS];
	uint32_t nevents;
	struct iso_event events[ISO_TOP_EVENTS]; /* oldest first */
	struct iso_top_thread threads[ISO_TOP_THREADS];
};

/* Put thread tid (0: the calling thread; an id in the caller's PID
 * namespace) into policy at ISO priority prio (1..99) with its own CPU
 * limit (percent, 0: none beyond iso_cpu). ISO_SCHED_NORMAL with prio 0
 * releases it. On success *out (may be NULL) gets the new state. */
int iso_set_thread(pid_t tid, int policy, int prio, int limit_pct,
		   struct iso_thread_info *out);
int iso_get_thread(pid_t tid, struct iso_thread_info *out);
/* A declared reservation: thread tid (0: the caller) gets runtime_ns of
 * CPU every period_ns, each finished by deadline_ns after its period
 * began (0: the period), as kernel SCHED_DEADLINE brokered by isod inside
 * the ISO budget. -EBUSY when it would take isod's reserved share
 * (reserve_cpu) or the user's part of it beyond what is left
 * (iso_last_error says how much is), -EINVAL for parameters the kernel
 * would refuse (runtime >= 1024 ns, runtime <= deadline <= period,
 * 100 us <= period <= 4 s). Where DEADLINE cannot serve the thread (see
 * ISO_THREAD_RESERVE_FALLBACK) it runs as ISO_FIFO 99 instead. runtime_ns
 * 0 gives the reservation back (the thread leaves ISO). On success *out
 * (may be NULL) gets the new state. -EOPNOTSUPP from an isod older than
 * reservations. */
int iso_set_reservation(pid_t tid, uint64_t runtime_ns, uint64_t period_ns,
			uint64_t deadline_ns, struct iso_thread_info *out);
/* Status and up to cap thread entries; returns how many were stored. */
int iso_status(struct iso_status_info *st, struct iso_thread_info *threads,
	       size_t cap);
/* Root only. 0 leaves a tunable unchanged. */
int iso_tune(int iso_cpu, int iso_period_s, struct iso_status_info *st);
/* Root only: user_cpu 0..100 (0: per-user shares off). -EBADMSG from an
 * isod older than per-user shares. */
int iso_tune_user_cpu(int user_cpu);
/* The per-user shares and up to cap uids' use; returns how many were
 * stored. st->user_cpu 0: shares are off (then no uids). -EOPNOTSUPP from
 * an isod older than per-user shares. */
int iso_users(struct iso_users_info *st, struct iso_user_info *users, size_t cap);

/* Everything isoctl top shows, in one request: the first
 * ISO_TOP_THREADS threads (out->status.total says how many there are).
 * -EOPNOTSUPP from an isod older than it. */
int iso_top(struct iso_top_info *out);

/* The stray auditor's counts. -EOPNOTSUPP from an isod older than it. */
int iso_strays(struct iso_strays_info *out);

/* The socket path the library uses: ISOSCHED_SOCKET, except in secure
 * execution (setuid, file capabilities), where only the default is used. */
const char *iso_socket_path(void);
/* isod's message for this thread's last failed call ("" if none). */
const char *iso_last_error(void);
/* Who failed this thread's last call: isod refused it (its message is
 * iso_last_error), or the library never got an answer (no daemon, no
 * reply, a malformed one), or nothing failed. */
#define ISO_ERROR_NONE 0
#define ISO_ERROR_TRANSPORT 1
#define ISO_ERROR_DAEMON 2
int iso_last_error_source(void);

#ifdef __cplusplus
}
#endif
#endif
