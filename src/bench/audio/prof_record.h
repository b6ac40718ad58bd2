/* prof_record.h — one cycle of one driver as PipeWire's profiler reports
 * it (module-profiler, the Profiler interface pw-profiler reads): what
 * prof_decode.c makes of a record and prof_count.c counts. Plain data, no
 * PipeWire types, so that the counting is tested on literal records. */
#ifndef ISOBENCH_PROF_RECORD_H
#define ISOBENCH_PROF_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#define PROF_MAX_FOLLOWERS 64 /* pw-profiler's own limit */
#define PROF_NAME_MAX 128

/* A node's activation status at the end of the cycle (PipeWire's
 * PW_NODE_ACTIVATION_*): anything but FINISHED means the node had not
 * done its work when the driver's cycle ended. */
enum prof_status {
	PROF_NOT_TRIGGERED = 0,
	PROF_TRIGGERED = 1,
	PROF_AWAKE = 2,
	PROF_FINISHED = 3,
	PROF_INACTIVE = 4,
	PROF_UNKNOWN = 5, /* a value PipeWire may add later */
	PROF_NSTATUS
};

struct prof_follower {
	uint32_t id;              /* the node's global id */
	char name[PROF_NAME_MAX]; /* its node.name */
	int32_t status;           /* enum prof_status, as PipeWire sent it */
};

struct prof_cycle {
	bool have_counter, have_clock, have_driver;
	int64_t counter;      /* the driver's cycle counter (info) */
	int64_t xruns;        /* the driver's xrun count so far; -1: not sent */
	uint32_t driver_id;
	char driver_name[PROF_NAME_MAX];
	int64_t nsec;         /* the cycle's start, CLOCK_MONOTONIC ns (clock) */
	uint64_t quantum;     /* clock duration, in samples */
	uint32_t rate;        /* clock rate denominator (48000) */
	int nfollowers;
	struct prof_follower f[PROF_MAX_FOLLOWERS];
};

#endif
