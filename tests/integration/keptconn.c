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
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "restart"))
		return mode_restart(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: keptconn reuse|fork|fdreuse|creds|restart FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "reuse"))
		return mode_reuse();
	if (!strcmp(argv[1], "fork"))
		return mode_fork();
	if (!strcmp(argv[1], "fdreuse"))
		return mode_fdreuse();
	if (!strcmp(argv[1], "creds"))
		return mode_creds();
	fprintf(stderr, "keptconn: unknown mode %s\n", argv[1]);
	return 2;
}
