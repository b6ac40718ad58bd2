/* run.h — what the two --audio runs share (run.c): the JACK client's
 * start and end around the recorded window, and the stop request of
 * SIGINT/SIGTERM. */
#ifndef ISOBENCH_AUDIO_RUN_H
#define ISOBENCH_AUDIO_RUN_H

#include <stdbool.h>

#include "audio.h"
#include "jclient.h"

/* Start the client and wait for its first cycles: its name, quantum,
 * rate and thread go into r, and a line "isobench: ready ..." to stderr
 * (the window opens --warmup seconds later: time for a script to act on
 * the client, as root's chrt in xrun_one.sh). 0, or -1 (r->note). */
int run_client_begin(const struct audio_opts *o, struct audio_result *r);
/* The window opens: the client's policy and counts now. */
void run_window_open(struct audio_result *r);
/* The window closes: the client's counts since it opened into r, its
 * policy now; then the client stops. */
void run_client_end(struct audio_result *r);
/* SIGINT or SIGTERM came: stop recording, clean up, report. */
const volatile bool *run_stop_flag(void);

int audio_run_pipewire(const struct audio_opts *o, struct audio_result *r);
int audio_run_jack(const struct audio_opts *o, struct audio_result *r);

#endif
