/* graph.h — isobench --audio pipewire's view of the PipeWire daemon of
 * its environment (PIPEWIRE_REMOTE / PIPEWIRE_RUNTIME_DIR /
 * XDG_RUNTIME_DIR, as any client): its Profiler, to read each cycle's
 * records, and its "settings" metadata, to force the quantum and put it
 * back. Returns 0 or -errno; why (whylen bytes) says what failed. */
#ifndef ISOBENCH_AUDIO_GRAPH_H
#define ISOBENCH_AUDIO_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "prof_decode.h"

struct graph;

/* Connect, find the Profiler (and the settings metadata); *g on success. */
int graph_open(struct graph **g, char *why, size_t whylen);
/* clock.force-quantum := quantum on subject 0, as
 * `pw-metadata -n settings 0 clock.force-quantum Q` does; graph_close
 * puts back the value it had. */
int graph_force_quantum(struct graph *g, unsigned quantum, char *why, size_t whylen);
/* Serve the connection for seconds (or until *stop), passing every
 * profiler record to each(cycle, ctx) when each is not NULL, else
 * dropping them. 0, or -EPIPE when the daemon went away. */
int graph_run(struct graph *g, double seconds, prof_cycle_fn *each, void *ctx,
	      const volatile bool *stop);
/* Put the quantum back, disconnect, free. */
void graph_close(struct graph *g);

#endif
