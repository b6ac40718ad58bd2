/* floor.c — the least a request can take on this machine, measured in the
 * same run as isod's requests: the same round trip (connect a
 * SOCK_SEQPACKET Unix socket, send a message of SET's size, read one of
 * its reply's size, close) to a server that answers at once, on an epoll
 * loop shaped like isod's (accept4, recv at once, send, then the hang-up:
 * recv 0, close). Three ways: where the scheduler puts the two (as the
 * requests ran), both on one CPU, and each on a CPU of its own. A fourth
 * is the round trip libisosched makes for every call after a process's
 * first: send and read on the connection it keeps. On a
 * virtual machine whose idle CPUs halt, waking the other CPU twice per
 * request can cost more than all of isod's work; the difference between
 * isod's p50 and this one is what isod adds. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "common/clock.h"
#include "cost.h"

/* the sizes of SET's request and reply in isod's protocol */
#define FLOOR_REQ_BYTES 36
#define FLOOR_REPLY_BYTES 70
#define FLOOR_MAX_CONNS 16

/* An abstract socket: nothing in the file system to clean up. */
static socklen_t floor_addr(struct sockaddr_un *sa, pid_t parent)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "isobench-floor-%d", (int)parent);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Answer what has come on fd; false once the client has hung up. */
static bool answer(int fd)
{
	unsigned char buf[256] = { 0 };
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n > 0)
		(void)send(fd, buf, FLOOR_REPLY_BYTES, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n != 0;
}

static _Noreturn void serve(int lfd, pid_t parent, unsigned bound_s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd }, got[FLOOR_MAX_CONNS];
	int ep;

	if (!child_bind_to_parent(parent, SIGKILL))
		_exit(1);
	alarm(bound_s);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) < 0)
		_exit(1);
	for (;;) {
		int n = epoll_wait(ep, got, FLOOR_MAX_CONNS, -1);

		for (int i = 0; i < n; i++) {
			int fd = got[i].data.fd;

			if (fd == lfd) {
				int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
				struct epoll_event ce = { .events = EPOLLIN };

				if (c < 0)
					continue;
				ce.data.fd = c;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce) < 0) {
					close(c);
					continue;
				}
				/* the request may be there already, as isod reads at once */
				(void)answer(c);
			} else if (!answer(fd)) {
				(void)epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
				close(fd);
			}
		}
	}
}

/* One timed round trip, as libisosched's transact makes it on a new
 * connection (*kept < 0) or on the kept one (opened at the first). */
static int round_trip(const struct sockaddr_un *sa, socklen_t len, int *kept, uint64_t *dt)
{
	unsigned char buf[256] = { 0 };
	uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
	int fd = kept && *kept >= 0 ? *kept : socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	int r = 0;

	errno = 0;
	if (fd < 0)
		return -errno;
	if ((!kept || *kept < 0) && connect(fd, (const struct sockaddr *)sa, len) < 0)
		r = -errno;
	else if (send(fd, buf, FLOOR_REQ_BYTES, MSG_NOSIGNAL) != FLOOR_REQ_BYTES ||
		 recv(fd, buf, sizeof(buf), 0) != FLOOR_REPLY_BYTES)
		r = errno ? -errno : -EIO;
	if (kept && r == 0)
		*kept = fd;
	else
		close(fd);
	*dt = bench_clock_ns(CLOCK_MONOTONIC) - t0;
	return r;
}

static bool pin(pid_t who, int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(who, sizeof(s), &s) == 0;
}

/* The first two CPUs both processes may run on (-1: none). */
static void two_cpus(const cpu_set_t *allowed, int *a, int *b)
{
	*a = *b = -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, allowed))
			continue;
		if (*a < 0)
			*a = c;
		else if (*b < 0) {
			*b = c;
			return;
		}
	}
}

/* n timed round trips; on one connection if keep (the first, which opens
 * it, not counted, as the bench's first request is not either). */
static void measure_way(const struct sockaddr_un *sa, socklen_t len, int n, bool keep,
			struct cost_floor *f)
{
	static struct hist h; /* 50 KiB: off the stack; one run at a time */
	int kept = -1;
	uint64_t dt;

	hist_init(&h);
	for (int i = 0; i < n + keep; i++) {
		int r = round_trip(sa, len, keep ? &kept : NULL, &dt);

		if (r < 0) {
			snprintf(f->note, sizeof(f->note), "round trip: %s", strerror(-r));
			if (kept >= 0)
				close(kept);
			return;
		}
		if (!keep || i > 0)
			hist_add(&h, dt);
	}
	if (kept >= 0)
		close(kept);
	f->p50_us = hist_percentile_ns(&h, 50) / 1e3;
	f->p99_us = hist_percentile_ns(&h, 99) / 1e3;
	f->ok = true;
}

void cost_floor_measure(int requests, struct cost_floor out[COST_FLOOR_WAYS])
{
	struct sockaddr_un sa;
	socklen_t len = floor_addr(&sa, getpid());
	cpu_set_t mine;
	pid_t parent = getpid(), p;
	int lfd, n = requests < 200 ? 200 : requests > 5000 ? 5000 : requests, a, b, status;

	memset(out, 0, sizeof(*out) * COST_FLOOR_WAYS);
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		CPU_ZERO(&mine);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, len) < 0 || listen(lfd, 64) < 0) {
		snprintf(out[0].note, sizeof(out[0].note), "socket: %s", strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return;
	}
	fflush(NULL);
	p = fork();
	if (p == 0)
		serve(lfd, parent, (unsigned)(60 + n / 100));
	close(lfd);
	if (p < 0) {
		snprintf(out[0].note, sizeof(out[0].note), "fork: %s", strerror(errno));
		return;
	}
	child_track(p);
	measure_way(&sa, len, n, false, &out[COST_FLOOR_FREE]);
	measure_way(&sa, len, n, true, &out[COST_FLOOR_KEPT]);
	two_cpus(&mine, &a, &b);
	if (a >= 0 && pin(0, a) && pin(p, a))
		measure_way(&sa, len, n, false, &out[COST_FLOOR_SAME]);
	else
		snprintf(out[COST_FLOOR_SAME].note, sizeof(out[COST_FLOOR_SAME].note),
			 "cannot pin: %s", strerror(errno));
	if (b >= 0 && pin(p, b))
		measure_way(&sa, len, n, false, &out[COST_FLOOR_ACROSS]);
	else
		snprintf(out[COST_FLOOR_ACROSS].note, sizeof(out[COST_FLOOR_ACROSS].note),
			 b < 0 ? "one CPU only" : "cannot pin");
	(void)sched_setaffinity(0, sizeof(mine), &mine);
	kill(p, SIGKILL);
	while (waitpid(p, &status, 0) < 0 && errno == EINTR)
		;
	child_track(0);
}
