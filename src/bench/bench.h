/* bench.h — isobench internals, shared by its parts:
 *   main.c     command line, orchestration, cleanup (atexit, signals, alarm)
 *   measure.c  calibrated work, the periodic measuring threads, one child
 *              process per policy run (privilege drop for the iso modes)
 *   load.c     the load generator: SCHED_OTHER CPU hogs and a memory toucher
 *   isod.c     finding, starting, waiting for and stopping a private isod
 *   stats.c    HDR-style latency histogram and percentiles
 *   output.c   table, JSON, ratio lines
 *   enforce.c, cost.c, stall.c (+ stall_out.c, stall.h)  the other modes
 */
#ifndef ISOBENCH_H
#define ISOBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define BENCH_MAX_THREADS 64
#define BENCH_MAX_POLICIES 12
#define BENCH_PRIO 50 /* the same priority number for fifo, rr, iso, iso-rr */

/* ---- stats.c ------------------------------------------------------------ */

/* Log-linear histogram of nanosecond values: exact below 2^HIST_SUB_BITS ns,
 * then 2^HIST_SUB_BITS sub-buckets per power of two (relative error below
 * 1/256). Fixed size, no allocation: safe to place in shared memory. */
#define HIST_SUB_BITS 8
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (HIST_SUB * (65 - HIST_SUB_BITS))

struct hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *into, const struct hist *from);
/* The value at percentile p (0 < p <= 100), in ns; 0 for an empty one. */
double hist_percentile_ns(const struct hist *h, double p);
/* The values [*lo, *lo + *width) that land in bucket i, in ns. */
void hist_bucket_range(unsigned i, uint64_t *lo, uint64_t *width);
/* Write the non-empty buckets as "label lower_us upper_us count" lines. */
void hist_write(const struct hist *h, const char *label, FILE *f);

/* ---- policies ----------------------------------------------------------- */

enum bench_policy {
	POL_NORMAL,
	POL_NORMAL_NICE20,
	POL_FIFO,
	POL_RR,
	POL_ISO,
	POL_ISO_RR,
	POL_COUNT
};

const char *policy_name(enum bench_policy p);
int policy_parse(const char *name); /* -1 if unknown */
bool policy_needs_root(enum bench_policy p);
bool policy_is_iso(enum bench_policy p);

/* ---- measure.c ---------------------------------------------------------- */

struct bench_config {
	int threads;
	uint64_t period_ns;
	double work_pct;
	double duration_s;
	uint64_t work_loops; /* calibrated loop count per period */
	int rounds;          /* turns the duration is split into */
	int rt_prio;         /* kernel priority of fifo and rr */
};

enum run_state { RUN_OK, RUN_FAILED, RUN_SKIPPED };

struct bench_result {
	enum bench_policy policy;
	enum run_state state;
	char note[320];
	uint64_t samples, misses;
	uint64_t policy_lost; /* checks that found the thread not in its policy */
	int kernel_policy, kernel_prio; /* as the kernel ran thread 0 */
	int iso_band_lo, iso_band_hi;
	struct hist *hist; /* merged over threads; owned by the caller */
};

/* The calling thread's kernel policy without SCHED_RESET_ON_FORK (isod
 * sets it), or -1. */
int bench_kernel_policy(void);
uint64_t bench_clock_ns(clockid_t c);
void bench_sleep_ns(uint64_t ns); /* restarted after signals */

/* Loops of the calibrated busy work per nanosecond of CPU time. */
double calibrate_loops_per_ns(void);
void busy_work(uint64_t loops);

/* In a freshly forked child: default signal handlers, deathsig when the
 * parent dies. False if the parent is already gone (then _exit). */
bool child_bind_to_parent(pid_t parent, int deathsig);
/* One look at child p: 1 it has ended (or cannot be waited for), 0 it
 * still runs, -1 it ran past deadline_ns (CLOCK_MONOTONIC) and has been
 * killed and reaped. *status as waitpid sets it. */
int child_reap(pid_t p, uint64_t deadline_ns, int *status);
/* A child that runs RT threads as nobody: bound to its parent (SIGKILL),
 * an alarm after bound_s, RLIMIT_RTTIME rt_us (bounded RT — and so never
 * taken for a lost grant by an isod's start-up sweep) and, when started as
 * root, nobody's credentials. False (said on stderr) on failure. */
bool child_become_rt_nobody(pid_t parent, unsigned bound_s, uint64_t rt_us);
/* Drop every credential to nobody (uid/gid 65534, no groups): 0 or -1. A
 * credential change clears the parent-death signal: set it again. */
#define BENCH_NOBODY 65534
int bench_drop_to_nobody(void);

/* Run one policy in a child process; fills res (res->hist must point to a
 * struct hist the caller owns). *child_pid is set while the child lives so
 * that a signal handler can kill it. */
void run_policy(const struct bench_config *cfg, enum bench_policy pol,
		struct bench_result *res, volatile pid_t *child_pid);

/* ---- load.c ------------------------------------------------------------- */

enum load_kind { LOAD_NONE, LOAD_CPU, LOAD_CPU_VM };

const char *load_name(enum load_kind k);
/* Start the hogs; each dies by itself after max_s seconds and when this
 * process dies. Returns the number started, -1 on failure. */
int load_start(enum load_kind k, unsigned max_s);
void load_stop(void);
/* Async-signal-safe: SIGKILL every hog still running. */
void load_kill_all(void);

/* ---- isod.c ------------------------------------------------------------- */

/* Find the isod binary: explicit path, env ISOD, next to /proc/self/exe,
 * ../daemon/isod (build tree), PATH. Returns a malloc'ed path or NULL. */
char *isod_find(const char *explicit_path);
/* Start a private isod in a fresh temp dir, point ISOSCHED_SOCKET at it
 * and wait until it answers. 0 on success, else -1 with why in err. */
int isod_start_private(const char *isod_path, char *err, size_t errlen);
/* The same with extra isod arguments (a NULL-terminated list, at most 32). */
int isod_start_private_args(const char *isod_path, const char *const *extra,
			    char *err, size_t errlen);
/* Does `isod --help` list this option (e.g. "--rate-limit")? */
bool isod_has_option(const char *isod_path, const char *option);
/* The private isod's pid, 0 if none runs. */
pid_t isod_private_pid(void);
/* Does the daemon behind ISOSCHED_SOCKET answer? */
bool isod_answers(void);
void isod_stop_private(void);
/* Async-signal-safe: SIGTERM the private isod (bounded wait, then SIGKILL)
 * and remove its temp dir's known files. */
void isod_kill_private(void);

/* ---- output.c ----------------------------------------------------------- */

struct bench_report {
	const struct bench_config *cfg;
	enum load_kind load;
	int hogs;
	struct bench_result *results;
	int nresults;
};

void output_table(const struct bench_report *r);
void output_json(const struct bench_report *r);
/* plot.c: the latency curves of the runs that succeeded as an SVG file
 * (percentile on a "nines" axis against latency on a log axis). 0 or -1
 * with errno. */
int output_svg(const struct bench_report *r, const char *path);
/* JSON helpers shared by the modes (output.c). */
void json_string(const char *s);
void json_num(const char *key, double v);

/* ---- the other modes: enforce.c (--enforcement), cost.c (--daemon-cost) -- */

#define MODE_MAX_LIST 16

struct mode_opts {
	const char *isod_arg;
	bool json;
	/* --enforcement */
	int trials;
	int iso_cpu[MODE_MAX_LIST], n_iso_cpu;
	int iso_period_s;
	double window_s; /* CPU-share window (enforcement), cost window */
	/* --daemon-cost */
	int nthreads[MODE_MAX_LIST], n_nthreads;
	int requests;
};

/* Exit codes as main's: 0, 1 something failed. Need root. *child_pid is
 * the process to SIGKILL on a signal. */
int enforcement_main(const struct mode_opts *o, volatile pid_t *child_pid);
int daemon_cost_main(const struct mode_opts *o, volatile pid_t *child_pid);
/* stall.c (--stall): a probe's stalls during a runaway, per scenario. */
int stall_main(const struct mode_opts *o, volatile pid_t *child_pid);

#endif
