/* conn.c — the connection to isod a process keeps from one call to the
 * next. A fresh connection costs both sides about a dozen system calls
 * (socket, connect, accept, the peer's credentials, start time and groups
 * read by isod, epoll registration, two closes): a third of a request.
 *
 * One connection per process, used by one call at a time: a call that
 * finds it in use (another thread, or a signal handler interrupting a
 * call) opens a connection of its own for that call, as every call did
 * before. No lock is ever waited on, so calls stay async-signal-safe.
 *
 * The kept connection is only used while it is still what it was:
 *   - the same process (a child of fork() closes its copy: isod knows the
 *     connection by the pid that opened it, and maps thread ids through
 *     that pid's namespace);
 *   - the same credentials (isod reads the peer's uid, gid and groups at
 *     accept: a process that drops privileges must not keep using a
 *     connection opened with the old ones);
 *   - the same socket under that fd number (a program may close every fd
 *     it does not know of, and open a file that gets the number).
 * Otherwise it is forgotten and a new one opened. */
#include "conn.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* What the kept connection was opened as. */
struct kept_id {
	pid_t pid;
	uid_t euid;
	gid_t egid;
	int ngroups;
	gid_t groups[CONN_GROUPS_MAX];
	dev_t dev;
	ino_t ino;
};

/* Process-wide by design: the connection is the process's, shared by its
 * threads one call at a time. holder is the pid of the process whose
 * thread is using it (0: free); kept_fd/kept are only touched by the
 * holder. */
static _Atomic pid_t holder;
static int kept_fd = -1;
static struct kept_id kept;

static void identify(struct kept_id *id)
{
	int n;

	id->pid = getpid();
	id->euid = geteuid();
	id->egid = getegid();
	n = getgroups(CONN_GROUPS_MAX, id->groups);
	/* more groups than we compare: never the same, so never kept */
	id->ngroups = n;
}

static bool same_id(const struct kept_id *a, const struct kept_id *b)
{
	return a->ngroups >= 0 && a->pid == b->pid && a->euid == b->euid &&
	       a->egid == b->egid && a->ngroups == b->ngroups &&
	       memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(gid_t)) == 0;
}

int conn_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A wedged daemon must not hang the caller forever. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* fork(): the child's copy of the connection is not its own (above). Only
 * the forking thread lives on in the child, so nothing holds it there. */
static void after_fork_in_child(void)
{
	if (kept_fd >= 0)
		close(kept_fd);
	kept_fd = -1;
	atomic_store(&holder, 0);
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	(void)pthread_atfork(NULL, NULL, after_fork_in_child);
}

/* Take the kept connection, if free; steal it from a holder that is not
 * this process (a parent that forked while one of its threads held it,
 * through a path the fork handler did not see: raw clone()). */
static bool take(pid_t self)
{
	pid_t h = 0;

	if (atomic_compare_exchange_strong(&holder, &h, self))
		return true;
	return h != self && atomic_compare_exchange_strong(&holder, &h, self);
}

int conn_get(const char *path, struct conn *c)
{
	struct kept_id now;
	struct stat st;

	c->kept = false;
	c->reused = false;
	identify(&now);
	if (now.ngroups < 0 || !take(now.pid)) {
		c->fd = conn_open(path);
		return c->fd;
	}
	c->kept = true;
	if (kept_fd >= 0) {
		if (same_id(&now, &kept) && fstat(kept_fd, &st) == 0 &&
		    st.st_dev == kept.dev && st.st_ino == kept.ino) {
			c->fd = kept_fd;
			c->reused = true;
			return c->fd;
		}
		/* Another process's copy, other credentials: ours to close.
		 * Another file under the number: not ours, left alone. */
		if (fstat(kept_fd, &st) == 0 && st.st_dev == kept.dev &&
		    st.st_ino == kept.ino)
			close(kept_fd);
		kept_fd = -1;
	}
	c->fd = conn_open(path);
	if (c->fd >= 0 && fstat(c->fd, &st) == 0) {
		kept = now;
		kept.dev = st.st_dev;
		kept.ino = st.st_ino;
		kept_fd = c->fd;
	}
	return c->fd;
}

void conn_put(struct conn *c, bool broken)
{
	if (c->fd < 0) {
		if (c->kept)
			atomic_store(&holder, 0);
		return;
	}
	if (!c->kept) {
		close(c->fd);
	} else {
		if (broken || kept_fd != c->fd) {
			if (kept_fd == c->fd)
				kept_fd = -1;
			close(c->fd);
		}
		atomic_store(&holder, 0);
	}
	c->fd = -1;
}
