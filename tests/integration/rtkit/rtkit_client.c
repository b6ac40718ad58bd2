/* rtkit_client — a RealtimeKit1 client for the rtkit tests, as PipeWire
 * or PulseAudio would be: it makes a thread of its own and asks the
 * system bus (DBUS_SYSTEM_BUS_ADDRESS) for it, then reports what the
 * kernel now runs that thread as, from inside the process (so it is right
 * inside a PID namespace too).
 *
 *   rtkit_client [--method rt|rtpid|nice|nicepid|resetknown|resetall|exit]
 *                [--prio N] [--tid T] [--pid P] [--count N]
 *                [--spin S] [--hold S] [--latency] [--rttime USEC]
 *                [--threads N]
 *
 * --tid names another thread (default: its own new thread), --pid the
 * process argument of the ...WithPID forms (default: its own pid);
 * --count repeats the call; --spin makes the thread spin S seconds after
 * the call, --hold keeps it S seconds (blocked) after that.
 * Prints "tid N", "result ok" or "result error NAME: MESSAGE", then
 * "sched POLICY RTPRIO NICE" of the thread, and with --spin "spun S".
 * --latency prints "latency p50 P p99 Q max M" (microseconds per call),
 * --rttime sets RLIMIT_RTTIME (soft and hard) first, as rtkit requires;
 * --threads N asks for N idle threads of its own, one call each, and
 * prints "granted K of N" (stops at the first refusal).
 * Exit: 0 ok, 2 a D-Bus error, 1 usage or setup failure. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static atomic_int worker_tid;
static atomic_int go;         /* 1: spin, 2: finish */
static double spin_s, hold_s;

static void *idler(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, gettid(), __ATOMIC_SEQ_CST);
	for (;;)
		pause(); /* until the process exits */
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	(void)arg;
	atomic_store(&worker_tid, gettid());
	while (atomic_load(&go) == 0)
		usleep(1000);
	if (atomic_load(&go) == 1) {
		double t0 = now_s();
		volatile unsigned long x = 0;

		while (now_s() - t0 < spin_s)
			x++;
		printf("spun %.2f\n", now_s() - t0);
		fflush(stdout);
	}
	/* blocked, alive: the test may look at it (restored after a demotion?) */
	if (hold_s > 0)
		usleep((useconds_t)(hold_s * 1e6));
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "method", required_argument, NULL, 'm' }, { "prio", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' }, { "pid", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'n' }, { "spin", required_argument, NULL, 's' },
		{ "hold", required_argument, NULL, 'h' }, { "latency", no_argument, NULL, 'l' },
		{ "rttime", required_argument, NULL, 'T' }, { "threads", required_argument, NULL, 'N' },
		{ 0, 0, 0, 0 } };
	bool latency = false;
	long long rttime = -1, nthreads = 0, granted = 0;
	double *lat = NULL;
	pid_t *tids = NULL;
	const char *method = "rtpid";
	long long prio = 10, tid = 0, pid = getpid(), count = 1;
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *rep = NULL;
	struct sched_param sp;
	pthread_t th;
	sd_bus *bus = NULL;
	int c, r = 0, pol;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': method = optarg; break;
		case 'p': prio = atoll(optarg); break;
		case 't': tid = atoll(optarg); break;
		case 'P': pid = atoll(optarg); break;
		case 'n': count = atoll(optarg); break;
		case 's': spin_s = atof(optarg); break;
		case 'h': hold_s = atof(optarg); break;
		case 'l': latency = true; break;
		case 'T': rttime = atoll(optarg); break;
		case 'N': nthreads = atoll(optarg); break;
		default: return 1;
		}
	}
	alarm((unsigned)(spin_s + hold_s) + 60); /* never outlive a test */
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	while (!atomic_load(&worker_tid))
		usleep(1000);
	if (!tid)
		tid = atomic_load(&worker_tid);
	if (rttime >= 0) {
		struct rlimit rl = { (rlim_t)rttime, (rlim_t)rttime };
		if (setrlimit(RLIMIT_RTTIME, &rl) < 0)
			return 1;
	}
	if (nthreads > 0) {
		tids = calloc((size_t)nthreads, sizeof(*tids));
		for (long long i = 0; tids && i < nthreads; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, idler, &tids[i]))
				return 1;
			while (!__atomic_load_n(&tids[i], __ATOMIC_SEQ_CST))
				usleep(100);
		}
		count = nthreads;
	}
	lat = calloc((size_t)(count > 0 ? count : 1), sizeof(*lat));
	if (!lat || (nthreads > 0 && !tids))
		return 1;
	printf("tid %lld\n", tid);
	fflush(stdout);
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "rtkit_client: no bus: %s\n", strerror(-r));
		return 1;
	}
	for (long long i = 0; i < count; i++) {
		double t0 = now_s();

		if (tids)
			tid = tids[i];
		sd_bus_error_free(&err);
		rep = sd_bus_message_unref(rep);
#define CALL(member, sig, ...)                                                          \
		sd_bus_call_method(bus, "org.freedesktop.RealtimeKit1",                   \
				   "/org/freedesktop/RealtimeKit1",                        \
				   "org.freedesktop.RealtimeKit1", member, &err, &rep, sig, \
				   __VA_ARGS__)
		if (!strcmp(method, "rt"))
			r = CALL("MakeThreadRealtime", "tu", (uint64_t)tid, (uint32_t)prio);
		else if (!strcmp(method, "rtpid"))
			r = CALL("MakeThreadRealtimeWithPID", "ttu", (uint64_t)pid, (uint64_t)tid,
				 (uint32_t)prio);
		else if (!strcmp(method, "nice"))
			r = CALL("MakeThreadHighPriority", "ti", (uint64_t)tid, (int32_t)prio);
		else if (!strcmp(method, "nicepid"))
			r = CALL("MakeThreadHighPriorityWithPID", "tti", (uint64_t)pid, (uint64_t)tid,
				 (int32_t)prio);
		else if (!strcmp(method, "resetknown"))
			r = CALL("ResetKnown", NULL, 0);
		else if (!strcmp(method, "resetall"))
			r = CALL("ResetAll", NULL, 0);
		else if (!strcmp(method, "exit"))
			r = CALL("Exit", NULL, 0);
		else
			return 1;
		lat[i] = (now_s() - t0) * 1e6;
		if (r < 0)
			break;
		granted++;
	}
	if (latency && granted > 0) {
		qsort(lat, (size_t)granted, sizeof(*lat), cmp_double);
		printf("latency p50 %.0f p99 %.0f max %.0f\n", lat[granted / 2],
		       lat[(granted * 99) / 100], lat[granted - 1]);
	}
	if (tids)
		printf("granted %lld of %lld\n", granted, nthreads);
	if (r < 0)
		printf("result error %s: %s\n", err.name ? err.name : "?",
		       err.message ? err.message : strerror(-r));
	else
		printf("result ok\n");
	if (pthread_getschedparam(th, &pol, &sp) == 0) {
		errno = 0;
		int nice = getpriority(PRIO_PROCESS, (id_t)atomic_load(&worker_tid));
		printf("sched %d %d %d\n", pol & ~SCHED_RESET_ON_FORK, sp.sched_priority, nice);
	}
	fflush(stdout);
	atomic_store(&go, spin_s > 0 ? 1 : 2);
	pthread_join(th, NULL);
	sd_bus_error_free(&err);
	sd_bus_message_unref(rep);
	sd_bus_flush_close_unref(bus);
	free(lat);
	free(tids);
	return r < 0 ? 2 : 0;
}
