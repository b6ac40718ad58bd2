/* server.c — the request loop: connections, fairness between users, the
 * group commit of grants to the state file (the socket: listen.c). */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "charge.h"
#include "forkwatch.h"
#include "grants.h"
#include "handler.h"
#include "iso_policy.h"
#include "log.h"
#include "nsmap.h"
#include "procinfo.h"
#include "ratelimit.h"
#include "statefile.h"
#include "strays.h"
#include "strays_tick.h"

/* Fairness between users: what one user does must not delay another
 * user's request by more than a few loop rounds, so a round is bounded.
 * - LISTEN_BACKLOG: the kernel queues connections in arrival order, before
 *   isod can tell whose they are; a short queue (a connect() beyond it
 *   blocks in the kernel, and every waiter is woken as room is made) keeps
 *   a flooder from putting thousands of connections ahead of another
 *   user's. Each round accepts until the queue is empty, at most
 *   ACCEPT_PER_ROUND (the queue's length: a flood that refills it as fast
 *   as isod drains it cannot keep isod accepting forever).
 * - SERVE_PER_UID: requests served per uid per round. A user's further
 *   ready connections wait for the next round; epoll is level-triggered
 *   and puts a reported connection at the back of its ready list, so the
 *   other users' connections come first. */
#define ACCEPT_PER_ROUND SERVER_LISTEN_BACKLOG
#define SERVE_PER_UID 8

/* How many of something one uid has (connections, requests this round). */
struct uid_count {
	uid_t uid;
	unsigned n;
};

/* A successful SET's reply waits until the state file records the grant
 * (written once per loop round for all of them: group commit). */
#define HELD_MAX 512


struct conn {
	int fd;
	struct peer peer;
	uint64_t born;
	size_t held_len;
	bool held_grant;      /* the held reply says a grant succeeded */
	uint16_t held_type;
	uint32_t held_seq;
	unsigned char held[HELD_MAX];
};

static void close_conn(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	if (c->peer.has_pidfd)
		close(c->peer.pidfd);
	c->peer.has_pidfd = false;
}

static void drop(int ep, struct conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close_conn(c);
	c->held_len = 0;
}

static void send_reply(int ep, struct conn *c, const void *buf, size_t len)
{
	if (send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		drop(ep, c); /* a client that does not read loses its connection */
}

/* Send the held reply; if the grant it announces was undone because it
 * could not be recorded, say so instead. */
static void flush_one(int ep, struct conn *c, bool recorded)
{
	size_t len = c->held_len;

	c->held_len = 0;
	if (c->fd < 0 || !len)
		return;
	if (c->held_grant && !recorded) {
		unsigned char buf[HELD_MAX + 256];
		struct iso_reply rep;
		int n;

		handle_unrecorded(c->held_type, c->held_seq, &rep);
		n = iso_proto_encode_reply(&rep, buf, sizeof(buf));
		if (n < 0) {
			drop(ep, c);
			return;
		}
		send_reply(ep, c, buf, (size_t)n);
		return;
	}
	send_reply(ep, c, c->held, len);
}

/* Record this round's changes in the state file, if any (group commit):
 * one append, or now and then a compaction (statefile.h). False if they
 * could not be written: the grants among them have been undone
 * (isod_recorded*) and the file is rewritten whole next round. */
static bool sync_state(struct isod *d)
{
	enum state_commit how;
	int r;

	if (!atomic_exchange(&d->state_dirty, false))
		return true;
	statefile_check(d);
	pthread_mutex_lock(&d->lock);
	how = statefile_begin(d);
	pthread_mutex_unlock(&d->lock);
	r = statefile_flush(d, how);
	pthread_mutex_lock(&d->lock);
	isod_commit_end(d, how, r == 0);
	pthread_mutex_unlock(&d->lock);
	if (r < 0) {
		/* said once, not every round it is retried */
		if (!d->state.failing)
			log_error_errno(r, "cannot write state file %s; refusing grants until it can be written",
					d->cfg.state_path);
		d->state.failing = true;
		atomic_store(&d->state_dirty, true);
	} else if (d->state.failing) {
		d->state.failing = false;
		log_info("state file %s written again; grants accepted", d->cfg.state_path);
	}
	return r == 0;
}

static void serve_one(struct isod *d, int ep, struct conn *c, struct ratelimit *rl);

/* Everything authorization needs, as the kernel saw it at connect time:
 * credentials, supplementary groups, and the start time that pins the pid.
 * A peer whose groups cannot be read has none (allow_groups then refuses);
 * one already gone has starttime 1 (never matches: its requests get ESRCH). */
static void peer_from_cred(struct isod *d, int fd, const struct ucred *cred, struct peer *p)
{
	socklen_t glen = sizeof(p->groups);

	p->pid = cred->pid;
	p->uid = cred->uid;
	p->gid = cred->gid;
	/* who pays (charge.h); the uid itself if that cannot be read */
	(void)read_charged_uid(d->proc, cred->pid, cred->uid, &p->charged);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &glen) == 0)
		p->ngroups = glen / sizeof(p->groups[0]);
	else
		p->ngroups = 0; /* more than 64 groups (ERANGE), or an old kernel */
	/* before the start time: a pid reused in between leaves the pidfd
	 * on the exited process (readable), never on its successor. None
	 * (before 5.3, out of fds, a filter): each later request reads the
	 * start time again */
	p->pidfd = (int)syscall(SYS_pidfd_open, cred->pid, 0);
	p->has_pidfd = p->pidfd >= 0;
	/* its PID namespace (a process never changes its own) before the
	 * start time, which the pidfd then vouches for at each request */
	if (client_pidns(d->proc, cred->pid, &p->pidns) < 0)
		p->pidns = 0;
	if (read_thread_starttime(d->proc, cred->pid, &p->starttime) < 0 || p->starttime == 0)
		p->starttime = 1;
	p->fresh = false;
}

/* The slot for a new connection: a free one, else one taken from the user
 * holding the most connections (their oldest), so that a user hoarding
 * connections loses its own, not other users'. Called for every accept of
 * a connection storm: one pass to count per uid (few distinct uids), one
 * to find the oldest of the top holder. */
static size_t pick_slot(const struct conn *conns)
{
	struct uid_count held[SERVER_MAX_CONN];
	size_t nuids = 0, top = 0, victim = SERVER_MAX_CONN;

	for (size_t i = 0; i < SERVER_MAX_CONN; i++) {
		size_t u = 0;

		if (conns[i].fd < 0)
			return i;
		while (u < nuids && held[u].uid != conns[i].peer.charged)
			u++;
		if (u == nuids)
			held[nuids++] = (struct uid_count){ conns[i].peer.charged, 0 };
		if (++held[u].n > held[top].n)
			top = u;
	}
	for (size_t i = 0; i < SERVER_MAX_CONN; i++)
		if (conns[i].peer.charged == held[top].uid &&
		    (victim == SERVER_MAX_CONN || conns[i].born < conns[victim].born))
			victim = i;
	return victim;
}

/* Requests served per uid in this round (SERVE_PER_UID). */
struct round_turns {
	size_t n;
	struct uid_count u[SERVER_MAX_CONN];
};

/* May uid's connection be served in this round? Counts the turn if so. */
static bool take_turn(struct round_turns *t, uid_t uid)
{
	size_t i = 0;

	while (i < t->n && t->u[i].uid != uid)
		i++;
	if (i == t->n) {
		if (t->n == SERVER_MAX_CONN)
			return true; /* cannot happen: one connection per slot */
		t->u[t->n++] = (struct uid_count){ uid, 0 };
	}
	if (t->u[i].n >= SERVE_PER_UID)
		return false;
	t->u[i].n++;
	return true;
}

/* Accept one pending connection: false once there is none (or accept
 * fails), true to try the next. */
static bool accept_one(struct isod *d, int ep, int lfd, struct conn *conns,
		       uint64_t *clock, struct ratelimit *rl, int *reserve,
		       struct round_turns *turns)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	size_t slot;

	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && *reserve >= 0) {
		/* Out of fds (tracked threads hold two each): the pending client
		 * would keep the listening socket readable forever. Spend the
		 * reserve fd to take it and close it: it sees the connection
		 * refused instead of hanging, and isod does not spin. */
		close(*reserve);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		*reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
		log_warning("out of file descriptors: refused a connection");
		return fd >= 0;
	}
	if (fd < 0)
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		close(fd);
		return true;
	}
	slot = pick_slot(conns);
	if (conns[slot].fd >= 0) {
		log_debug("too many connections; dropping the oldest of uid %u",
			  (unsigned)conns[slot].peer.uid);
		/* a request already sent on it is still answered */
		if (!conns[slot].held_len)
			serve_one(d, ep, &conns[slot], rl);
		if (conns[slot].held_len)
			flush_one(ep, &conns[slot], sync_state(d));
		if (conns[slot].fd >= 0)
			drop(ep, &conns[slot]);
	}
	conns[slot].fd = fd;
	peer_from_cred(d, fd, &cred, &conns[slot].peer);
	conns[slot].born = ++*clock;
	ev.data.u64 = slot;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	/* a client sends its request right after connect(): serve it now, in
	 * its user's turn, rather than a round later */
	if (take_turn(turns, conns[slot].peer.charged)) {
		/* its pid's start time was read microseconds ago, after the
		 * connect: its first request needs no second read. For the pid
		 * to name another process by now, the client would have to
		 * exit and the kernel hand its pid out again in between — the
		 * same window as between connect and accept, which no read
		 * closes (a later request on the connection is checked) */
		conns[slot].peer.fresh = true;
		serve_one(d, ep, &conns[slot], rl);
		conns[slot].peer.fresh = false;
	}
	return true;
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void serve_one(struct isod *d, int ep, struct conn *c, struct ratelimit *rl)
{
	static unsigned char buf[ISO_PROTO_MAX_MSG];
	static struct iso_thread_info threads[ISO_PROTO_PAGE];
	struct iso_reply rep;
	struct iso_req req;
	enum handle_effect effect = HANDLE_READ_ONLY;
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_TRUNC | MSG_DONTWAIT);
	int len, r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop(ep, c);
		return;
	}
	if ((size_t)n > sizeof(buf))
		r = -EBADMSG; /* oversized: truncated by the kernel */
	else
		r = iso_proto_decode_req(buf, (size_t)n, &req);
	if (r < 0) {
		uint16_t type;
		uint32_t seq;

		iso_proto_peek_header(buf, (size_t)n > sizeof(buf) ? sizeof(buf) : (size_t)n,
				      &type, &seq);
		log_debug("bad message from pid %d (%zd bytes)", (int)c->peer.pid, n);
		handle_bad_message(r, type, seq, &rep);
	} else if (!ratelimit_take(rl, c->peer.charged, monotonic_ns())) {
		handle_rate_limited(&req, &rep);
	} else {
		effect = handle_request(d, &c->peer, &req, &rep, threads);
	}
	len = iso_proto_encode_reply(&rep, buf, sizeof(buf));
	if (len < 0) {
		drop(ep, c);
	} else if (effect != HANDLE_READ_ONLY && (size_t)len <= HELD_MAX) {
		/* a change of the state file (a grant, a release): answer once
		 * it is recorded (sync_state, at the end of the round). Every
		 * other reply goes out at once: no user's request waits for the
		 * disk because of another's grants. */
		memcpy(c->held, buf, (size_t)len);
		c->held_len = (size_t)len;
		c->held_grant = effect == HANDLE_GRANTED;
		c->held_type = rep.type;
		c->held_seq = rep.seq;
	} else {
		send_reply(ep, c, buf, (size_t)len);
	}
}

/* (Re-)register the extra source's fd with what it wants now, and lower
 * the round's timeout to its own. */
static void source_arm(int ep, const struct server_source *s, int *armed, int *timeout)
{
	struct epoll_event ev = { .data.u64 = UINT64_MAX - 3 };
	int fd, t;

	if (!s)
		return;
	fd = s->fd(s->ctx);
	if (fd != *armed && *armed >= 0) {
		epoll_ctl(ep, EPOLL_CTL_DEL, *armed, NULL);
		*armed = -1;
	}
	if (fd >= 0) {
		ev.events = s->events(s->ctx);
		/* a closed fd leaves epoll by itself: MOD then fails, ADD it */
		if ((*armed == fd && epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) == 0) ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0)
			*armed = fd;
	}
	t = s->timeout_ms(s->ctx);
	if (t >= 0 && (*timeout < 0 || t < *timeout))
		*timeout = t;
}

int server_run(struct isod *d, int lfd, int sigfd, int forkfd,
	       void (*tick)(struct isod *d))
{
	return server_run_with(d, lfd, sigfd, forkfd, tick, NULL);
}

int server_run_with(struct isod *d, int lfd, int sigfd, int forkfd,
		    void (*tick)(struct isod *d), const struct server_source *extra)
{
	static struct conn conns[SERVER_MAX_CONN];
	static struct ratelimit rl;
	static struct round_turns turns;
	struct epoll_event ev = { .events = EPOLLIN }, evs[SERVER_MAX_CONN + 6];
	uint64_t clock = 0;
	int extra_fd = -1;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int strayfd = accounting_stray_fd(d->acct); /* the kernel's stray reports, if BPF */

	if (ep < 0)
		return -errno;
	for (size_t i = 0; i < SERVER_MAX_CONN; i++)
		conns[i].fd = -1;
	ratelimit_init(&rl, d->cfg.rate_limit, d->cfg.rate_burst);
	ev.data.u64 = UINT64_MAX;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.u64 = UINT64_MAX - 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	if (forkfd >= 0) {
		ev.data.u64 = UINT64_MAX - 2;
		epoll_ctl(ep, EPOLL_CTL_ADD, forkfd, &ev);
	}
	if (d->server_wake >= 0) {
		ev.data.u64 = UINT64_MAX - 4; /* - 3 is the second front end's */
		epoll_ctl(ep, EPOLL_CTL_ADD, d->server_wake, &ev);
	}
	if (strayfd >= 0) {
		ev.data.u64 = UINT64_MAX - 5;
		epoll_ctl(ep, EPOLL_CTL_ADD, strayfd, &ev);
	}
	while (!atomic_load(&d->stop)) {
		/* every ready connection in one round (plus the listening socket,
		 * signals, forks and the D-Bus face), so that no user's waits
		 * behind another's */
		int timeout, n;
		bool recorded, accepting = false;

		turns.n = 0;
		timeout = strays_timeout_ms(d, monotonic_ns());
		source_arm(ep, extra, &extra_fd, &timeout);
		n = epoll_wait(ep, evs, SERVER_MAX_CONN + 6, timeout);
		for (int i = 0; i < n; i++) {
			uint64_t k = evs[i].data.u64;
			if (k == UINT64_MAX) {
				accepting = true; /* after this round's requests */
			} else if (k == UINT64_MAX - 1) {
				struct signalfd_siginfo si;
				if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGHUP) {
						atomic_store(&d->reload, true);
					} else {
						log_info("signal %u: shutting down", si.ssi_signo);
						atomic_store(&d->stop, true);
					}
				}
			} else if (k == UINT64_MAX - 2) {
				forkwatch_handle(d, forkfd);
			} else if (k == UINT64_MAX - 4) {
				eventfd_t v;
				(void)eventfd_read(d->server_wake, &v); /* tick() below */
			} else if (k == UINT64_MAX - 5) {
				(void)strays_kernel(d);
			} else if (k < SERVER_MAX_CONN && conns[k].fd >= 0) {
				if (evs[i].events & (EPOLLHUP | EPOLLERR) && !(evs[i].events & EPOLLIN))
					drop(ep, &conns[k]);
				else if (!conns[k].held_len && /* else: next round, in order */
					 take_turn(&turns, conns[k].peer.charged))
					serve_one(d, ep, &conns[k], &rl);
			}
		}
		for (int a = 0; accepting && a < ACCEPT_PER_ROUND; a++)
			accepting = accept_one(d, ep, lfd, conns, &clock, &rl, &reserve, &turns);
		if (extra)
			extra->process(extra->ctx, &rl);
		tick(d);
		recorded = sync_state(d);
		for (size_t i = 0; i < SERVER_MAX_CONN; i++)
			flush_one(ep, &conns[i], recorded);
		if (extra)
			extra->flush(extra->ctx, recorded);
		/* the configuration changes only in tick(), on this thread */
		if (rl.rate != d->cfg.rate_limit || rl.burst != d->cfg.rate_burst)
			ratelimit_configure(&rl, d->cfg.rate_limit, d->cfg.rate_burst);
	}
	for (size_t i = 0; i < SERVER_MAX_CONN; i++)
		if (conns[i].fd >= 0)
			close_conn(&conns[i]);
	if (reserve >= 0)
		close(reserve);
	close(ep);
	return 0;
}
