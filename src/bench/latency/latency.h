/* latency.h — isobench --policy: wakeup latency and deadline misses of
 * periodic threads under load, per scheduling policy, side by side.
 *   policy.c   the policies: names, root or isod, the kernel policy
 *   measure.c  one child process per policy run, N periodic threads
 *   load.c     the load: SCHED_OTHER CPU hogs and a memory toucher
 *   run.c      latency_run: calibrate, isod, load, the rounds
 *   output.c   the text table and the JSON object; plot.c the SVG
 *   ratio.c    iso against fifo (iso-rr against rr): pooled and per round */
#ifndef ISOBENCH_LATENCY_H
#define ISOBENCH_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/stats.h"

#define BENCH_MAX_THREADS 64
#define BENCH_MAX_POLICIES 12

enum bench_policy {
	POL_NORMAL,
	POL_NORMAL_NICE20,
	POL_FIFO,
	POL_RR,
	POL_ISO,
	POL_ISO_RR,
	POL_DL,     /* root: kernel SCHED_DEADLINE, the reference of iso-dl */
	POL_ISO_DL, /* nobody: a reservation from isod (iso_set_reservation) */
	POL_COUNT
};

const char *policy_name(enum bench_policy p);
int policy_parse(const char *name); /* -1 if unknown */
bool policy_needs_root(enum bench_policy p);
bool policy_is_iso(enum bench_policy p);
/* SCHED_FIFO, SCHED_RR, SCHED_DEADLINE (6) or SCHED_OTHER: what the
 * kernel should run. */
int policy_kernel(enum bench_policy p);
/* dl or iso-dl: a reservation, which the kernel refuses to a thread
 * bound to fewer CPUs than its root domain (not pinned, measure.c) */
bool policy_is_deadline(enum bench_policy p);
/* The reservation's runtime for a period and the work's share of it:
 * 1.5 times the work and 50 us, at most 90 % of the period (the work is
 * calibrated, a load's cache misses make it longer; the same for dl and
 * iso-dl, so the two compare). */
uint64_t policy_dl_runtime_ns(uint64_t period_ns, double work_pct);

enum load_kind { LOAD_NONE, LOAD_CPU, LOAD_CPU_VM };

const char *load_name(enum load_kind k);
/* Start the hogs; each dies by itself after max_s seconds and when this
 * process dies. The number started, or -errno (said on stderr). */
int load_start(enum load_kind k, unsigned max_s);
void load_stop(void);
/* Async-signal-safe: SIGKILL every hog still running. */
void load_kill_all(void);

struct bench_config {
	int threads;
	uint64_t period_ns;
	double work_pct;
	double duration_s;   /* per policy, all rounds */
	uint64_t work_loops; /* calibrated loop count per period */
	int rounds;          /* turns the duration is split into */
	int rt_prio;         /* kernel priority of fifo and rr */
	int round;           /* this turn's round: where its threads start */
};

struct latency_opts {
	struct bench_config cfg;
	enum bench_policy pols[BENCH_MAX_POLICIES];
	int npol;
	enum load_kind load;
	const char *socket;  /* a running isod's, or NULL: a private one */
	const char *isod;    /* --isod */
};

enum run_state { RUN_OK, RUN_FAILED, RUN_SKIPPED };

/* One policy's turn in one round (--rounds): kept besides the pooled
 * histogram so that two policies can be compared round by round. */
struct round_stat {
	uint64_t samples, misses;
	double p50_us, p99_us, max_us;
	int position; /* 0: ran first in its round (the order rotates) */
	int cpu;      /* where thread 0 was pinned (-1: not pinned) */
	double on_cpu_pct; /* of its samples, taken on that CPU */
};

struct bench_result {
	enum bench_policy policy;
	enum run_state state;
	char note[320];
	uint64_t samples, misses;
	uint64_t policy_lost; /* checks that found the thread not in its policy */
	int kernel_policy, kernel_prio; /* as the kernel ran thread 0 */
	int iso_band_lo, iso_band_hi;
	int pinned_cpu;        /* one turn's: where thread 0 was pinned, or -1 */
	uint64_t on_pinned_cpu; /* one turn's: samples of all threads on their CPU */
	struct hist *hist; /* merged over threads and rounds */
	struct round_stat *rounds; /* [cfg.rounds], the first nrounds done */
	int nrounds;
};

struct latency_result {
	struct bench_config cfg;
	enum load_kind load;
	int hogs;
	struct bench_result results[BENCH_MAX_POLICIES];
	int nresults;
};

/* The hard time bound of a run, in s. */
unsigned latency_bound_s(const struct latency_opts *o);
/* Run every policy (skipping those that need root or isod when there is
 * none): 0 all ran or were skipped, -1 one failed (see its note). The
 * result's histograms are freed by latency_result_free. */
int latency_run(const struct latency_opts *o, struct latency_result *r);
void latency_result_free(struct latency_result *r);

/* Run one policy in a child process (measure.c); fills res, whose hist
 * the caller owns. */
void run_policy(const struct bench_config *cfg, enum bench_policy pol,
		struct bench_result *res);

void latency_print_text(const struct latency_result *r);
void latency_print_json(const struct latency_result *r);

struct json;
/* The "ratio ..." lines of the text output (ratio.c). */
void latency_ratios_text(const struct latency_result *r);
/* The "ratios" (pooled) and "ratios_per_round" members of the JSON. */
void latency_ratios_json(struct json *j, const struct latency_result *r);
/* The histograms as "policy lower_us upper_us count" lines: 0 or -1 with
 * errno. */
int latency_write_histograms(const struct latency_result *r, const char *path);
/* The latency curves of the runs that succeeded as an SVG file
 * (percentile on a "nines" axis against latency on a log axis): 0 or -1
 * with errno. */
int latency_write_svg(const struct latency_result *r, const char *path);

#endif
