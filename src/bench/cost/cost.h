/* cost.h — isobench --daemon-cost: what isod itself costs.
 *   client.c  the process of user nobody: N granted sleepers, R requests
 *   run.c     cost_run: a private isod per thread count, its CPU time, the fit
 *   floor.c   the same round trip to a server that answers at once
 *   out.c     the text table and the JSON object */
#ifndef ISOBENCH_COST_H
#define ISOBENCH_COST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"
#include "common/stats.h"

struct cost_opts {
	const char *isod; /* --isod, or NULL */
	int nthreads[MODE_MAX_LIST], n_nthreads;
	double window_s;
	int requests;
	const char *accounting; /* --accounting for the private isods, or NULL */
	double iso_load_pct;    /* --iso-load: the threads' ISO use, % of the machine */
};

struct cost_point {
	int n, tracked;
	bool ok;
	double cpu_pct, cpu_pct_stat, window_s;
	double enf_pct; /* of it, the enforcer thread (SCHED_FIFO) */
	double wakeups_per_s; /* isod's threads put on a CPU, per second */
	double set_p50, set_p99, set_max, rel_p50, rel_p99;
	double req_isod_us; /* isod CPU per request (set + release pair) */
	uint64_t requests, eagain, policy_errors, request_errors;
	char note[320];
};

/* A round trip with nothing behind it (floor.c), on a new connection each:
 * where the scheduler puts client and server, both on one CPU, each on a
 * CPU of its own; and on one kept connection (as libisosched sends every
 * call after a process's first), where the scheduler puts them. */
enum { COST_FLOOR_FREE, COST_FLOOR_SAME, COST_FLOOR_ACROSS, COST_FLOOR_KEPT, COST_FLOOR_WAYS };

struct cost_floor {
	bool ok;
	double p50_us, p99_us;
	char note[96];
};

struct cost_result {
	double sample_ms, window_s;
	int requests;
	bool rate_limit_off;
	const char *accounting;      /* asked of isod, or "isod's default" */
	double iso_load_pct;         /* the threads' own ISO use, % of the machine */
	struct cost_point points[MODE_MAX_LIST];
	int npoints;
	int nfit;                    /* points in the fit */
	double slope, intercept;     /* isod %cpu = intercept + slope * threads */
	double per_thread_ns;        /* slope as ns per thread per sample */
	struct cost_floor floor[COST_FLOOR_WAYS]; /* none measured without requests */
};

/* --threads-list's largest count */
#define COST_MAX_THREADS 4096

/* The hard time bound of a run, in s. */
unsigned cost_bound_s(const struct cost_opts *o);
/* Root. 0 every point ran, -1 one failed (see its note). */
int cost_run(const struct cost_opts *o, struct cost_result *r);
void cost_print_text(const struct cost_result *r);
void cost_print_json(const struct cost_result *r);
/* floor.c: the round trip's floor, each way (out[i].ok: measured) */
void cost_floor_measure(int requests, struct cost_floor out[COST_FLOOR_WAYS]);

/* client.c: shared between the parent and the client (MAP_SHARED) */
struct cost_shared {
	atomic_int granted, failed, ready, phase; /* phase 1: requests, 2: done */
	int n, requests;
	int64_t work_ns, period_ns; /* each thread's work per period (0: asleep) */
	uint64_t eagain, policy_errors, request_errors;
	char error[256];
	atomic_flag error_taken;
	struct hist set, rel;
};

/* Fork the client (tracked for the signal handler): its pid or -errno. */
pid_t cost_client_start(struct cost_shared *sh, unsigned bound_s);

#endif
