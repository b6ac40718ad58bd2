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
 * iso_last_error's per-thread buffer; each call uses its own connection.
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

#define ISO_THREAD_DEMOTED 0x1 /* over budget: runs SCHED_OTHER for now */
#define ISO_THREAD_ADOPTED 0x2 /* taken in as a child of an ISO thread */

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

/* Put thread tid (0: the calling thread; an id in the caller's PID
 * namespace) into policy at ISO priority prio (1..99) with its own CPU
 * limit (percent, 0: none beyond iso_cpu). ISO_SCHED_NORMAL with prio 0
 * releases it. On success *out (may be NULL) gets the new state. */
int iso_set_thread(pid_t tid, int policy, int prio, int limit_pct,
		   struct iso_thread_info *out);
int iso_get_thread(pid_t tid, struct iso_thread_info *out);
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
