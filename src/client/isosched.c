/* isosched.c — libisosched: one request, one reply per call, on the
 * connection the process keeps (conn.c) or, while another call uses that,
 * on one of the call's own: calls are thread-safe and usable from the
 * preload shim without locks. */
#include "isosched.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "iso_policy.h"
#include "iso_proto.h"

/* The public names are the program's; the numbers are iso_policy.h's. */
_Static_assert(ISO_SCHED_NORMAL == ISO_POLICY_NORMAL && ISO_SCHED_FIFO == ISO_POLICY_FIFO &&
	       ISO_SCHED_RR == ISO_POLICY_RR && ISO_SCHED_ISO_RR == ISO_POLICY_ISO_RR &&
	       ISO_SCHED_ISO_FIFO == ISO_POLICY_ISO_FIFO,
	       "isosched.h and iso_policy.h agree on policy numbers");

static __thread char last_error[ISO_PROTO_TEXT_MAX + 1];
static __thread unsigned char last_error_from; /* ISO_ERROR_* */

const char *iso_last_error(void)
{
	return last_error;
}

int iso_last_error_source(void)
{
	return last_error_from;
}

static void set_error_from(int from, const char *msg)
{
	size_t n = strnlen(msg, ISO_PROTO_TEXT_MAX);

	memcpy(last_error, msg, n);
	last_error[n] = '\0';
	last_error_from = (unsigned char)from;
}

/* The library's own failures: isod never answered. */
static void set_error(const char *msg)
{
	set_error_from(ISO_ERROR_TRANSPORT, msg);
}

const char *iso_socket_path(void)
{
	/* secure_getenv: a setuid or file-capability program (the shim under
	 * /etc/ld.so.preload reaches those too) must not be steered to a
	 * socket its caller chose. */
	const char *p = secure_getenv("ISOSCHED_SOCKET");

	return (p && *p) ? p : ISO_DEFAULT_SOCKET;
}

/* The paged replies' buffer (STATUS, USERS), per thread. One only: the
 * preload shim links this file, so its static TLS is carried by every
 * thread of every program it is loaded into, and programs that give
 * their threads small stacks of their own (cyclictest: 32 KiB) fail
 * pthread_create with EINVAL once static TLS does not fit in them. */
static __thread unsigned char page_buf[ISO_PROTO_MAX_MSG];

/* Small enough for the stack of any thread (audio threads may have small
 * stacks): SET and GET replies fit; only STATUS needs the full size. */
#define SMALL_MSG 512

/* One send and its reply on fd: the reply's length, 0 if isod closed the
 * connection first, or a negative errno. */
static ssize_t exchange(int fd, unsigned char *buf, size_t len, size_t cap)
{
	ssize_t n;

	do
		n = send(fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	do
		n = recv(fd, buf, cap, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* A kept connection isod has closed since the last call (a restart, its
 * connection limit): the request was not served, and is sent again once
 * on a new connection. A timeout is not one of these. */
static bool closed_by_isod(ssize_t n)
{
	return n == 0 || n == -EPIPE || n == -ECONNRESET || n == -ENOTCONN;
}

/* Send req, wait for its reply into rep (whose threads/threads_cap the
 * caller set), using buf of cap bytes. Returns the reply's err, or a
 * transport error. */
static int transact_once(struct iso_req *req, struct iso_reply *rep,
			 unsigned char *buf, size_t cap)
{
	static __thread uint32_t seq;
	struct conn c;
	ssize_t n;
	int len, r;

	last_error[0] = '\0';
	/* a failure before isod answers is the transport's */
	last_error_from = ISO_ERROR_TRANSPORT;
	req->seq = ++seq;
	for (int attempt = 0;; attempt++) {
		len = iso_proto_encode_req(req, buf, cap);
		if (len < 0)
			return len;
		if (conn_get(iso_socket_path(), &c) < 0) {
			r = c.fd;
			conn_put(&c, true);
			set_error(r == -ENAMETOOLONG ? "socket path too long"
				  : "cannot reach isod (is it running? see ISOSCHED_SOCKET)");
			return r;
		}
		n = exchange(c.fd, buf, (size_t)len, cap);
		if (n > 0 || !c.reused || attempt > 0 || !closed_by_isod(n))
			break;
		conn_put(&c, true);
	}
	if (n <= 0) {
		conn_put(&c, true);
		set_error(n == 0 || n == -EAGAIN ? "no reply from isod"
			  : "lost the connection to isod");
		return n == 0 ? -EPROTO : (int)n;
	}
	if ((size_t)n > cap ||
	    iso_proto_decode_reply(buf, (size_t)n, rep) < 0 ||
	    rep->seq != req->seq || rep->type != (req->type | ISO_MSG_REPLY)) {
		conn_put(&c, true);
		set_error("malformed reply from isod");
		return -EPROTO;
	}
	conn_put(&c, false);
	r = rep->err;
	if (r < 0)
		set_error_from(ISO_ERROR_DAEMON, rep->text);
	else
		last_error_from = ISO_ERROR_NONE;
	return r;
}

/* isod answers -EINPROGRESS while it is still looking for a thread of a
 * client in a PID namespace on a kernel before 6.11: each request buys a
 * bounded share of the walk, and the next resumes it (other users are
 * served in between). Enough tries for the largest namespace isod walks. */
#define WALK_TRIES 100000

static int transact(struct iso_req *req, struct iso_reply *rep,
		    unsigned char *buf, size_t cap)
{
	int r;

	for (int tries = 0;; tries++) {
		r = transact_once(req, rep, buf, cap);
		if (r != -EINPROGRESS || tries >= WALK_TRIES)
			return r;
	}
}

int iso_set_thread(pid_t tid, int policy, int prio, int limit_pct,
		   struct iso_thread_info *out)
{
	struct iso_req req = { .type = ISO_MSG_SET };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];
	int r;

	req.u.set.tid = (int32_t)(tid ? tid : gettid());
	req.u.set.policy = policy;
	req.u.set.prio = prio;
	req.u.set.limit = limit_pct;
	r = transact(&req, &rep, buf, sizeof(buf));
	if (r == 0 && out)
		*out = rep.thread;
	return r;
}

int iso_set_reservation(pid_t tid, uint64_t runtime_ns, uint64_t period_ns,
			uint64_t deadline_ns, struct iso_thread_info *out)
{
	struct iso_req req = { .type = ISO_MSG_RESERVE };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];
	int r;

	/* giving a reservation back is leaving ISO: one request, SET's */
	if (runtime_ns == 0)
		return iso_set_thread(tid, ISO_SCHED_NORMAL, 0, 0, out);
	req.u.reserve.tid = (int32_t)(tid ? tid : gettid());
	req.u.reserve.runtime_ns = runtime_ns;
	req.u.reserve.deadline_ns = deadline_ns;
	req.u.reserve.period_ns = period_ns;
	r = transact(&req, &rep, buf, sizeof(buf));
	if (r == 0 && out)
		*out = rep.thread;
	return r;
}

int iso_get_thread(pid_t tid, struct iso_thread_info *out)
{
	struct iso_req req = { .type = ISO_MSG_GET };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];
	int r;

	req.u.get.tid = (int32_t)(tid ? tid : gettid());
	r = transact(&req, &rep, buf, sizeof(buf));
	if (r == 0 && out)
		*out = rep.thread;
	return r;
}

int iso_status(struct iso_status_info *st, struct iso_thread_info *threads,
	       size_t cap)
{
	size_t got = 0;

	/* Page through the thread table; stop at cap or at the end. */
	for (;;) {
		struct iso_req req = { .type = ISO_MSG_STATUS };
		struct iso_reply rep = { 0 };
		int r;

		req.u.status.offset = (uint32_t)got;
		rep.threads = threads ? threads + got : NULL;
		rep.threads_cap = threads ? cap - got : 0;
		r = transact(&req, &rep, page_buf, sizeof(page_buf));
		if (r < 0)
			return r;
		if (st)
			*st = rep.status;
		if (rep.status.count > rep.threads_cap)
			rep.status.count = (uint32_t)rep.threads_cap;
		got += rep.status.count;
		if (rep.status.count == 0 || got >= cap ||
		    got >= rep.status.total)
			break;
	}
	return (int)got;
}

int iso_tune_user_cpu(int user_cpu)
{
	struct iso_req req = { .type = ISO_MSG_TUNE };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];

	req.u.tune.has_user_cpu = true;
	req.u.tune.user_cpu = user_cpu;
	return transact(&req, &rep, buf, sizeof(buf));
}

int iso_users(struct iso_users_info *st, struct iso_user_info *users, size_t cap)
{
	size_t got = 0;

	/* Paged like iso_status; stop at cap or at the end. */
	for (;;) {
		struct iso_req req = { .type = ISO_MSG_USERS };
		struct iso_reply rep = { 0 };
		int r;

		req.u.users.offset = (uint32_t)got;
		rep.user_list = users ? users + got : NULL;
		rep.user_cap = users ? cap - got : 0;
		r = transact(&req, &rep, page_buf, sizeof(page_buf));
		if (r < 0)
			return r;
		if (st)
			*st = rep.users;
		if (rep.users.count > rep.user_cap)
			rep.users.count = (uint32_t)rep.user_cap;
		got += rep.users.count;
		if (rep.users.count == 0 || got >= cap || got >= rep.users.total)
			break;
	}
	return (int)got;
}

int iso_top(struct iso_top_info *out)
{
	struct iso_req req = { .type = ISO_MSG_TOP };
	struct iso_reply rep = { .top = out };

	/* one request: no paging, so top costs isod one reply per refresh */
	return transact(&req, &rep, page_buf, sizeof(page_buf));
}

int iso_strays(struct iso_strays_info *out)
{
	struct iso_req req = { .type = ISO_MSG_STRAYS };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];
	int r = transact(&req, &rep, buf, sizeof(buf));

	if (r == 0 && out)
		*out = rep.strays;
	return r;
}

int iso_tune(int iso_cpu, int iso_period_s, struct iso_status_info *st)
{
	struct iso_req req = { .type = ISO_MSG_TUNE };
	struct iso_reply rep = { 0 };
	unsigned char buf[SMALL_MSG];
	int r;

	req.u.tune.iso_cpu = iso_cpu;
	req.u.tune.iso_period_s = iso_period_s;
	r = transact(&req, &rep, buf, sizeof(buf));
	if (r == 0 && st)
		*st = rep.status;
	return r;
}
