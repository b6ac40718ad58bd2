/* keptconn.c — the connection libisosched keeps between calls (conn.c),
 * checked from inside a client. Each mode prints "ok ..." or exits 1 with
 * what went wrong:
 *
 *   reuse    three calls on one socket; then the socket shut down under
 *            the library (as isod's restart or connection limit closes
 *            it): the next call still succeeds, on a new socket, and
 *            really puts the thread into SCHED_FIFO
 *   fork     the parent's connection is kept; a child of fork() whose
 *            parent has exited gets ISO on a connection of its own (the
 *            parent's copy would be refused: its pid is gone)
 *   fdreuse  the program closes the kept fd and opens a pipe under the
 *            number: the next call succeeds, writes nothing into the
 *            pipe and leaves the program's fd open
 *   restart  FILE: a call, then wait for FILE (the test restarts isod
 *            meanwhile): the next call succeeds on a new connection
 *   orphan   isod's side: a connection (opened without the library) is
 *            inherited by a child, and its opener exits: the child's
 *            request on it is refused (ESRCH), as its opener's pid may be
 *            another process's by now (the pidfd isod holds, or the start
 *            time it reads, says the opener is gone)
 *   creds    (as root) a connection opened as root, then the process
 *            becomes nobody: a root-owned thread is refused, as for any
 *            nobody — no call rides on the root connection
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "iso_proto.h"
#include "isosched.h"

static void die(const char *what, int r)
{
	fprintf(stderr, "keptconn: %s: %s (%s)\n", what, strerror(r < 0 ? -r : r),
		iso_last_error());
	exit(1);
}

/* The one socket among our fds: its fd and inode (0 when none). */
static unsigned long our_socket(int *fd_out)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned long ino = 0;
	int n = 0;

	if (!d)
		die("opendir /proc/self/fd", errno);
	while ((e = readdir(d))) {
		char p[300], l[64];
		ssize_t k;

		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		k = readlink(p, l, sizeof(l) - 1);
		if (k <= 0)
			continue;
		l[k] = '\0';
		if (sscanf(l, "socket:[%lu]", &ino) == 1) {
			n++;
			if (fd_out)
				*fd_out = atoi(e->d_name);
		}
	}
	closedir(d);
	if (n > 1) {
		fprintf(stderr, "keptconn: %d sockets open, want at most one\n", n);
		exit(1);
	}
	return n ? ino : 0;
}

static void want_policy(int want, const char *when)
{
	int pol = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK; /* isod sets it */

	if (pol != want) {
		fprintf(stderr, "keptconn: %s: kernel policy %d, want %d\n", when, pol, want);
		exit(1);
	}
}

static void set_self(int policy, const char *when)
{
	int r = iso_set_thread(0, policy, policy == ISO_SCHED_NORMAL ? 0 : 50, 0, NULL);

	if (r < 0)
		die(when, r);
}

static int mode_reuse(void)
{
	struct iso_thread_info ti;
	unsigned long first, ino;
	int fd = -1, r;

	for (int i = 0; i < 3; i++) {
		r = iso_get_thread(0, &ti);
		if (r < 0)
			die("iso_get_thread", r);
		ino = our_socket(&fd);
		if (i == 0)
			first = ino;
		if (!ino || ino != first) {
			fprintf(stderr, "keptconn: call %d on socket %lu, the first on %lu\n",
				i + 1, ino, first);
			return 1;
		}
	}
	/* isod closes it (restart, connection limit): one retry, new socket */
	shutdown(fd, SHUT_RDWR);
	set_self(ISO_SCHED_FIFO, "iso_set_thread after the socket was shut down");
	want_policy(SCHED_FIFO, "after the retried grant");
	ino = our_socket(NULL);
	if (ino == first || !ino) {
		fprintf(stderr, "keptconn: still on socket %lu after it was shut down\n", ino);
		return 1;
	}
	set_self(ISO_SCHED_NORMAL, "release");
	want_policy(SCHED_OTHER, "after the release");
	printf("ok reuse: 3 calls on socket %lu, then socket %lu after a shutdown\n",
	       first, ino);
	return 0;
}

static int mode_fork(void)
{
	struct iso_thread_info ti;
	unsigned long parent_ino;
	int r;
	pid_t child;

	r = iso_get_thread(0, &ti);
	if (r < 0)
		die("iso_get_thread", r);
	parent_ino = our_socket(NULL);
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (child == 0) {
		pid_t parent = getppid();
		unsigned long ino;

		/* the fork handler closed the copy: no socket at all here */
		if (our_socket(NULL) != 0) {
			fprintf(stderr, "keptconn: the child holds its parent's socket\n");
			_exit(1);
		}
		/* wait for the parent to exit: its pid is then isod's ESRCH */
		for (int i = 0; i < 5000 && kill(parent, 0) == 0; i++)
			usleep(1000);
		if (kill(parent, 0) == 0) {
			fprintf(stderr, "keptconn: parent did not exit\n");
			_exit(1);
		}
		set_self(ISO_SCHED_FIFO, "the child's iso_set_thread");
		want_policy(SCHED_FIFO, "the child after its grant");
		ino = our_socket(NULL);
		set_self(ISO_SCHED_NORMAL, "the child's release");
		/* the shell waits for this line: the parent is gone by now */
		printf("ok fork: parent on socket %lu, its child on %lu\n",
		       parent_ino, ino);
		fflush(stdout);
		_exit(0);
	}
	printf("child %d\n", (int)child);
	return 0;
}

static int mode_fdreuse(void)
{
	struct iso_thread_info ti;
	char c;
	int fd = -1, p[2], r;

	r = iso_get_thread(0, &ti);
	if (r < 0)
		die("iso_get_thread", r);
	if (!our_socket(&fd))
		die("no kept socket after a call", EPROTO);
	/* the program closes what it does not know of, opens its own file */
	if (pipe2(p, O_NONBLOCK) < 0)
		die("pipe", errno);
	if (dup2(p[1], fd) < 0)
		die("dup2", errno);
	close(p[1]);
	r = iso_get_thread(0, &ti);
	if (r < 0)
		die("iso_get_thread after the fd was reused", r);
	if (read(p[0], &c, 1) != -1 || errno != EAGAIN) {
		fprintf(stderr, "keptconn: the library wrote into the program's pipe\n");
		return 1;
	}
	if (fcntl(fd, F_GETFD) < 0) {
		fprintf(stderr, "keptconn: the library closed the program's fd %d\n", fd);
		return 1;
	}
	printf("ok fdreuse: fd %d left to the program, nothing written into it\n", fd);
	return 0;
}

static int mode_creds(void)
{
	struct passwd *pw = getpwnam("nobody");
	struct iso_thread_info ti;
	int gate[2], r;
	pid_t helper;

	if (!pw || getuid() != 0)
		die("creds needs root and a user nobody", EPERM);
	/* a root-owned thread to ask for */
	if (pipe(gate) < 0)
		die("pipe", errno);
	helper = fork();
	if (helper == 0) {
		char c;

		close(gate[1]);
		(void)read(gate[0], &c, 1);
		_exit(0);
	}
	close(gate[0]);
	r = iso_get_thread(0, &ti); /* the connection, opened as root */
	if (r < 0)
		die("iso_get_thread as root", r);
	if (setgroups(0, NULL) < 0 || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		die("becoming nobody", errno);
	r = iso_set_thread(helper, ISO_SCHED_FIFO, 50, 0, NULL);
	if (r != -EPERM) {
		fprintf(stderr, "keptconn: as nobody, root's thread %d: %s, want EPERM\n",
			(int)helper, r == 0 ? "granted" : strerror(-r));
		close(gate[1]);
		return 1;
	}
	set_self(ISO_SCHED_FIFO, "nobody's own thread");
	want_policy(SCHED_FIFO, "nobody's own thread");
	set_self(ISO_SCHED_NORMAL, "release");
	close(gate[1]);
	waitpid(helper, NULL, 0);
	printf("ok creds: root's thread refused once the process was nobody\n");
	return 0;
}

static int mode_restart(const char *go)
{
	struct iso_thread_info ti;
	unsigned long before, after;
	int r = iso_get_thread(0, &ti);

	if (r < 0)
		die("iso_get_thread", r);
	before = our_socket(NULL);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 20000 && access(go, F_OK) < 0; i++)
		usleep(1000);
	if (access(go, F_OK) < 0)
		die("waiting for the restart", ETIMEDOUT);
	set_self(ISO_SCHED_FIFO, "iso_set_thread after isod's restart");
	want_policy(SCHED_FIFO, "after isod's restart");
	after = our_socket(NULL);
	set_self(ISO_SCHED_NORMAL, "release");
	printf("ok restart: socket %lu before isod's restart, %lu after\n", before, after);
	return 0;
}

/* One request on fd, by hand; the reply's err (or a transport error). */
static int raw_request(int fd, struct iso_req *req)
{
	unsigned char buf[ISO_PROTO_MAX_MSG];
	struct iso_reply rep = { 0 };
	int len = iso_proto_encode_req(req, buf, sizeof(buf));
	ssize_t n;

	if (len < 0 || send(fd, buf, (size_t)len, MSG_NOSIGNAL) != len)
		return -EIO;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n <= 0 || iso_proto_decode_reply(buf, (size_t)n, &rep) < 0)
		return -EPROTO;
	return rep.err;
}

static int mode_orphan(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct iso_req req = { .type = ISO_MSG_GET, .seq = 1 };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), r;
	pid_t child;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", iso_socket_path());
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect", errno);
	req.u.get.tid = (int32_t)gettid();
	r = raw_request(fd, &req);
	if (r < 0)
		die("GET on the raw connection", r);
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (child == 0) {
		pid_t opener = getppid();

		for (int i = 0; i < 5000 && kill(opener, 0) == 0; i++)
			usleep(1000);
		req = (struct iso_req){ .type = ISO_MSG_SET, .seq = 2 };
		req.u.set.tid = (int32_t)gettid();
		req.u.set.policy = ISO_SCHED_FIFO;
		req.u.set.prio = 50;
		r = raw_request(fd, &req);
		if (r != -ESRCH || (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) != SCHED_OTHER)
			printf("keptconn: orphan: SET on the exited opener's connection: %s, want ESRCH\n",
			       r == 0 ? "granted" : strerror(-r));
		else
			printf("ok orphan: refused (ESRCH) once the opener had exited\n");
		fflush(stdout);
		_exit(0);
	}
	printf("child %d\n", (int)child);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "restart"))
		return mode_restart(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: keptconn reuse|fork|fdreuse|orphan|creds|restart FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "reuse"))
		return mode_reuse();
	if (!strcmp(argv[1], "fork"))
		return mode_fork();
	if (!strcmp(argv[1], "fdreuse"))
		return mode_fdreuse();
	if (!strcmp(argv[1], "orphan"))
		return mode_orphan();
	if (!strcmp(argv[1], "creds"))
		return mode_creds();
	fprintf(stderr, "keptconn: unknown mode %s\n", argv[1]);
	return 2;
}
