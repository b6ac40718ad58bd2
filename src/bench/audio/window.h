/* window.h — what the two --audio runs share (window.c): the JACK
 * client's start and end around the recorded window, and the stop
 * request of SIGINT/SIGTERM; and the two runs (jack.c, pipewire.c), which
 * run.c calls. */
#ifndef ISOBENCH_AUDIO_WINDOW_H
#define ISOBENCH_AUDIO_WINDOW_H

#include <stdbool.h>

#include "audio.h"
#include "jclient.h"

/* Start the client and wait for its first cycles: its name, quantum,
 * rate and thread go into r, and a line "isobench: ready ..." to stderr
 * (the window opens --warmup seconds later: time for a script to act on
 * the client, as root's chrt in xrun_one.sh). 0, or -1 (r->note). */
int window_client_begin(const struct audio_opts *o, struct audio_result *r);
/* The window opens: the client's policy and counts now. */
void window_open(struct audio_result *r);
/* The window closes: the client's counts since it opened into r, its
 * policy now; then the client stops. */
void window_client_end(struct audio_result *r);
/* SIGINT or SIGTERM came: stop recording, clean up, report (the flag,
 * and the signal handler's way to set it). */
const volatile bool *window_stop_flag(void);
void window_request_stop(void);

int audio_run_pipewire(const struct audio_opts *o, struct audio_result *r);
int audio_run_jack(const struct audio_opts *o, struct audio_result *r);

#endif
