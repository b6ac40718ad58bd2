/* stall.h — isobench --stall: a probe's stalls during a runaway, per
 * scenario (stall.c runs them, stall_out.c prints them). */
#ifndef ISOBENCH_STALL_H
#define ISOBENCH_STALL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define STALL_GAP_NS 50000000ull /* a gap longer than this is a stall */
#define MAX_GAPS 256
#define MAX_SPINNERS 64
#define SPIN_PRIO 50
#define PARENT_PRIO 60

enum scenario { SC_ISO, SC_ISO_CAP, SC_ISO_PATCH, SC_FIFO_ROOT, SC_RTTIME, SC_COUNT };

/* scenario names and what each is (stall_out.c) */
extern const char *const sc_name[SC_COUNT];
extern const char *const sc_what[SC_COUNT];

struct periodic_result {
	uint64_t periods, demoted_periods;
	int demotions, granted;
};

/* Shared with the children (MAP_SHARED). */
struct spin_stat {
	int granted, failed;
	int demotions, restores;
	uint64_t first_demote_ns; /* since the spinners' start; 0 = none */
};

struct shared {
	/* the probe */
	atomic_int probe_stop;
	uint64_t longest_ns, stalled_ns;
	unsigned ngaps;
	uint64_t gap_at_ns[MAX_GAPS], gap_ns[MAX_GAPS];
	/* the spinners */
	uint64_t spin_t0_ns, spin_stop_ns;
	struct spin_stat sp[MAX_SPINNERS];
	/* the periodic threads */
	struct periodic_result per[4];
	char error[256];
};

struct sc_result {
	bool ran;
	char note[160];
	double longest_ms, stalled_ms, window_ms, first_demote_ms;
	unsigned ngaps;
	int killed, spinners, demotions;
	double gap_at_s[MAX_GAPS], gap_ms[MAX_GAPS]; /* from the probe's start */
};

struct periodic_spec {
	uint64_t period_ns;
	int duty;
	int round;
};
/* the periodic threads, in stall.c */
extern const struct periodic_spec periodic[4];

struct stall_opts {
	const char *isod; /* --isod, or NULL */
	double window_s;
	bool progress; /* a line on stderr after each scenario */
};

struct stall_result {
	bool started;  /* isod found: the scenarios ran or said why not */
	int ncpu;
	double window_s;
	struct sc_result sc[SC_COUNT];
	struct periodic_result per[4];
	char periodic_note[160];
};

/* The hard time bound of a run, in s. */
unsigned stall_bound_s(const struct stall_opts *o);
/* Root. 0 every scenario ran, -1 one did not (see its note). */
int stall_run(const struct stall_opts *o, struct stall_result *r);
/* stall_out.c */
void stall_print_text(const struct stall_result *r);
void stall_print_json(const struct stall_result *r);

#endif
