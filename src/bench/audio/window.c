/* window.c — what both --audio runs do around the recorded window
 * (window.h).
 *
 * The client runs WARMUP_CYCLES before the window opens, so that the
 * server's start (the graph's first cycles, the client's first page
 * faults) is not measured; its policy is read at both ends of the window
 * from /proc, where the kernel says what whoever gives RT (rtkit, isod)
 * really did. */
#include <stdio.h>
#include <unistd.h>

#include "common/procfs.h"
#include "window.h"

#define WARMUP_CYCLES 50
#define START_TIMEOUT_S 10.0

/* set by the signal handler, read by the loops */
static volatile bool stop_requested;
/* the client's counts when the window opened */
static struct jclient_counts at_begin;

void window_request_stop(void)
{
	stop_requested = true;
}

const volatile bool *window_stop_flag(void)
{
	return &stop_requested;
}

static void read_policy(pid_t tid, int *policy, int *prio)
{
	*policy = *prio = -1;
	if (tid > 0)
		procfs_sched(getpid(), tid, policy, prio);
}

int window_client_begin(const struct audio_opts *o, struct audio_result *r)
{
	char name[64];

	snprintf(name, sizeof(name), "isobench-%d", (int)getpid());
	if (jclient_start(name, o->work_pct, r->note, sizeof(r->note)) < 0)
		return -1;
	snprintf(r->client, sizeof(r->client), "%s", jclient_name());
	if (jclient_wait_cycles(WARMUP_CYCLES, START_TIMEOUT_S) < 0) {
		snprintf(r->note, sizeof(r->note), "the JACK client '%s' ran no %d cycles in %.0f s:"
			 " is the server's graph running?", r->client, WARMUP_CYCLES,
			 START_TIMEOUT_S);
		jclient_stop();
		return -1;
	}
	r->quantum = jclient_quantum();
	r->rate = jclient_rate();
	r->tid = jclient_thread();
	fprintf(stderr, "isobench: ready: client %s, process thread %d, quantum %u at %u Hz;"
		" recording in %.1f s\n", r->client, (int)r->tid, r->quantum, r->rate,
		o->warmup_s);
	return 0;
}

void window_open(struct audio_result *r)
{
	read_policy(r->tid, &r->policy_start, &r->prio_start);
	jclient_counts(&at_begin);
}

void window_client_end(struct audio_result *r)
{
	struct jclient_counts now;

	jclient_counts(&now);
	read_policy(r->tid, &r->policy_end, &r->prio_end);
	jclient_stop();
	r->client_cycles = now.cycles - at_begin.cycles;
	r->client_late = now.late - at_begin.late;
	r->jack_xruns = now.xruns - at_begin.xruns;
}

