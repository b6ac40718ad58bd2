/* prof_count.h — profiler records into the counts --audio pipewire
 * reports: in how many of the cycles of our node's driver our node (the
 * follower named as our JACK client) had not finished, its statuses, the
 * driver's xruns and the records the profiler dropped. Pure. */
#ifndef ISOBENCH_PROF_COUNT_H
#define ISOBENCH_PROF_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "prof_record.h"

struct prof_count {
	char name[PROF_NAME_MAX]; /* our node's node.name */
	int64_t from_ns, to_ns;   /* the window (clock nsec); 0, 0: any time */
	bool found;               /* our node appeared: id, driver_id are set */
	uint32_t id, driver_id;
	/* A record is sent when a cycle completes, and also when the driver's
	 * timer finds the graph unfinished (PipeWire's "incomplete"): one
	 * cycle (one clock nsec) may have several records. */
	uint64_t cycles;          /* records of our driver with our node in them */
	uint64_t unfinished;      /* ... in which its status was not finished */
	uint64_t graph_cycles;    /* distinct cycles (clock nsec) among them */
	uint64_t late_cycles;     /* ... with a record of it unfinished */
	int64_t last_nsec;        /* the cycle of the last record counted */
	bool last_late;
	uint64_t by_status[PROF_NSTATUS];
	uint64_t driver_records;  /* every record of our driver */
	int64_t counter_first, counter_last; /* its cycle counter, first and last */
	int64_t xruns_first, xruns_last;     /* its xrun count; -1: never sent */
	uint64_t quantum;         /* the last record's */
	uint32_t rate;
};

void prof_count_init(struct prof_count *c, const char *name);
/* Count only the cycles that started in [from_ns, to_ns] (CLOCK_MONOTONIC,
 * as the records' clock): the profiler sends its records late, the ones
 * of cycles before the window included. */
void prof_count_window(struct prof_count *c, int64_t from_ns, int64_t to_ns);
/* Count one record (prof_cycle_fn's shape: ctx is the struct prof_count). */
void prof_count_feed(const struct prof_cycle *cy, void *ctx);
/* The driver's xruns between the first and the last record, -1 when the
 * profiler sent no count. */
int64_t prof_count_driver_xruns(const struct prof_count *c);
/* Cycles of our driver the profiler sent no record of (its buffer
 * overflowed), from the gaps in its counter; 0 without a counter. */
uint64_t prof_count_missing(const struct prof_count *c);

#endif
