/* hardtool — the hostile and the busy clients of the hardening tests.
 * Every mode is bounded in time (its own deadline plus a hard alarm).
 *
 *   hardtool flood RATE SECONDS      one connection, RATE GET requests/s
 *   hardtool client SECONDS MS       a polite client: one GET (libisosched,
 *                                    fresh connection) every MS ms
 *   hardtool hold N SECONDS          open N connections and hold them
 *   hardtool noread N SECONDS        send N requests, never read a reply
 *   hardtool linger SECONDS          one idle connection, then a GET on it
 *   hardtool setpid PID TID          a raw SET (ISO_RR 10) naming pid and tid
 *   hardtool packets                 malformed packets on fresh connections
 *   hardtool fdpass N                N valid GETs, each carrying 250 fds
 *   hardtool churn thread|fork SECONDS RATE LIFE_US [iso|plain [HOLD_S]]
 *                                    an (ISO) spawner of short-lived
 *                                    threads/children at RATE per second;
 *                                    each newcomer checks its own policy
 *   hardtool race SECONDS            ask ISO for just-exited TIDs and the
 *                                    next few TIDs, which other processes
 *                                    are likely to get
 *   hardtool wrap SECONDS            take TIDs until the counter wraps
 *   hardtool peerpid REUSE NUID NGID DUID DGID GID   (root) a connection
 *                                    whose SO_PEERCRED pid is reused
 *
 * Results are printed as "key value" words on one line, for the shell. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iso_proto.h"
#include "isosched.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_raw(int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", iso_socket_path());
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int encode_get(unsigned char *buf, size_t cap, uint32_t seq, pid_t tid)
{
	struct iso_req q;

	memset(&q, 0, sizeof(q));
	q.type = ISO_MSG_GET;
	q.seq = seq;
	q.u.get.tid = tid;
	return iso_proto_encode_req(&q, buf, cap);
}

/* Read one reply: its err (<= 0), 1 on a reply that did not decode,
 * 2 on EOF (isod closed), 3 on timeout/error. */
static int read_reply(int fd, char *text, size_t tcap)
{
	static unsigned char buf[ISO_PROTO_MAX_MSG];
	static struct iso_thread_info th[ISO_PROTO_PAGE];
	struct iso_reply rep;
	ssize_t n;

	do
		n = recv(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 2;
	if (n < 0)
		return 3;
	memset(&rep, 0, sizeof(rep));
	rep.threads = th;
	rep.threads_cap = ISO_PROTO_PAGE;
	if (iso_proto_decode_reply(buf, (size_t)n, &rep) < 0)
		return 1;
	if (text)
		snprintf(text, tcap, "%s", rep.text);
	return rep.err;
}

/* ---- flood: one connection, RATE requests per second ---------------- */
static int do_flood(double rate, double seconds)
{
	unsigned char buf[64];
	char text[ISO_PROTO_TEXT_MAX + 1], eagain_text[ISO_PROTO_TEXT_MAX + 1] = "";
	long sent = 0, ok = 0, eagain = 0, other = 0, reconnects = 0, lost = 0;
	double t0 = now_s(), end = t0 + seconds;
	int fd = connect_raw(2000);

	if (fd < 0) {
		fprintf(stderr, "flood: connect: %s\n", strerror(-fd));
		return 1;
	}
	/* the test starts the other user's client on this line, not on time */
	printf("connected\n");
	fflush(stdout);
	while (now_s() < end) {
		double due = t0 + (double)sent / rate;
		int len, r;

		if (now_s() < due) {
			usleep(50);
			continue;
		}
		len = encode_get(buf, sizeof(buf), (uint32_t)sent + 1, gettid());
		if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) != len) {
			lost++;
			r = 2;
		} else {
			r = read_reply(fd, text, sizeof(text));
		}
		sent++;
		if (r == 0) {
			ok++;
		} else if (r == -EAGAIN) {
			if (!eagain++)
				snprintf(eagain_text, sizeof(eagain_text), "%s", text);
		} else if (r == 2 || r == 3) {
			lost += r == 3;
			close(fd);
			reconnects++;
			fd = connect_raw(2000);
			if (fd < 0) {
				fprintf(stderr, "flood: reconnect: %s\n", strerror(-fd));
				break;
			}
		} else {
			other++;
		}
	}
	for (char *p = eagain_text; *p; p++)
		if (*p == ' ')
			*p = '_';
	printf("sent %ld ok %ld eagain %ld other %ld reconnects %ld lost %ld rate %.0f text %s\n",
	       sent, ok, eagain, other, reconnects, lost, (double)sent / (now_s() - t0),
	       eagain_text[0] ? eagain_text : "-");
	return 0;
}

/* ---- client: the other user, politely ------------------------------- */
static int do_client(double seconds, int ms)
{
	long calls = 0, ok = 0, eagain = 0, other = 0;
	double end = now_s() + seconds, worst = 0;

	while (now_s() < end) {
		struct iso_thread_info ti;
		double t = now_s();
		int r = iso_get_thread(0, &ti);

		t = now_s() - t;
		if (t > worst)
			worst = t;
		calls++;
		if (r == 0)
			ok++;
		else if (r == -EAGAIN)
			eagain++;
		else {
			if (!other)
				fprintf(stderr, "client: %s: %s\n", strerror(-r), iso_last_error());
			other++;
		}
		usleep((useconds_t)ms * 1000);
	}
	printf("calls %ld ok %ld eagain %ld other %ld worst_ms %.1f\n", calls, ok, eagain,
	       other, worst * 1000);
	return 0;
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Has isod closed this connection? (queued replies may be unread) */
static int peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 0) < 0)
		return 0;
	return (p.revents & (POLLHUP | POLLERR)) != 0;
}

/* ---- hold: many idle connections ------------------------------------ */
static int do_hold(int n, double seconds)
{
	int *fds = calloc((size_t)n, sizeof(int));
	int opened = 0, failed = 0, closed = 0;
	double end;

	if (!fds)
		return 1;
	raise_nofile();
	for (int i = 0; i < n; i++) {
		fds[i] = connect_raw(2000);
		if (fds[i] < 0)
			failed++;
		else
			opened++;
	}
	printf("opened %d failed %d\n", opened, failed);
	fflush(stdout);
	end = now_s() + seconds;
	while (now_s() < end)
		usleep(20000);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			closed += peer_closed(fds[i]);
	printf("held %d closed_by_isod %d\n", opened, closed);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

/* ---- setpid: a raw SET naming (pid, tid) ---------------------------- */
static int do_setpid(pid_t pid, pid_t tid)
{
	unsigned char buf[64];
	char text[ISO_PROTO_TEXT_MAX + 1] = "";
	struct iso_req q;
	int fd = connect_raw(3000), len, r;

	if (fd < 0)
		return 1;
	memset(&q, 0, sizeof(q));
	q.type = ISO_MSG_SET;
	q.seq = 1;
	q.u.set.pid = pid;
	q.u.set.tid = tid;
	q.u.set.policy = ISO_SCHED_RR;
	q.u.set.prio = 10;
	len = iso_proto_encode_req(&q, buf, sizeof(buf));
	r = send(fd, buf, (size_t)len, MSG_NOSIGNAL) == len ? read_reply(fd, text, sizeof(text)) : 3;
	printf("setpid err %d text %s\n", r, text);
	return 0;
}

/* ---- linger: one idle connection, then a request on it -------------- */
static int do_linger(double seconds)
{
	unsigned char buf[64];
	int fd = connect_raw(3000), len, r;

	if (fd < 0)
		return 1;
	printf("connected\n");
	fflush(stdout);
	usleep((useconds_t)(seconds * 1e6));
	len = encode_get(buf, sizeof(buf), 1, gettid());
	if (peer_closed(fd))
		r = 2;
	else if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) != len)
		r = 2;
	else
		r = read_reply(fd, NULL, 0);
	printf("linger %s %d\n", r == 2 ? "closed" : r == 3 ? "timeout" : "reply", r);
	return 0;
}

/* ---- noread: requests without reading ------------------------------- */
/* Keeps sending (whenever the socket takes more) for SECONDS, or until isod
 * closes the connection; never reads. */
static int do_noread(int n, double seconds)
{
	unsigned char buf[64];
	int fd = connect_raw(2000), sent = 0, len;
	double end = now_s() + seconds;

	if (fd < 0)
		return 1;
	/* the test starts the other user's client on this line, not on time */
	printf("connected\n");
	fflush(stdout);
	len = encode_get(buf, sizeof(buf), 1, gettid());
	while (now_s() < end && sent < n && !peer_closed(fd)) {
		if (send(fd, buf, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL) == len)
			sent++;
		else if (errno == EAGAIN)
			usleep(1000);
		else
			break;
	}
	while (now_s() < end && !peer_closed(fd))
		usleep(20000);
	printf("sent %d closed_by_isod %s\n", sent, peer_closed(fd) ? "yes" : "no");
	return 0;
}

/* ---- packets: malformed input on fresh connections ------------------ */
struct hdr {
	uint32_t magic;
	uint16_t version, type;
	uint32_t len, seq;
} __attribute__((packed));

static int bad_cases, ok_cases;

/* Send one packet; want: 'e' an error reply (or a close), 'o' err 0. */
static void packet_case(const char *name, const void *p, size_t n, char want)
{
	char text[ISO_PROTO_TEXT_MAX + 1] = "";
	int fd = connect_raw(2000), r;
	ssize_t s;
	const char *verdict;

	if (fd < 0) {
		printf("case %s connect-failed %s\n", name, strerror(-fd));
		bad_cases++;
		return;
	}
	s = send(fd, p, n, MSG_NOSIGNAL);
	if (s < 0) {
		/* the kernel refused it (too large for the socket): not isod's */
		printf("case %s send-refused-by-kernel %s\n", name, strerror(errno));
		close(fd);
		ok_cases++;
		return;
	}
	r = read_reply(fd, text, sizeof(text));
	if (r == 3)
		verdict = "BAD(no reply within 2 s)";
	else if (r == 1)
		verdict = "BAD(undecodable reply)";
	else if (want == 'o')
		verdict = r == 0 ? "ok" : "BAD(want success)";
	else
		verdict = (r < 0 || r == 2) ? "ok" : "BAD(want an error reply or close)";
	printf("case %s -> %s %s \"%s\"\n", name,
	       r == 2 ? "closed" : r <= 0 ? "reply" : "none", verdict, text);
	if (verdict[0] == 'B')
		bad_cases++;
	else
		ok_cases++;
	close(fd);
}

static int do_packets(void)
{
	static unsigned char big[65536];
	unsigned char get[64];
	struct hdr h = { ISO_PROTO_MAGIC, ISO_PROTO_VERSION, ISO_MSG_SET, 36, 7 };
	int glen = encode_get(get, sizeof(get), 5, gettid());

	packet_case("valid-get", get, (size_t)glen, 'o');
	packet_case("empty", "", 0, 'e');
	/* header only, length field says 36 (a SET), packet is 16 */
	packet_case("header-only-len36", &h, sizeof(h), 'e');
	h.len = 16;
	packet_case("header-only-set-len16", &h, sizeof(h), 'e');
	h.len = 0xffffffffu;
	packet_case("header-only-len-max", &h, sizeof(h), 'e');
	h.len = 0;
	packet_case("header-only-len0", &h, sizeof(h), 'e');
	/* a valid GET whose length field claims more / less than sent */
	memcpy(big, get, (size_t)glen);
	((struct hdr *)big)->len = 16384;
	packet_case("get-len-claims-16384", big, (size_t)glen, 'e');
	((struct hdr *)big)->len = 20;
	packet_case("get-len-claims-20", big, (size_t)glen, 'e');
	/* a reply sent as a request, and type 0 */
	memcpy(big, get, (size_t)glen);
	((struct hdr *)big)->type = ISO_MSG_GET | ISO_MSG_REPLY;
	packet_case("reply-bit-type", big, (size_t)glen, 'e');
	((struct hdr *)big)->type = 0;
	packet_case("type-0", big, (size_t)glen, 'e');
	/* sizes at and past the 16384 limit, with a header that agrees */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 131u + 7u);
	h = (struct hdr){ ISO_PROTO_MAGIC, ISO_PROTO_VERSION, ISO_MSG_STATUS, 16384, 8 };
	memcpy(big, &h, sizeof(h));
	packet_case("status-16384", big, 16384, 'e');
	h.len = 16385;
	memcpy(big, &h, sizeof(h));
	packet_case("status-16385", big, 16385, 'e');
	h.len = 65536;
	memcpy(big, &h, sizeof(h));
	packet_case("status-65536", big, 65536, 'e');
	packet_case("garbage-65536", big + 16, 65536 - 16, 'e');
	packet_case("valid-get-after", get, (size_t)glen, 'o');

	/* pipelined on one connection: valid, malformed, valid; the replies
	 * come back in order, each with its seq */
	{
		int fd = connect_raw(2000), good = 0;
		unsigned char g2[64], g3[64];
		int l2 = encode_get(g2, sizeof(g2), 101, gettid());
		int l3 = encode_get(g3, sizeof(g3), 103, gettid());
		unsigned char junk[20] = { 0 };
		struct hdr jh = { ISO_PROTO_MAGIC, ISO_PROTO_VERSION, ISO_MSG_GET, 99, 102 };

		memcpy(junk, &jh, sizeof(jh));
		if (fd >= 0 && send(fd, g2, (size_t)l2, 0) == l2 &&
		    send(fd, junk, sizeof(junk), 0) == (ssize_t)sizeof(junk) &&
		    send(fd, g3, (size_t)l3, 0) == l3) {
			static unsigned char rb[ISO_PROTO_MAX_MSG];
			uint32_t want[3] = { 101, 102, 103 };
			int wanterr[3] = { 0, -EBADMSG, 0 };
			for (int i = 0; i < 3; i++) {
				struct iso_reply rep;
				ssize_t n = recv(fd, rb, sizeof(rb), 0);
				memset(&rep, 0, sizeof(rep));
				if (n > 0 && iso_proto_decode_reply(rb, (size_t)n, &rep) == 0 &&
				    rep.seq == want[i] && rep.err == wanterr[i])
					good++;
			}
		}
		printf("case pipelined -> %d/3 replies in order %s\n", good, good == 3 ? "ok" : "BAD");
		if (good == 3)
			ok_cases++;
		else
			bad_cases++;
		if (fd >= 0)
			close(fd);
	}
	printf("packets ok %d bad %d\n", ok_cases, bad_cases);
	return bad_cases ? 1 : 0;
}

/* ---- fdpass: requests carrying file descriptors --------------------- */
static int do_fdpass(int n)
{
	enum { NFD = 250 };
	unsigned char get[64];
	int glen = encode_get(get, sizeof(get), 9, gettid()), ok = 0, fds[NFD];
	union {
		char buf[CMSG_SPACE(sizeof(int) * NFD)];
		struct cmsghdr align;
	} u;

	for (int i = 0; i < NFD; i++)
		fds[i] = 0; /* stdin, 250 times */
	for (int k = 0; k < n; k++) {
		struct iovec iov = { get, (size_t)glen };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		int fd = connect_raw(2000);

		if (fd < 0)
			continue;
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * NFD);
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
		if (sendmsg(fd, &m, MSG_NOSIGNAL) == glen && read_reply(fd, NULL, 0) == 0)
			ok++;
		close(fd);
	}
	printf("fdpass sent %d served %d\n", n, ok);
	return 0;
}

/* ---- churn: an ISO spawner of short-lived threads / children --------- */
static atomic_long rt_seen, spawned, alive, spawn_fail;
static long life_us;

static int self_rt(void)
{
	int p = sched_getscheduler(0);

	p &= ~SCHED_RESET_ON_FORK;
	return p == SCHED_FIFO || p == SCHED_RR;
}

static void live_briefly(int *seen)
{
	double end = now_s() + (double)life_us / 1e6;

	while (now_s() < end) {
		*seen |= self_rt();
		usleep(life_us > 2000 ? 1000 : (useconds_t)(life_us / 2 + 1));
	}
	*seen |= self_rt();
}

static void *short_thread(void *arg)
{
	int seen = 0;

	(void)arg;
	live_briefly(&seen);
	if (seen)
		atomic_fetch_add(&rt_seen, 1);
	atomic_fetch_sub(&alive, 1);
	return NULL;
}

static int do_churn(const char *mode, double seconds, double rate, long life, int iso,
		    double hold)
{
	int fork_mode = !strcmp(mode, "fork");
	double t0, end;
	pthread_attr_t a;
	long n = 0, reaped = 0;

	life_us = life;
	if (iso) {
		int r = iso_set_thread(0, ISO_SCHED_ISO_RR, 10, 0, NULL);
		if (r < 0) {
			fprintf(stderr, "churn: iso_set_thread: %s: %s\n", strerror(-r),
				iso_last_error());
			return 2;
		}
	}
	printf("spawner %d\n", (int)gettid());
	fflush(stdout);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	t0 = now_s();
	end = t0 + seconds;
	while (now_s() < end) {
		double due = t0 + (double)n / rate;
		if (now_s() < due) {
			usleep(100);
		} else if (fork_mode) {
			pid_t c = fork();
			if (c == 0) {
				int seen = 0;
				alarm(5);
				live_briefly(&seen);
				_exit(seen ? 3 : 0);
			}
			if (c > 0) {
				n++;
				atomic_fetch_add(&spawned, 1);
			} else {
				atomic_fetch_add(&spawn_fail, 1);
				usleep(1000);
			}
		} else {
			pthread_t t;
			if (atomic_load(&alive) > 2000) {
				usleep(1000);
				continue;
			}
			atomic_fetch_add(&alive, 1);
			if (pthread_create(&t, &a, short_thread, NULL) == 0) {
				n++;
				atomic_fetch_add(&spawned, 1);
			} else {
				atomic_fetch_sub(&alive, 1);
				atomic_fetch_add(&spawn_fail, 1);
				usleep(1000);
			}
		}
		if (fork_mode) {
			int st;
			pid_t w;
			while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
				reaped++;
				if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
					atomic_fetch_add(&rt_seen, 1);
			}
		}
	}
	if (fork_mode) {
		int st;
		while (reaped < n && waitpid(-1, &st, 0) > 0) {
			reaped++;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
				atomic_fetch_add(&rt_seen, 1);
		}
	} else {
		double stop = now_s() + 5;
		while (atomic_load(&alive) > 0 && now_s() < stop)
			usleep(1000);
	}
	printf("spawned %ld rt_seen %ld failed %ld rate %.0f spawner_rt %d\n",
	       atomic_load(&spawned), atomic_load(&rt_seen), atomic_load(&spawn_fail),
	       (double)atomic_load(&spawned) / seconds, self_rt());
	if (hold > 0) /* stay, blocked, so the caller can inspect the rest */
		usleep((useconds_t)(hold * 1e6));
	return 0;
}

/* ---- race: ISO for TIDs that just died or are about to be born ------- */
static atomic_int last_tid;

static void *die_at_once(void *arg)
{
	(void)arg;
	atomic_store(&last_tid, (int)gettid());
	return NULL;
}

static void *die_soon(void *arg)
{
	double end = now_s() + 0.0002 * (double)(rand() % 5);

	(void)arg;
	atomic_store(&last_tid, (int)gettid());
	while (now_s() < end)
		;
	return NULL;
}

static int do_race(double seconds)
{
	long req = 0, ok = 0, eperm = 0, esrch = 0, eagain = 0, other = 0, foreign = 0,
	     foreign_proc = 0, wraps = 0, loops = 0;
	pid_t prev = 0;
	double end = now_s() + seconds;
	uid_t me = getuid();

	while (now_s() < end) {
		pthread_t t;
		pid_t base;

		int mode = (int)(loops++ % 3), live = 0;

		if (mode == 0) {
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			if (c < 0)
				continue;
			waitpid(c, NULL, 0);
			base = c;
		} else if (mode == 1) {
			atomic_store(&last_tid, 0);
			if (pthread_create(&t, NULL, die_at_once, NULL))
				continue;
			pthread_join(t, NULL);
			base = atomic_load(&last_tid);
		} else {
			/* a thread of ours that exits while we ask for it */
			atomic_store(&last_tid, 0);
			if (pthread_create(&t, NULL, die_soon, NULL))
				continue;
			while (!(base = atomic_load(&last_tid)))
				;
			live = 1;
		}
		if (base < prev)
			wraps++; /* the TID space went round: reuse from here on */
		prev = base;
		/* the dead one, then where the next threads of the machine
		 * (the victim's, most likely) are being born */
		for (int k = 0; k < 4; k++) {
			struct iso_thread_info ti;
			int r;

			memset(&ti, 0, sizeof(ti));
			r = iso_set_thread(base + k, ISO_SCHED_RR, 10, 0, &ti);
			req++;
			if (r == 0) {
				ok++;
				if (ti.uid != me) {
					foreign++;
					fprintf(stderr, "race: granted thread %d of uid %u\n",
						(int)ti.tid, (unsigned)ti.uid);
				}
				if (ti.pid != getpid()) {
					foreign_proc++;
					/* never hold what is not ours */
					(void)iso_set_thread(base + k, ISO_SCHED_NORMAL, 0, 0, NULL);
				}
			} else if (r == -EPERM) {
				eperm++;
			} else if (r == -ESRCH) {
				esrch++;
			} else if (r == -EAGAIN) {
				eagain++;
			} else {
				/* say which: a flake here must be diagnosable
				 * from one CI log */
				if (other++ < 5)
					fprintf(stderr, "race: thread %d: unexpected %s\n",
						(int)(base + k), strerror(-r));
			}
		}
		if (live)
			pthread_join(t, NULL);
	}
	printf("requests %ld ok %ld eperm %ld esrch %ld eagain %ld other %ld foreign_uid %ld other_process %ld wraps %ld\n",
	       req, ok, eperm, esrch, eagain, other, foreign, foreign_proc, wraps);
	return 0;
}

/* ---- wrap: run the TID counter round pid_max once (vfork + _exit) ---- */
static int do_wrap(double seconds)
{
	double end = now_s() + seconds;
	pid_t first = 0, prev = 0;
	long n = 0;
	int wrapped = 0;

	while (now_s() < end) {
		pid_t c = vfork();
		if (c == 0)
			_exit(0);
		if (c < 0)
			break;
		waitpid(c, NULL, 0);
		n++;
		if (!first)
			first = c;
		if (c < prev) {
			wrapped = 1;
			break;
		}
		prev = c;
	}
	printf("burned %ld from %d to %d wrapped %s\n", n, (int)first, (int)prev,
	       wrapped ? "yes" : "no");
	return 0;
}

/* ---- peerpid: SO_PEERCRED's pid outlives its process ----------------- */
/* Run as root. A (uid/gid nobody, no groups) connects to isod and forks B,
 * which inherits the connection; A exits. With reuse=1 the TID counter is
 * driven round until A's pid is handed to C: a process of uid/gid daemon
 * with the supplementary group GID. Then B asks, on A's connection, for
 * ISO for its own thread. isod authenticated the connection as A's
 * (SO_PEERCRED: uid nobody, pid A) and reads the groups for allow_groups
 * from /proc/PEER_PID/status at request time. Prints the outcome. */
#include <grp.h>
static int drop_to(uid_t uid, gid_t gid, const gid_t *groups, size_t n)
{
	if (setgroups(n, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		return -1;
	return 0;
}

/* Are all pids in (lo, hi) in use? Then the next new task gets hi. */
static int all_taken(pid_t lo, pid_t hi)
{
	for (pid_t p = lo + 1; p < hi; p++)
		if (kill(p, 0) < 0 && errno == ESRCH)
			return 0;
	return 1;
}

/* Take one TID: a child that exits at once. Returns its pid. */
static __attribute__((noinline)) pid_t take_pid(void)
{
	pid_t v = vfork();

	if (v == 0)
		_exit(0);
	if (v > 0)
		waitpid(v, NULL, 0);
	return v;
}

static int do_peerpid(int reuse, uid_t nuid, gid_t ngid, uid_t duid, gid_t dgid, gid_t grp)
{
	int go[2], res[2], fd = -1;
	pid_t a, c = -1, apid;
	int32_t out[3] = { 1, 0, 0 }; /* err, rt before, rt after */

	if (pipe(go) < 0 || pipe(res) < 0)
		return 1;
	a = fork();
	if (a == 0) {
		if (drop_to(nuid, ngid, NULL, 0) < 0)
			_exit(1);
		/* reuse 2: the control, without the connection */
		fd = reuse == 2 ? -1 : connect_raw(3000);
		if (fd < 0 && reuse != 2)
			_exit(1);
		if (fork() == 0) { /* B */
			unsigned char buf[64];
			struct iso_req q;
			char ch;
			int len;

			close(go[1]);
			close(res[0]);
			alarm(20);
			if (read(go[0], &ch, 1) != 1)
				_exit(1);
			memset(&q, 0, sizeof(q));
			q.type = ISO_MSG_SET;
			q.seq = 1;
			q.u.set.tid = gettid();
			q.u.set.policy = ISO_SCHED_RR;
			q.u.set.prio = 10;
			len = iso_proto_encode_req(&q, buf, sizeof(buf));
			out[1] = self_rt();
			if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) == len)
				out[0] = read_reply(fd, NULL, 0);
			out[2] = self_rt();
			if (write(res[1], out, sizeof(out)) != sizeof(out))
				_exit(1);
			if (out[0] == 0) { /* give it back */
				q.u.set.policy = ISO_SCHED_NORMAL;
				q.u.set.prio = 0;
				q.seq = 2;
				len = iso_proto_encode_req(&q, buf, sizeof(buf));
				if (send(fd, buf, (size_t)len, MSG_NOSIGNAL) == len)
					(void)read_reply(fd, NULL, 0);
			}
			_exit(0);
		}
		_exit(0); /* A: gone, its pid free */
	}
	close(go[0]);
	close(res[1]);
	if (a < 0 || waitpid(a, NULL, 0) != a)
		return 1;
	apid = a;
	if (reuse) {
		double end = now_s() + 15;
		for (int tries = 0; tries < 8 && now_s() < end; tries++) {
			pid_t v;
			FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");

			/* set the PID cursor just below A's pid (root: the
			 * checkpoint/restore knob; it only chooses which free
			 * number the next task gets), else walk it there */
			if (f && fprintf(f, "%d", (int)apid - 1) > 0 && fclose(f) == 0) {
				f = NULL;
			} else {
				if (f)
					fclose(f);
				while (now_s() < end) {
					v = take_pid();
					if (v < 0)
						break;
					if (v >= apid - 8 && v < apid) {
						while (v >= 0 && v < apid - 1 && !all_taken(v, apid))
							v = take_pid();
						break;
					}
				}
			}
			c = fork();
			if (c == 0) {
				gid_t g[1] = { grp };
				if (drop_to(duid, dgid, g, 1) < 0)
					_exit(1);
				sleep(10);
				_exit(0);
			}
			if (c == apid)
				break;
			fprintf(stderr, "peerpid: try %d: got pid %d, want %d\n", tries, (int)c, (int)apid);
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
			c = -1;
		}
		if (c != apid) {
			printf("peerpid reuse no (could not get pid %d again)\n", (int)apid);
			(void)!write(go[1], "g", 1);
			return 0;
		}
		usleep(100000); /* C has dropped to daemon with the group */
	}
	(void)!write(go[1], "g", 1);
	if (read(res[0], out, sizeof(out)) != sizeof(out))
		out[0] = 99;
	printf("peerpid reuse %s pid %d err %d rt_before %d rt_during %d\n",
	       reuse ? "yes" : "none", (int)apid, out[0], out[1], out[2]);
	if (c > 0) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: hardtool flood RATE S | client S MS | hold N S | noread N S |"
			" packets | fdpass N | churn thread|fork S RATE LIFE_US [iso|plain [HOLD]] |"
			" race S\n");
	exit(64);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(150); /* the hard bound; modes with a duration re-arm it below */
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(m, "flood") && argc == 4)
		return do_flood(atof(argv[2]), atof(argv[3]));
	if (!strcmp(m, "client") && argc == 4) {
		alarm((unsigned)atof(argv[2]) + 60);
		return do_client(atof(argv[2]), atoi(argv[3]));
	}
	if (!strcmp(m, "hold") && argc == 4)
		return do_hold(atoi(argv[2]), atof(argv[3]));
	if (!strcmp(m, "setpid") && argc == 4)
		return do_setpid(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "linger") && argc == 3)
		return do_linger(atof(argv[2]));
	if (!strcmp(m, "noread") && argc == 4)
		return do_noread(atoi(argv[2]), atof(argv[3]));
	if (!strcmp(m, "packets") && argc == 2)
		return do_packets();
	if (!strcmp(m, "fdpass") && argc == 3)
		return do_fdpass(atoi(argv[2]));
	if (!strcmp(m, "churn") && argc >= 6 && argc <= 8) {
		alarm((unsigned)(atof(argv[3]) + (argc == 8 ? atof(argv[7]) : 0)) + 60);
		return do_churn(argv[2], atof(argv[3]), atof(argv[4]), atol(argv[5]),
				argc >= 7 ? strcmp(argv[6], "plain") != 0 : 1,
				argc == 8 ? atof(argv[7]) : 0);
	}
	if (!strcmp(m, "peerpid") && argc == 8)
		return do_peerpid(atoi(argv[2]), (uid_t)atoi(argv[3]), (gid_t)atoi(argv[4]),
				  (uid_t)atoi(argv[5]), (gid_t)atoi(argv[6]), (gid_t)atoi(argv[7]));
	if (!strcmp(m, "wrap") && argc == 3)
		return do_wrap(atof(argv[2]));
	if (!strcmp(m, "race") && argc == 3)
		return do_race(atof(argv[2]));
	usage();
	return 64;
}
