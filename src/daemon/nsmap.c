/* nsmap.c — a client's thread ids, from its PID namespace to isod's. */
#include "nsmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "procinfo.h"

/* linux/nsfs.h of Linux 6.11; older headers lack them. The argument is
 * the pid itself, the result the ioctl's return value. */
#ifndef NS_GET_PID_FROM_PIDNS
#define NS_GET_PID_FROM_PIDNS _IOR(0xb7, 0x6, int)
#endif
#ifndef NS_GET_PID_IN_PIDNS
#define NS_GET_PID_IN_PIDNS _IOR(0xb7, 0x8, int)
#endif

static int ns_inode(const char *proc, pid_t pid, ino_t *ino)
{
	char path[128];
	struct stat sb;

	if (pid)
		snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/self/ns/pid", proc);
	if (stat(path, &sb) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*ino = sb.st_ino;
	return 0;
}

/* Does thread tid (ours) appear as ns_tid at namespace level level? */
static int tid_matches(const char *proc, pid_t tid, size_t level, pid_t ns_tid)
{
	struct thread_status st;

	if (read_thread_status(proc, tid, &st) < 0)
		return 0;
	return st.n_nspid == level + 1 && st.nspid[level] == ns_tid;
}

/* Before Linux 6.11 the kernel cannot translate a PID between namespaces,
 * and isod finds the thread among the processes of the client's namespace
 * only, never by scanning the machine (the server thread also runs the
 * watchdog): the client's own process first, then the process tree of the namespace —
 * from the client's highest ancestor in the namespace (its init, usually)
 * down through /proc/PID/task/TID/children — at most MAP_MAX_PROCS
 * processes. A process that joined the namespace from outside (setns, as
 * nsenter or a container's exec do) is not in that tree, and cannot be
 * named by others, only by itself. */
#define MAP_MAX_PROCS 1024
#define MAP_MAX_DEPTH 64

struct ns_walk {
	const char *proc;
	size_t level;  /* the client's namespace: index into NSpid */
	pid_t ns_tid;  /* the thread wanted, as the client sees it */
	pid_t queue[MAP_MAX_PROCS];
	size_t n;      /* processes queued so far */
};

/* Append the pids in a children file to the walk's queue. */
static void queue_children(struct ns_walk *w, const char *path)
{
	char buf[4096], *p, *end;
	int r = proc_read_file(path, buf, sizeof(buf));

	if (r < 0)
		return;
	for (p = buf; w->n < MAP_MAX_PROCS; p = end) {
		long c = strtol(p, &end, 10);
		if (end == p)
			break;
		if (c > 0)
			w->queue[w->n++] = (pid_t)c;
	}
}

/* Is ns_tid a thread of process pid? Queues pid's children on the way if
 * asked to. */
static int scan_tasks(struct ns_walk *w, pid_t pid, bool children, pid_t *tid)
{
	char path[128];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%d/task", w->proc, (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		long t = strtol(de->d_name, NULL, 10);
		if (t <= 0)
			continue;
		if (tid_matches(w->proc, (pid_t)t, w->level, w->ns_tid)) {
			*tid = (pid_t)t;
			found = 1;
		} else if (children) {
			snprintf(path, sizeof(path), "%s/%d/task/%ld/children", w->proc, (int)pid, t);
			queue_children(w, path);
		}
	}
	closedir(d);
	return found;
}

/* The parent of process pid (0 if unknown). */
static pid_t parent_of(const char *proc, pid_t pid)
{
	char path[128], buf[2048];
	const char *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	if (proc_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	f = proc_field(buf, "PPid:");
	return f ? (pid_t)strtol(f, NULL, 10) : 0;
}

/* The client's highest ancestor still in its namespace (ns inode ns). */
static pid_t ns_top(const char *proc, pid_t pid, ino_t ns)
{
	for (int depth = 0; depth < MAP_MAX_DEPTH; depth++) {
		pid_t pp = parent_of(proc, pid);
		ino_t ino;

		if (pp <= 0 || ns_inode(proc, pp, &ino) < 0 || ino != ns)
			break;
		pid = pp;
	}
	return pid;
}

/* isod's own PID namespace, once per /proc root (it never changes; the
 * stat was paid per request). Unlocked: only the server thread maps. */
static struct {
	char proc[128];
	ino_t ino;
} own_ns;

static int own_ns_inode(const char *proc, ino_t *ino)
{
	int r;

	if (own_ns.proc[0] && !strcmp(own_ns.proc, proc)) {
		*ino = own_ns.ino;
		return 0;
	}
	r = ns_inode(proc, 0, ino);
	if (r == 0 && strlen(proc) < sizeof(own_ns.proc)) {
		strcpy(own_ns.proc, proc);
		own_ns.ino = *ino;
	}
	return r;
}

int client_pidns(const char *proc, pid_t client_pid, ino_t *ino)
{
	return ns_inode(proc, client_pid, ino);
}

/* Does the kernel translate PIDs between namespaces (Linux 6.11)? Set
 * once the first ioctl says it cannot: the running kernel does not
 * change. Unlocked: only the server thread maps. */
static bool kernel_cannot;

/* The client's PID namespace, opened; -ESRCH if the process is gone, or
 * if its namespace is not ns (not 0): then the pid is another process's. */
static int open_client_ns(const char *proc, pid_t pid, ino_t ns)
{
	char path[128];
	struct stat sb;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(fd, &sb) < 0 || (ns && sb.st_ino != ns)) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/* One translation by the kernel: the pid in isod's namespace of `in` of
 * the client's (NS_GET_PID_FROM_PIDNS), or the reverse. -ENOTTY: this
 * kernel cannot (remembered). A thread the client sees has a pid in
 * isod's namespace, an ancestor of the client's; 0 would mean none. */
static int kernel_translate(const char *proc, pid_t client_pid, ino_t ns, unsigned long req,
			    pid_t in, pid_t *out)
{
	int fd = open_client_ns(proc, client_pid, ns), r, e;

	if (fd < 0)
		return fd;
	r = ioctl(fd, req, (unsigned long)in);
	e = errno;
	close(fd);
	if (r > 0) {
		*out = (pid_t)r;
		return 0;
	}
	if (r == 0 || e == ESRCH)
		return -ESRCH;
	if (e == ENOTTY) {
		kernel_cannot = true;
		log_info("this kernel cannot translate PIDs between namespaces (Linux 6.11 can): "
			 "a client in a PID namespace has its thread ids found by a walk of its namespace");
	}
	return -e;
}

/* The namespaces of isod and of the client: -EEXIST when they are the
 * same (no mapping to do). */
static int namespaces(const char *proc, pid_t client_pid, ino_t *client_ns)
{
	ino_t own = 0;
	int r = own_ns_inode(proc, &own);

	if (r < 0)
		return r;
	if (!*client_ns) {
		r = ns_inode(proc, client_pid, client_ns);
		if (r < 0)
			return r;
	}
	return own == *client_ns ? -EEXIST : 0;
}

int map_client_tid(const char *proc, pid_t client_pid, ino_t client_ns, pid_t ns_tid, pid_t *tid)
{
	static struct ns_walk w; /* 4 KiB: not on the server thread's stack;
				  * only the server thread maps */
	struct thread_status cst;
	int r;

	if (ns_tid <= 0)
		return -EINVAL;
	r = namespaces(proc, client_pid, &client_ns);
	if (r == -EEXIST) {
		*tid = ns_tid;
		return 0;
	}
	if (r < 0)
		return r;
	if (!kernel_cannot) {
		r = kernel_translate(proc, client_pid, client_ns, NS_GET_PID_FROM_PIDNS, ns_tid, tid);
		if (r != -ENOTTY)
			return r;
	}
	r = read_thread_status(proc, client_pid, &cst);
	if (r < 0)
		return r;
	if (cst.n_nspid < 2)
		return -ESRCH;
	w.proc = proc;
	w.level = cst.n_nspid - 1;
	w.ns_tid = ns_tid;
	w.n = 0;
	/* the client's own threads first: the common case, and the cheapest */
	if (scan_tasks(&w, client_pid, false, tid))
		return 0;
	w.queue[w.n++] = ns_top(proc, client_pid, client_ns);
	for (size_t i = 0; i < w.n; i++)
		if (w.queue[i] != client_pid && scan_tasks(&w, w.queue[i], true, tid))
			return 0;
	return -ESRCH;
}

int map_client_check(const char *proc, pid_t client_pid, ino_t client_ns, pid_t tid, pid_t ns_tid)
{
	pid_t back = 0;
	int r = namespaces(proc, client_pid, &client_ns);

	if (r == -EEXIST)
		return tid == ns_tid ? 0 : -ESRCH;
	if (r < 0)
		return r;
	if (kernel_cannot)
		return 0;
	r = kernel_translate(proc, client_pid, client_ns, NS_GET_PID_IN_PIDNS, tid, &back);
	if (r == -ENOTTY)
		return 0;
	if (r < 0)
		return r;
	return back == ns_tid ? 0 : -ESRCH;
}
