/* tasks.h — the table of threads isod has put into ISO: identity (start time and
 * an open /proc handle), the open schedstat file the sampler re-reads, the grant
 * (policy, priority, limit) and the engine's per-task state. Fixed
 * capacity, allocated once; no allocation per sample.
 *
 * Not locked here: the caller (daemon) holds its PI mutex. */
#ifndef ISOD_TASKS_H
#define ISOD_TASKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "iso_engine.h"
#include "iso_percpu.h"
#include "iso_reserve.h"
#include "tasks_index.h"

/* What the backend was last told to do with a thread, and did: kept
 * beside the engine's decision (core.demoted), which may differ until
 * isod reconciles them (a change the kernel refused, the watchdog's
 * demotion, a backend that keeps the budget itself). */
enum applied {
	APPLIED_NONE,  /* nothing yet (or a switch of backend pending) */
	APPLIED_ISO,   /* granted: runs as ISO on the backend */
	APPLIED_OTHER, /* demoted: runs SCHED_OTHER */
};

struct tracked {
	bool used;
	pid_t tid, pid;
	uid_t uid;     /* its real uid at the grant: whose thread it is */
	uid_t charged; /* who pays for it: the key of max_threads_per_user
			* and the per-user shares (charge.h) */
	uint64_t starttime;
	int statfd;    /* /proc/PID/task/TID/schedstat, kept open: the
			* identity handle (tasks_alive) and the sampler's */
	int policy;    /* ISO_POLICY_ISO_RR / _ISO_FIFO */
	int prio;      /* ISO priority 1..99 */
	int kprio;     /* kernel priority in the band */
	/* a declared reservation, admitted (reserve.h): runs SCHED_DEADLINE;
	 * runtime_ns 0: none. dl_why: why one asked for could not be served
	 * (ISO_RESERVE_WHY_*, 0: none) */
	struct iso_reserve_params dl;
	unsigned dl_why;
	uint32_t flags;
	bool recorded;  /* in the state file on disk (isod_recorded) */
	uint64_t cpu_ns;
	uint64_t wait_ns; /* runnable, not running (schedstat), for the guard */
	/* with the last sample, when the accounting knows them (BPF): the
	 * CPU time at its last block and its voluntary switches then, one
	 * read (iso_burst.h has_block) */
	bool has_block;
	uint64_t block_cpu_ns, block_nv;
	/* and when it was off every CPU lately (BPF; proc: none): where its
	 * CPU time fell in the step (iso_place.h) */
	struct iso_offcpu off;
	int cpu;          /* scope per-cpu: the CPU its ISO time is charged to
			   * (iso_percpu_charge); ISO_CPU_UNKNOWN until read */
	int cpufd;        /* scope per-cpu, proc accounting: .../stat, opened
			   * at its first read and kept (-1: not open) */
	struct iso_task core;   /* the engine's view, its decision included */
	enum applied applied;   /* the scheduler's state as isod set it */
	struct iso_burst burst; /* the burst guard's view of it (iso_burst.h) */
	struct thread_stats stats; /* what isoctl top shows of it (events.h) */
};

#define TASKS_PID_BUCKETS 256

struct task_table {
	struct tracked *t;
	size_t cap;
	size_t used;
	size_t end; /* entries at or past end are all free: loops stop there */
	struct task_index idx; /* by TID, free slots, per uid: O(1) (tasks_index.h) */
	/* tracked threads per hash of their process id, written under the
	 * caller's lock, read without it (tasks_may_track_pid) */
	atomic_uint pid_bucket[TASKS_PID_BUCKETS];
};

int tasks_init(struct task_table *tt, size_t cap);
void tasks_free(struct task_table *tt);
struct tracked *tasks_find(struct task_table *tt, pid_t tid);
/* The tracked entry after prev (NULL: the first), NULL at the end. The
 * current entry may be removed while walking; entries are never moved.
 * No lock, no system call: the crash handler walks the table too. */
struct tracked *tasks_next(const struct task_table *tt, const struct tracked *prev);
#define TASKS_FOREACH(tt, e) \
	for (struct tracked *e = tasks_next((tt), NULL); e; e = tasks_next((tt), e))
/* Open identity and sampling handles for tid of process pid; fills the
 * entry's tid/pid/starttime/statfd. -ESRCH if it is gone. The start time
 * (and anything else read of tid after this) is the handle's thread's
 * only once tasks_alive says so afterwards: every caller checks it before
 * it acts. */
int tasks_open(const char *proc, pid_t pid, pid_t tid, struct tracked *e);
/* Close a handle tasks_open gave that was not inserted (NULL: nothing). */
void tasks_unpin(struct tracked *e);
struct tracked *tasks_insert(struct task_table *tt, const struct tracked *e);
void tasks_remove(struct task_table *tt, struct tracked *e);
/* May a thread of process pid be tracked? false means surely not. Needs
 * no lock: a cheap filter for the whole machine's exec events. */
bool tasks_may_track_pid(const struct task_table *tt, pid_t pid);
/* Threads of user uid in the table (O(1)). */
size_t tasks_count_uid(const struct task_table *tt, uid_t uid);
/* Is the thread behind e still the one we opened? */
bool tasks_alive(const struct tracked *e);

#endif
