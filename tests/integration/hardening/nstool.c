/* nstool — namespaced clients of the hardening tests (issue 28, items 4
 * and 5). Every mode is bounded in time (its own deadline plus a hard
 * alarm).
 *
 *   nstool flood THREADS WORKERS SECONDS [spin]
 *        (inside a PID namespace) THREADS threads in all, WORKERS of them
 *        asking isod about their own thread (GET, libisosched) in a loop
 *        — or, with spin, only spinning: the same load on the CPUs
 *        without a request (the control). Prints "ready" once every
 *        thread exists, then at the end "flood ok N refused M".
 *   nstool lat SECONDS GAP_US
 *        iso_status requests in a loop, GAP_US apart, each one timed.
 *        Prints "lat n N p50 MS p99 MS max MS".
 *   nstool subuid SECONDS PER_UID UID_BASE
 *        (root) the map newuidmap writes for a subordinate range: a child
 *        drops to nobody and makes a user namespace, root writes into its
 *        uid_map and gid_map "0 65534 1" and "1 UID_BASE 2", and the
 *        child's three processes, as uid 0, 1 and 2 of the namespace
 *        (kernel uids 65534, UID_BASE, UID_BASE + 1), each ask ISO FIFO 10
 *        for PER_UID threads. Prints "uid K granted G refused R" per
 *        process, then "subuid granted G" in all, and holds the grants
 *        until SECONDS are over.
 *
 * Results are printed as "key value" words on one line, for the shell. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isosched.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- flood ---- */

static atomic_bool stop_flag;
static bool spin_only;
static atomic_ulong flood_ok, flood_refused;
/* until then; far off while the threads start (thousands take seconds
 * under TCG), then the flood's own seconds from when all are ready */
static _Atomic double flood_end;

static void *idle_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_flag) && now_s() < flood_end)
		usleep(1000000); /* a thousand of them: few wakeups (TCG) */
	return NULL;
}

static void *flood_thread(void *arg)
{
	struct iso_thread_info info;

	(void)arg;
	while (!atomic_load(&stop_flag) && now_s() < flood_end) {
		if (spin_only)
			continue;
		if (iso_get_thread(0, &info) == 0)
			atomic_fetch_add(&flood_ok, 1);
		else
			atomic_fetch_add(&flood_refused, 1);
	}
	return NULL;
}

static int flood(int nthreads, int workers, int seconds)
{
	pthread_attr_t a;
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	int n = 0;

	if (!t || workers > nthreads)
		return 2;
	flood_end = now_s() + 3600;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	/* the idle ones first: the workers' requests come from a process
	 * that has all its threads already */
	for (; n < nthreads - workers; n++)
		if (pthread_create(&t[n], &a, idle_thread, NULL) != 0)
			break;
	if (n < nthreads - workers) {
		fprintf(stderr, "only %d threads\n", n);
		atomic_store(&stop_flag, true);
	} else {
		flood_end = now_s() + seconds;
		printf("ready threads %d\n", nthreads + 1);
		fflush(stdout);
		for (; n < nthreads; n++)
			if (pthread_create(&t[n], &a, flood_thread, NULL) != 0)
				break;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("flood ok %lu refused %lu\n", atomic_load(&flood_ok), atomic_load(&flood_refused));
	free(t);
	return 0;
}

/* ---- lat ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int lat(int seconds, int gap_us)
{
	static double ms[1000000];
	struct iso_status_info st;
	size_t n = 0, bad = 0;
	double end = now_s() + seconds;

	while (now_s() < end && n < sizeof(ms) / sizeof(ms[0])) {
		double t0 = now_s();

		if (iso_status(&st, NULL, 0) < 0)
			bad++;
		ms[n++] = (now_s() - t0) * 1e3;
		usleep((useconds_t)gap_us);
	}
	if (!n)
		return 1;
	qsort(ms, n, sizeof(ms[0]), cmp_double);
	printf("lat n %zu failed %zu p50 %.3f p99 %.3f max %.3f\n", n, bad, ms[n / 2],
	       ms[(n * 99) / 100], ms[n - 1]);
	return 0;
}

/* ---- subuid ---- */

static atomic_int granted_here, asked_here;

static void *ask_iso(void *arg)
{
	(void)arg;
	if (iso_set_thread(0, ISO_SCHED_FIFO, 10, 0, NULL) == 0)
		atomic_fetch_add(&granted_here, 1);
	atomic_fetch_add(&asked_here, 1);
	while (!atomic_load(&stop_flag))
		usleep(50000);
	return NULL;
}

/* One process of the namespace as its uid k: PER_UID threads ask ISO.
 * Reports on out, then holds until told (ctl closes) or the deadline. */
static int as_ns_uid(int k, int per_uid, int out, int ctl)
{
	pthread_t t[64];
	char c, line[96];
	int n = 0, len;

	if (syscall(SYS_setresuid, k, k, k) < 0) {
		perror("setresuid in the namespace");
		return 1;
	}
	for (; n < per_uid && n < 64; n++)
		if (pthread_create(&t[n], NULL, ask_iso, NULL) != 0)
			break;
	for (int i = 0; i < 500 && atomic_load(&asked_here) < n; i++)
		usleep(10000);
	len = snprintf(line, sizeof(line), "uid %d granted %d refused %d\n", k,
		       atomic_load(&granted_here), n - atomic_load(&granted_here));
	if (write(out, line, (size_t)len) != len)
		return 1;
	(void)!read(ctl, &c, 1); /* EOF: the parent is done */
	atomic_store(&stop_flag, true);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -errno;
}

static int subuid(int seconds, int per_uid, unsigned base)
{
	int ready[2], mapped[2], report[2], ctl[2], granted = 0;
	char c, map[64], buf[512];
	pid_t child;
	ssize_t len;

	if (pipe(ready) || pipe(mapped) || pipe(report) || pipe(ctl))
		return 2;
	child = fork();
	if (child == 0) {
		pid_t kids[3];

		close(ready[0]);
		close(mapped[1]);
		close(report[0]);
		close(ctl[1]);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || unshare(CLONE_NEWUSER)) {
			perror("nobody in a new user namespace");
			_exit(1);
		}
		close(ready[1]); /* EOF: ready for the maps */
		if (read(mapped[0], &c, 1) != 1)
			_exit(1);
		for (int k = 0; k < 3; k++) {
			kids[k] = fork();
			if (kids[k] == 0)
				_exit(as_ns_uid(k, per_uid, report[1], ctl[0]));
		}
		for (int k = 0; k < 3; k++)
			waitpid(kids[k], NULL, 0);
		_exit(0);
	}
	close(ready[1]);
	close(mapped[0]);
	close(report[1]);
	close(ctl[0]);
	(void)!read(ready[0], &c, 1);
	snprintf(map, sizeof(map), "0 65534 1\n1 %u 2\n", base);
	if (write_file(child, "uid_map", map) < 0 || write_file(child, "gid_map", map) < 0) {
		perror("writing the maps");
		kill(child, SIGKILL);
		return 1;
	}
	if (write(mapped[1], "m", 1) != 1)
		return 1;
	for (int got = 0; got < 3;) {
		len = read(report[0], buf, sizeof(buf) - 1);
		if (len <= 0)
			break;
		buf[len] = '\0';
		fputs(buf, stdout);
		for (char *p = buf; (p = strstr(p, "granted ")); p += 8)
			granted += atoi(p + 8), got++;
	}
	printf("subuid granted %d\n", granted);
	fflush(stdout);
	sleep((unsigned)seconds);
	close(ctl[1]);
	waitpid(child, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "spin"))) && !strcmp(argv[1], "flood")) {
		spin_only = argc == 6;
		alarm((unsigned)atoi(argv[4]) + 30);
		return flood(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	}
	if (argc == 4 && !strcmp(argv[1], "lat")) {
		alarm((unsigned)atoi(argv[2]) + 30);
		return lat(atoi(argv[2]), atoi(argv[3]));
	}
	if (argc == 5 && !strcmp(argv[1], "subuid")) {
		alarm((unsigned)atoi(argv[2]) + 30);
		return subuid(atoi(argv[2]), atoi(argv[3]), (unsigned)strtoul(argv[4], NULL, 10));
	}
	fprintf(stderr, "usage: nstool flood THREADS WORKERS SECONDS [spin] | lat SECONDS GAP_US | "
			"subuid SECONDS PER_UID UID_BASE\n");
	return 2;
}
