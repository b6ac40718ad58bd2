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

#include "accounting.h"
#include "config.h"
#include "events.h"
#include "iso_engine.h"
#include "iso_plan.h"
#include "iso_recent.h"
#include "iso_percpu.h"
#include "nsmap.h"
#include "iso_share.h"
#include "iso_proto.h"
#include "statefile.h"
#include "stray_log.h"
#include "isosched.h"
#include "tasks.h"

struct isod {
	struct isod_config cfg;
	const char *proc;          /* "/proc"; tests may point elsewhere */
	struct nsmap nsmap;        /* namespaced clients' thread ids (nsmap.h); server thread only */
	const struct accounting *acct; /* where CPU time comes from (accounting.h) */
	pthread_mutex_t lock;      /* PTHREAD_PRIO_INHERIT */
	struct iso_engine engine;
	struct iso_share share;    /* per-user shares (user_cpu); table of max_threads */
	struct iso_percpu percpu;  /* scope per-cpu: each CPU's average (percpu.h) */
	struct iso_reserve reserve; /* admitted reservations (reserve.h); table of max_threads */
	/* a USERS reply's entries: only the server thread builds replies */
	struct iso_user_info user_page[ISO_PROTO_PAGE];
	struct iso_top_info top_page; /* a TOP reply's body: likewise */
	struct event_ring events;  /* recent events for isoctl top (events.h), under lock */
	struct iso_recent recent;  /* the burst guard's records of threads that
				    * left lately (leave.h), under lock; zeroed:
				    * empty */
	struct task_table tasks;
	atomic_bool stop;
	atomic_bool state_dirty;   /* state file needs rewriting */
	atomic_bool reload;        /* SIGHUP seen: rebuild the configuration */
	const struct config_source *src;
	struct statefile_buf state; /* the state file's text (statefile.h) */
	atomic_int_least64_t last_step_ns; /* CLOCK_MONOTONIC of the enforcer's last step */
	bool watchdog_fired;       /* isod_watchdog demoted; until the enforcer runs */
	/* processes that lost a tracked thread (strays.h), under lock */
	pid_t lost_pids[32];
	unsigned n_lost;
	bool lost_overflow;        /* more than fit: audit the whole machine */
	struct stray_log stray_log; /* stray warnings and counts (stray_log.h), under lock */
	int64_t next_audit_ns, next_verify_ns; /* server thread only */
	unsigned verify_count;                 /* server thread only */
	int64_t verified_ns;                   /* the last policy check began after this; server thread only */
	const char *server_busy;               /* why the server looks every 100 ms (NULL: it does not); server thread only */
	uint64_t samples;          /* enforcer steps done */
	uint64_t sample_ns_total;  /* CPU time spent in them */
	/* the enforcer's schedule (schedule.c) */
	pthread_cond_t wake;       /* it sleeps on this (with lock) until its next check */
	bool replan;               /* the plan's inputs changed: plan again */
	bool backend_look;         /* the backend changed: check at once (d->lock) */
	/* the threads' part of the enforcer's last plan, and of the grants
	 * since (isod_replan_if_sooner); ok: there is one (d->lock) */
	struct iso_plan plan_threads;
	bool plan_threads_ok;
	atomic_int_least64_t due_ns; /* its next check, CLOCK_MONOTONIC;
				      * ISO_PLAN_NEVER: none (the watchdog's reference) */
	uint64_t wakeups;          /* times it woke (a check or a re-plan) */
	/* The server sleeps while no thread is tracked (strays_timeout_ms):
	 * the process connector's events reach it only while one is
	 * (forkwatch_follow), and a lost thread's process to check wakes it
	 * through server_wake (an eventfd). Under lock. */
	int forkfd;                /* the process connector, -1: none */
	bool forkwatch_on;         /* joined to its events */
	int server_wake;           /* eventfd, -1: none */
};

int isod_init(struct isod *d, const struct isod_config *cfg);
void isod_destroy(struct isod *d);
/* Take over what can change at run time from a new configuration
 * (tunables, caps, allow lists, inherit, log level); say what needs a
 * restart. Caller holds d->lock. */
void isod_reconfigure(struct isod *d, const struct isod_config *cfg);

/* The per-user shares and the uids from offset on (ISO_PROTO_PAGE at
 * most) into page (shares.c); returns how many. Caller holds d->lock. */
uint32_t isod_users_page(const struct isod *d, uint32_t offset,
			 struct iso_users_info *out, struct iso_user_info *page);

#endif
