/* jclient.c — the JACK load client (jclient.h), the idea of
 * tests/integration/desktop/jack_load.c inside isobench.
 *
 * The process callback runs on the server's data thread (jackd's client
 * thread, PipeWire's data loop under pw-jack): it spins, never locks, and
 * talks to the main thread through atomics only. */
#include <errno.h>
#include <jack/jack.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "jclient.h"

/* the one client of this process, shared with JACK's callbacks (they get
 * no other context than this) */
static struct {
	jack_client_t *client;
	jack_port_t *out;
	double work_pct;
	_Atomic uint64_t cycles, late, xruns;
	_Atomic pid_t tid;
	atomic_bool stop;
} jc;

static uint64_t now_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}

/* The period's deadline is the next cycle's start, in JACK's clock
 * (jack_get_time, microseconds): a callback that ends after it did not
 * have its buffer ready in time. */
static int on_process(jack_nframes_t n, void *arg)
{
	jack_nframes_t frames;
	jack_time_t usecs, next_usecs;
	float period_usecs;
	uint64_t start = now_ns(), period_ns;
	float *buf = jack_port_get_buffer(jc.out, n);

	(void)arg;
	if (!atomic_load_explicit(&jc.tid, memory_order_relaxed))
		atomic_store(&jc.tid, gettid());
	period_ns = (uint64_t)n * 1000000000u / jack_get_sample_rate(jc.client);
	while (now_ns() - start < (uint64_t)((double)period_ns * jc.work_pct / 100.0) &&
	       !atomic_load_explicit(&jc.stop, memory_order_relaxed))
		;
	if (buf)
		memset(buf, 0, n * sizeof(*buf));
	if (jack_get_cycle_times(jc.client, &frames, &usecs, &next_usecs, &period_usecs) == 0 &&
	    jack_get_time() > next_usecs)
		atomic_fetch_add(&jc.late, 1);
	atomic_fetch_add(&jc.cycles, 1);
	return 0;
}

static int on_xrun(void *arg)
{
	(void)arg;
	atomic_fetch_add(&jc.xruns, 1);
	return 0;
}

int jclient_start(const char *name, double work_pct, char *why, size_t whylen)
{
	jack_status_t st;

	jc.work_pct = work_pct;
	jc.client = jack_client_open(name, JackNoStartServer, &st);
	if (!jc.client) {
		snprintf(why, whylen, "no JACK server to connect to (jack_client_open status 0x%x%s)",
			 (unsigned)st, st & JackServerFailed ? ": none running; for PipeWire run"
			 " isobench under pw-jack" : "");
		return -1;
	}
	jc.out = jack_port_register(jc.client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
	if (!jc.out || jack_set_process_callback(jc.client, on_process, NULL) ||
	    jack_set_xrun_callback(jc.client, on_xrun, NULL) || jack_activate(jc.client)) {
		snprintf(why, whylen, "the JACK client '%s' could not be set up", name);
		jack_client_close(jc.client);
		jc.client = NULL;
		return -1;
	}
	return 0;
}

int jclient_wait_cycles(uint64_t n, double timeout_s)
{
	uint64_t end = now_ns() + (uint64_t)(timeout_s * 1e9);

	while (atomic_load(&jc.cycles) < n) {
		if (now_ns() >= end)
			return -ETIMEDOUT;
		bench_sleep_ns(10000000);
	}
	return 0;
}

void jclient_counts(struct jclient_counts *out)
{
	out->cycles = atomic_load(&jc.cycles);
	out->late = atomic_load(&jc.late);
	out->xruns = atomic_load(&jc.xruns);
}

const char *jclient_name(void)
{
	return jc.client ? jack_get_client_name(jc.client) : "";
}

unsigned jclient_quantum(void)
{
	return jc.client ? (unsigned)jack_get_buffer_size(jc.client) : 0;
}

unsigned jclient_rate(void)
{
	return jc.client ? (unsigned)jack_get_sample_rate(jc.client) : 0;
}

pid_t jclient_thread(void)
{
	return atomic_load(&jc.tid);
}

void jclient_stop(void)
{
	if (!jc.client)
		return;
	atomic_store(&jc.stop, true);
	jack_deactivate(jc.client);
	jack_client_close(jc.client);
	jc.client = NULL;
}
