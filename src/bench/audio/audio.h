/* audio.h — isobench --audio: xruns of a real audio graph. One JACK
 * client in this process, busy --work % of each period, for --seconds:
 *   pipewire (pipewire.c)  under pw-jack: PipeWire's own profiler record
 *                          of each cycle (graph.c, prof_decode.c,
 *                          prof_count.c) says in which our node had not
 *                          finished when its driver ended the cycle
 *   jack (jack.c)          against jackd: the client counts its own late
 *                          cycles (jclient.c)
 * run.c starts either; window.c holds what they share (the client's
 * start, the window, a stop); out.c prints the result; avail.c says
 * whether isobench was built with libjack and libpipewire (stub.c stands
 * in when it was not). As any
 * client of the user, no root, no isod: who gives the client real time
 * (rtkit, isod, nobody) is the environment's business. */
#ifndef ISOBENCH_AUDIO_H
#define ISOBENCH_AUDIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum audio_server { AUDIO_PIPEWIRE, AUDIO_JACK };

#define AUDIO_STATUSES 6 /* prof_record.h's PROF_NSTATUS */

struct audio_opts {
	enum audio_server server;
	double seconds;   /* recorded */
	double work_pct;  /* busy share of each period */
	unsigned quantum; /* pipewire: clock.force-quantum; 0 leaves it */
	double warmup_s;  /* the client runs this long before the window opens */
};

struct audio_result {
	enum audio_server server;
	double seconds, work_pct;
	char client[128];      /* the JACK client's (node's) name */
	unsigned forced_quantum, quantum, rate;
	/* the measure: cycles, those the client had not finished in time
	 * (pipewire: the profiler's records, as pw-profiler logs them) */
	uint64_t cycles, unfinished;
	double unfinished_pct;
	/* pipewire: the profiler's view */
	uint64_t by_status[AUDIO_STATUSES]; /* our node's status at cycle end */
	uint64_t graph_cycles, late_cycles; /* distinct cycles, those unfinished */
	int64_t driver_xruns;  /* the driver's xrun count over the run; -1: none */
	uint64_t missing;      /* driver cycles the profiler sent no record of */
	/* the client's own view (both servers) */
	uint64_t client_cycles, client_late, jack_xruns;
	/* the kernel's policy of the client's process thread, when the window
	 * opened and when it closed */
	pid_t tid;
	int policy_start, prio_start, policy_end, prio_end; /* -1: unknown */
	bool done;
	char note[256];        /* why the run failed */
};

/* NULL when --audio SERVER can run in this build, else why not. */
const char *audio_missing(enum audio_server s);
const char *audio_server_name(enum audio_server s);
unsigned audio_bound_s(const struct audio_opts *o);
/* 0 the run was measured; -1 it failed (r->note says why). */
int audio_run(const struct audio_opts *o, struct audio_result *r);
void audio_print_text(const struct audio_result *r);
void audio_print_json(const struct audio_result *r);

#endif
