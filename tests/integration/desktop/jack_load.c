/*
 * jack_load — a JACK client (run through pw-jack: PipeWire's libjack) that
 * does real work in its process callback: it spins for PCT % of each
 * period, as a plugin would compute. With --hang-after S its callback
 * starts spinning without end S seconds after the first cycle: a hung
 * plugin. Every spinner is bounded (--max-seconds), as the tests need.
 *
 * Lines on stdout, each written after the state it reports:
 *   ready rate R period N   after 50 cycles ran (the graph drives it)
 *   hung                    the callback entered its endless spin
 *   at T cycles C late L    once a second (T: seconds since start): a
 *                           healthy client's progress while another hangs
 *   cycles C late L         at exit (SIGTERM/SIGINT or --seconds), L the
 *                           cycles that did not finish their work within
 *                           their period
 */
#include <errno.h>
#include <jack/jack.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* shared between the process callback (PipeWire's data thread) and main:
 * the one client this program is; atomics, the callback never locks */
static struct {
	jack_client_t *client;
	jack_port_t *out;
	double pct;
	double hang_after, max_seconds;
	uint64_t t0_ns;
	_Atomic uint64_t cycles, late;
	atomic_bool hung;
	atomic_int stop;
} g;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_until(uint64_t end)
{
	while (now_ns() < end && !atomic_load(&g.stop))
		;
}

static int process(jack_nframes_t n, void *arg)
{
	(void)arg;
	uint64_t start = now_ns();
	uint64_t period = (uint64_t)n * 1000000000u / jack_get_sample_rate(g.client);
	float *buf = jack_port_get_buffer(g.out, n);

	if (g.t0_ns == 0)
		g.t0_ns = start;
	if (g.hang_after > 0 && start - g.t0_ns > (uint64_t)(g.hang_after * 1e9)) {
		if (!atomic_exchange(&g.hung, true)) {
			/* stdout is not async-signal-safe territory here, but
			 * write(2) is: one line, then the endless spin */
			static const char msg[] = "hung\n";
			ssize_t r = write(STDOUT_FILENO, msg, sizeof msg - 1);
			(void)r;
		}
		/* bounded: the test's time bound, never forever */
		spin_until(g.t0_ns + (uint64_t)(g.max_seconds * 1e9));
		return 0;
	}
	spin_until(start + (uint64_t)((double)period * g.pct / 100.0));
	memset(buf, 0, n * sizeof *buf);
	if (now_ns() - start > period)
		atomic_fetch_add(&g.late, 1);
	atomic_fetch_add(&g.cycles, 1);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&g.stop, 1);
}

static double arg_num(const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "jack_load: bad number '%s' (%g..%g)\n", s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *name = "isotest-load";
	double seconds = 0;
	g.max_seconds = 60;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			fprintf(stderr, "usage: jack_load [--name N] [--work PCT] [--hang-after S] "
				"[--seconds S] [--max-seconds S]\n");
			return 2;
		}
		if (!strcmp(argv[i], "--name"))
			name = argv[++i];
		else if (!strcmp(argv[i], "--work"))
			g.pct = arg_num(argv[++i], 0, 100);
		else if (!strcmp(argv[i], "--hang-after"))
			g.hang_after = arg_num(argv[++i], 0, 3600);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = arg_num(argv[++i], 0, 3600);
		else if (!strcmp(argv[i], "--max-seconds"))
			g.max_seconds = arg_num(argv[++i], 1, 3600);
		else {
			fprintf(stderr, "jack_load: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (seconds == 0 || seconds > g.max_seconds)
		seconds = g.max_seconds;
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	jack_status_t st;
	g.client = jack_client_open(name, JackNoStartServer, &st);
	if (!g.client) {
		fprintf(stderr, "jack_load: jack_client_open failed (status 0x%x)\n", (unsigned)st);
		return 1;
	}
	g.out = jack_port_register(g.client, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
	if (!g.out || jack_set_process_callback(g.client, process, NULL) || jack_activate(g.client)) {
		fprintf(stderr, "jack_load: cannot set up the client\n");
		jack_client_close(g.client);
		return 1;
	}
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	bool said = false;
	uint64_t t_start = now_ns(), next_tick = t_start + 1000000000u;
	while (!atomic_load(&g.stop) && now_ns() < end) {
		if (now_ns() >= next_tick) {
			printf("at %.0f cycles %llu late %llu\n", (double)(next_tick - t_start) / 1e9,
			       (unsigned long long)atomic_load(&g.cycles),
			       (unsigned long long)atomic_load(&g.late));
			next_tick += 1000000000u;
		}
		if (!said && atomic_load(&g.cycles) >= 50) {
			printf("ready rate %u period %u\n", (unsigned)jack_get_sample_rate(g.client),
			       (unsigned)jack_get_buffer_size(g.client));
			said = true;
		}
		usleep(10000);
	}
	atomic_store(&g.stop, 1);
	jack_deactivate(g.client);
	jack_client_close(g.client);
	printf("cycles %llu late %llu\n", (unsigned long long)atomic_load(&g.cycles),
	       (unsigned long long)atomic_load(&g.late));
	return 0;
}
