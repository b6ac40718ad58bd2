/* run.c — isobench --audio's entry (audio.h): the result set up, a stop
 * on SIGINT/SIGTERM, the server's run (jack.c, pipewire.c). */
#include <signal.h>
#include <string.h>

#include "window.h"

/* async-signal-safe: it sets a flag */
static void on_stop(int sig)
{
	(void)sig;
	window_request_stop();
}

int audio_run(const struct audio_opts *o, struct audio_result *r)
{
	struct sigaction sa = { .sa_handler = on_stop };
	int rc;

	memset(r, 0, sizeof(*r));
	r->server = o->server;
	r->seconds = o->seconds;
	r->work_pct = o->work_pct;
	r->forced_quantum = o->quantum;
	r->driver_xruns = -1;
	r->policy_start = r->prio_start = r->policy_end = r->prio_end = -1;
	/* a stop ends the window early; the quantum is still put back */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = o->server == AUDIO_JACK ? audio_run_jack(o, r) : audio_run_pipewire(o, r);
	if (rc == 0) {
		r->done = true;
		r->unfinished_pct = r->cycles ? 100.0 * (double)r->unfinished / (double)r->cycles : 0;
	}
	return rc;
}
