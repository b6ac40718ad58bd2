/* isod.h — the daemon's state shared by its two threads: the server
 * (requests, SCHED_OTHER) and the enforcer (sampling, kernel RT above the
 * band). One priority-inheritance mutex guards it, so the enforcer never
 * waits behind a preempted server thread for long.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ISOD_H
#define ISOD_ISOD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "config.h"
#include "iso_engine.h"
#include "iso_share.h"
#include "iso_proto.h"
#include "isosched.h"
#include "tasks.h"

struct isod {
	struct isod_config cfg;
	const char *proc;          /* "/proc"; tests may point elsewhere */
	pthread_mutex_t lock;      /* PTHREAD_PRIO_INHERIT */
	struct iso_engine engine;
	struct iso_share share;    /* per-user shares (user_cpu); table of max_threads */
	/* a USERS reply's entries: only the server thread builds replies */
	struct iso_user_info user_page[ISO_PROTO_PAGE];
	struct task_table tasks;
	atomic_bool stop;
	atomic_bool state_dirty;   /* state file needs rewriting */
	atomic_bool reload;        /* SIGHUP seen: rebuild the configuration */
	const struct config_source *src;
	char *state_buf;           /* the state file's text (statefile_snapshot) */
	size_t state_cap, state_len;
	bool state_failing;        /* the last write failed (server thread only) */
	atomic_int_least64_t last_step_ns; /* CLOCK_MONOTONIC of the enforcer's last step */
	bool watchdog_fired;       /* isod_watchdog demoted; until the enforcer runs */
	/* processes that lost a tracked thread (strays.h), under lock */
	pid_t lost_pids[32];
	unsigned n_lost;
	bool lost_overflow;        /* more than fit: audit the whole band */
	int64_t next_audit_ns, next_verify_ns; /* server thread only */
	uint64_t samples;          /* enforcer steps done */
	uint64_t sample_ns_total;  /* CPU time spent in them */
	/* the enforcer's schedule (schedule.c) */
	pthread_cond_t wake;       /* it sleeps on this (with lock) until its next check */
	bool replan;               /* the plan's inputs changed: plan again */
	atomic_int_least64_t due_ns; /* its next check, CLOCK_MONOTONIC;
				      * ISO_PLAN_NEVER: none (the watchdog's reference) */
	uint64_t wakeups;          /* times it woke (a check or a re-plan) */
};

/* A grant request after authorization: ids are isod's own. */
struct grant {
	pid_t pid, tid;
	uid_t uid;
	/* checked on the pinned thread before anything is changed: its owner
	 * (real or effective uid) must be `by` unless by is root, and, when
	 * not 0, its start time must be starttime */
	uid_t by;
	uint64_t starttime;
	int policy;   /* ISO_POLICY_ISO_RR / _ISO_FIFO */
	int prio;
	unsigned limit;
	uint32_t flags;
};

int isod_init(struct isod *d, const struct isod_config *cfg);
void isod_destroy(struct isod *d);
/* Take over what can change at run time from a new configuration
 * (tunables, caps, allow lists, inherit, log level); say what needs a
 * restart. Caller holds d->lock. */
void isod_reconfigure(struct isod *d, const struct isod_config *cfg);

/* Caller holds d->lock for all below. */
/* e is pinned (its handle open): is its thread (still) owned by `by` —
 * real or effective uid; root (0) may name any — and, when starttime is
 * not 0, started then? -EPERM / -ESRCH if not. Owner and start time are
 * read through the pinned identity, so a reused TID cannot pass. */
int isod_confirm(struct isod *d, const struct tracked *e, uid_t by, uint64_t starttime);
int isod_grant(struct isod *d, const struct grant *g, struct tracked **out);
int isod_release(struct isod *d, pid_t tid);
/* Drop e from the table. If its thread is gone (exited, or replaced by a
 * sibling's exec), its process is queued for a stray check (strays.h):
 * isod never forgets a thread without making sure nothing of its process
 * stays kernel RT unpoliced. */
void isod_forget(struct isod *d, struct tracked *e);
/* Is every tracked thread where isod put it? An owner may lower its RT
 * thread's priority or drop it to SCHED_OTHER (the kernel lets it); put
 * back isod's grant or demotion. Returns how many were corrected. */
int isod_verify(struct isod *d);
/* The state file was (ok) or could not be (!ok) written with every
 * grant made since the last call. When not, those grants are undone —
 * demoted and forgotten: no thread stays RT without a record. Returns how
 * many were undone. */
int isod_recorded(struct isod *d, bool ok);
void isod_enforce_step(struct isod *d, int64_t now_ns);
void isod_demote_all(struct isod *d);
/* Called by the server thread: if the enforcer is late by a long while
 * for the check it planned (starved by RT tasks above it), nothing
 * polices the budget, so
 * demote every ISO thread until it runs again. Takes d->lock itself (or
 * gives up this time if it is held). */
void isod_watchdog(struct isod *d, int64_t now_ns);
/* The enforcer's schedule (schedule.c). isod_schedule_init: 0 or a
 * negative errno. isod_replan: something the plan depends on changed (a
 * grant, a release, an exit, a retune): the enforcer plans again at once.
 * isod_plan: the time of the next check (ISO_PLAN_NEVER: none). Caller
 * holds d->lock for the last two. */
int isod_schedule_init(struct isod *d);
void isod_replan(struct isod *d);
int64_t isod_plan(const struct isod *d, int64_t now_ns);
void isod_thread_info(const struct isod *d, const struct tracked *e,
		      struct iso_thread_info *out);
void isod_status_info(const struct isod *d, struct iso_status_info *out);
/* The per-user shares and the uids from offset on (ISO_PROTO_PAGE at
 * most) into page (shares.c); returns how many. Caller holds d->lock. */
uint32_t isod_users_page(const struct isod *d, uint32_t offset,
			 struct iso_users_info *out, struct iso_user_info *page);

#endif
