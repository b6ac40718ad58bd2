/* isolation.h — isobench --isolation (issue 32): does user A's periodic
 * thread keep its deadlines while user B's higher-priority ISO threads
 * burst in step on every CPU within the budget? A as band ISO, A with a
 * declared reservation, and A as root SCHED_DEADLINE (the kernel's
 * reference), without and with CPU+VM load (run.c runs them, out.c prints
 * them). */
#ifndef ISOBENCH_ISOLATION_H
#define ISOBENCH_ISOLATION_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define ISOL_PERIOD_NS 5333333ull  /* a 256-frame period at 48 kHz */
#define ISOL_WORK_NS 1000000ull    /* A's work each period */
#define ISOL_RUNTIME_NS 1200000ull /* its reservation: the work and some slack */
#define ISOL_BURST_PERIOD_NS 20000000ull
#define ISOL_BURST_NS 12000000ull  /* B bursts 12 ms of every 20 ms */
#define ISOL_VICTIM_PRIO 10        /* A's ISO_FIFO priority as band ISO */
#define ISOL_AGGR_PRIO 90          /* B's, higher */
#define ISOL_AGGR_UID 1            /* user B: daemon */
#define ISOL_RUNS 3                /* interleaved runs per cell (median) */
#define ISOL_MAX_CPUS 64

enum isol_victim { VIC_ISO, VIC_RESERVE, VIC_ROOT_DL, VIC_COUNT };
enum isol_load { ISOL_IDLE, ISOL_CPU_VM, ISOL_LOADS };

extern const char *const isol_victim_name[VIC_COUNT];
extern const char *const isol_load_name[ISOL_LOADS];

struct isolation_opts {
	const char *isod; /* --isod, or NULL */
	double window_s;  /* one run */
	bool progress;    /* a line on stderr after each run */
};

struct isol_cell {
	int nruns;
	uint64_t periods[ISOL_RUNS], missed[ISOL_RUNS];
	double miss_pct[ISOL_RUNS];
	double median_pct;
	int demoted_runs;  /* runs that ended with A not as it started */
	char note[160];    /* why a run did not happen */
};

struct isolation_result {
	bool started;
	int ncpu;
	double window_s;
	double aggr_cpu_pct; /* B's CPU use, percent of all CPUs (last run) */
	struct isol_cell c[ISOL_LOADS][VIC_COUNT];
};

unsigned isolation_bound_s(const struct isolation_opts *o);
/* Root. 0 every run ran, -1 one did not (see its note). */
int isolation_run(const struct isolation_opts *o, struct isolation_result *r);
void isolation_print_text(const struct isolation_result *r);
void isolation_print_json(const struct isolation_result *r);

#endif
