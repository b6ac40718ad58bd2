/* libFuzzer target: any bytes as one RealtimeKit1 call — method, process,
 * thread, priority and who calls (nobody or root) — through rtkit_serve:
 * the argument checks, the caller's-own-process rule, the real request
 * path (handle_set / handle_nice / handle_reset, actuator in dry-run so no
 * thread on the machine changes) and the error mapping. Any crash,
 * sanitizer report or inconsistency aborts.
 *
 * Input: byte 0 method (mod 8: 7 is out of range), byte 1 flags (bit 0
 * root; bit 1 the thread is the fuzzer's own main thread, bit 2 its
 * worker; bit 3 the process is the fuzzer's own pid), then process,
 * thread and priority as little-endian 64-bit values (missing bytes 0). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "grants.h"
#include "log.h"
#include "procinfo.h"
#include "rtkit_req.h"

static struct isod d;
static int ready;
static pid_t worker_tid;
static struct peer self;

static void *worker(void *arg)
{
	(void)arg;
	__atomic_store_n(&worker_tid, gettid(), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

static void setup(void)
{
	struct isod_config cfg;
	pthread_t th;

	config_defaults(&cfg);
	cfg.state_path[0] = '\0'; /* no state file */
	cfg.dry_run = true;
	cfg.max_threads = 64;
	cfg.max_threads_per_user = 16;
	log_setup(LOG_EMERG, false);
	actuator_set_dry_run(true);
	if (isod_init(&d, &cfg) < 0 || pthread_create(&th, NULL, worker, NULL))
		abort();
	while (!__atomic_load_n(&worker_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	self.pid = getpid();
	self.uid = 65534;
	self.gid = 65534;
	if (read_thread_starttime(d.proc, self.pid, &self.starttime) < 0)
		abort();
	ready = 1;
}

static uint64_t le64(const uint8_t *p, size_t avail)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8 && i < avail; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Is thread a thread of process, by the kernel's task list? */
static bool thread_of(uint64_t process, uint64_t thread)
{
	char path[80];

	if (process == 0 || process > INT32_MAX || thread == 0 || thread > INT32_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/%llu/task/%llu", (unsigned long long)process,
		 (unsigned long long)thread);
	return access(path, F_OK) == 0;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtkit_call c = { 0 };
	struct rtkit_answer a;
	struct peer peer;
	uint8_t flags;

	if (!ready)
		setup();
	if (size < 2)
		return 0;
	c.method = (enum rtkit_method)(data[0] % 8);
	flags = data[1];
	c.process = le64(data + 2, size > 2 ? size - 2 : 0);
	c.thread = le64(data + 10, size > 10 ? size - 10 : 0);
	c.priority = (int64_t)le64(data + 18, size > 18 ? size - 18 : 0);
	if (flags & 2)
		c.thread = (uint64_t)self.pid;
	if (flags & 4)
		c.thread = (uint64_t)worker_tid;
	if (flags & 8)
		c.process = (uint64_t)self.pid;
	peer = self;
	peer.uid = (flags & 1) ? 0 : 65534;

	memset(&a, 0x5a, sizeof(a)); /* rtkit_serve must fill it all */
	rtkit_serve(&d, &peer, &c, &a);

	if (memchr(a.message, '\0', sizeof(a.message)) == NULL)
		abort();
	if (a.error) {
		if (strcmp(a.error, RTKIT_ERR_ACCESS_DENIED) && strcmp(a.error, RTKIT_ERR_FAILED))
			abort();
		if (!strcmp(a.error, RTKIT_ERR_ACCESS_DENIED) &&
		    !starts(a.message, "Operation not permitted: ") &&
		    !starts(a.message, "Device or resource busy: "))
			abort();
		if (a.exit)
			abort();
	} else {
		/* what passed must have been valid */
		switch (c.method) {
		case RTKIT_MAKE_REALTIME_PID:
		case RTKIT_MAKE_HIGH_PRIORITY_PID:
			/* root may name any process (its owner check lets
			 * root); anyone else only their own */
			if (c.process != (uint64_t)self.pid && peer.uid != 0)
				abort();
			if (!thread_of(c.process, c.thread))
				abort();
			break;
		case RTKIT_MAKE_REALTIME:
		case RTKIT_MAKE_HIGH_PRIORITY:
			/* any thread of the caller's own process may pass:
			 * libFuzzer's own threads (its rss watcher) are the
			 * fuzzer's too, so "own" is its task list, not the
			 * two threads this file made */
			if (!thread_of((uint64_t)self.pid, c.thread))
				abort();
			break;
		case RTKIT_EXIT:
			if (peer.uid != 0 || !a.exit)
				abort();
			break;
		case RTKIT_RESET_KNOWN:
		case RTKIT_RESET_ALL:
			break;
		default:
			abort(); /* out of range must be refused */
		}
		if ((c.method == RTKIT_MAKE_REALTIME || c.method == RTKIT_MAKE_REALTIME_PID) &&
		    (c.priority < 1 || c.priority > RTKIT_MAX_REALTIME_PRIORITY))
			abort();
		if ((c.method == RTKIT_MAKE_HIGH_PRIORITY || c.method == RTKIT_MAKE_HIGH_PRIORITY_PID) &&
		    (c.priority < RTKIT_MIN_NICE_LEVEL || c.priority > 19))
			abort();
	}
	/* the fuzzer must never leave grants behind between inputs */
	pthread_mutex_lock(&d.lock);
	isod_demote_all(&d);
	pthread_mutex_unlock(&d.lock);
	return 0;
}
