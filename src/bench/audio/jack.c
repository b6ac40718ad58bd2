/* jack.c — isobench --audio jack: the client against the JACK server of
 * the environment (jackd -d dummy...). jackd has no profiler a client
 * could read, so the client's own count is the measure: a cycle whose
 * callback ended after the period's deadline (jclient.c), and JACK's
 * xrun callbacks beside it. */
#include "common/clock.h"
#include "window.h"

int audio_run_jack(const struct audio_opts *o, struct audio_result *r)
{
	const volatile bool *stop = window_stop_flag();
	uint64_t start, end;

	if (window_client_begin(o, r) < 0)
		return -1;
	end = bench_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(o->warmup_s * 1e9);
	while (!*stop && bench_clock_ns(CLOCK_MONOTONIC) < end)
		bench_sleep_ns(20000000);
	window_open(r);
	start = bench_clock_ns(CLOCK_MONOTONIC);
	end = start + (uint64_t)(o->seconds * 1e9);
	while (!*stop && bench_clock_ns(CLOCK_MONOTONIC) < end)
		bench_sleep_ns(20000000);
	/* stopped early: the window was shorter */
	r->seconds = (double)(bench_clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
	window_client_end(r);
	r->cycles = r->client_cycles;
	r->unfinished = r->client_late;
	return 0;
}
