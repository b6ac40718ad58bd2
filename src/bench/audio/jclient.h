/* jclient.h — isobench --audio's JACK client: one client in this process
 * (libjack: jackd's, or PipeWire's under pw-jack) whose process callback
 * is busy a share of each period, as a plugin computing, and that counts
 * its own late cycles (the callback ended after the period's deadline,
 * jack_get_cycle_times) and JACK's xrun callbacks. One per process. */
#ifndef ISOBENCH_AUDIO_JCLIENT_H
#define ISOBENCH_AUDIO_JCLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jclient_counts {
	uint64_t cycles, late, xruns;
};

/* Open the client (never starting a server), register its port and
 * activate it: 0, or -1 with the reason in why. */
int jclient_start(const char *name, double work_pct, char *why, size_t whylen);
/* Wait until its callback has run n times in all (at most timeout_s): 0,
 * or -ETIMEDOUT. */
int jclient_wait_cycles(uint64_t n, double timeout_s);
void jclient_counts(struct jclient_counts *out);
/* The client's name as the server knows it (PipeWire: its node.name). */
const char *jclient_name(void);
unsigned jclient_quantum(void);
unsigned jclient_rate(void);
/* The thread that runs the process callback, 0 before its first cycle. */
pid_t jclient_thread(void);
void jclient_stop(void);

#endif
