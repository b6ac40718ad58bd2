/* procinfo.c — /proc parsers and readers for thread identity. */
#include "procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Parse up to max whitespace-separated non-negative integers. */
static int parse_ints(const char *s, long long *out, size_t max, size_t *n)
{
	*n = 0;
	while (*s && *s != '\n') {
		char *end;
		long long v;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n')
			break;
		errno = 0;
		v = strtoll(s, &end, 10);
		if (end == s || errno || v < 0)
			return -EBADMSG;
		if (*n >= max)
			return -EBADMSG;
		out[(*n)++] = v;
		s = end;
	}
	return 0;
}

static const char *field(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *p = buf;

	while (p && *p) {
		if (!strncmp(p, name, len))
			return p + len;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int parse_status_buf(const char *buf, struct thread_status *st)
{
	long long v[64];
	size_t n;
	const char *f;

	memset(st, 0, sizeof(*st));
	f = field(buf, "Tgid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 1 || v[0] > INT_MAX || v[0] < 0)
		return -EBADMSG;
	/* A thread being released has lost its pids, and the kernel prints
	 * 0 for them: it is gone, not malformed (found by abuse_race). */
	if (v[0] == 0)
		return -ESRCH;
	st->tgid = (pid_t)v[0];
	f = field(buf, "Uid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 4 || v[0] > UINT_MAX || v[1] > UINT_MAX)
		return -EBADMSG;
	st->ruid = (uid_t)v[0];
	st->euid = (uid_t)v[1];
	f = field(buf, "Gid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 4 || v[0] > UINT_MAX || v[1] > UINT_MAX)
		return -EBADMSG;
	st->rgid = (gid_t)v[0];
	st->egid = (gid_t)v[1];
	f = field(buf, "Groups:");
	if (f) {
		if (parse_ints(f, v, 64, &n) < 0)
			return -EBADMSG;
		for (size_t i = 0; i < n; i++)
			st->groups[i] = (gid_t)v[i];
		st->ngroups = n;
	}
	f = field(buf, "NSpid:");
	if (f) {
		if (parse_ints(f, v, PROC_MAX_NS, &n) < 0 || n == 0)
			return -EBADMSG;
		for (size_t i = 0; i < n; i++) {
			if (v[i] == 0)
				return -ESRCH; /* released, as for Tgid */
			if (v[i] < 1 || v[i] > INT_MAX)
				return -EBADMSG;
			st->nspid[i] = (pid_t)v[i];
		}
		st->n_nspid = n;
	}
	return 0;
}

int parse_stat_starttime(const char *buf, uint64_t *starttime)
{
	/* comm may contain anything, even ") "; fields resume after the last ')' */
	const char *p = strrchr(buf, ')');
	int fieldno = 2;

	if (!p)
		return -EBADMSG;
	p++;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		fieldno++;
		if (fieldno == 22) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p || errno)
				return -EBADMSG;
			*starttime = v;
			return 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -EBADMSG;
}

int parse_schedstat_buf(const char *buf, uint64_t *cpu_ns)
{
	char *end;
	unsigned long long v;

	if (*buf < '0' || *buf > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -EBADMSG;
	*cpu_ns = v;
	return 0;
}

int parse_schedstat_wait_buf(const char *buf, uint64_t *cpu_ns, uint64_t *wait_ns)
{
	char *end;
	unsigned long long v;
	int r = parse_schedstat_buf(buf, cpu_ns);

	if (r < 0)
		return r;
	buf = strchr(buf, ' ');
	if (!buf || buf[1] < '0' || buf[1] > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(buf + 1, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end))
		return -EBADMSG;
	*wait_ns = v;
	return 0;
}

int parse_status_nvcsw(const char *buf, uint64_t *nvcsw)
{
	static const char key[] = "\nvoluntary_ctxt_switches:";
	const char *p = strstr(buf, key);
	char *end;
	unsigned long long v;

	if (!p)
		return -EBADMSG;
	p += sizeof(key) - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || (*end != '\n' && *end))
		return -EBADMSG;
	*nvcsw = v;
	return 0;
}

static int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	return 0;
}

int read_thread_status(const char *proc, pid_t tid, struct thread_status *st)
{
	char path[128], buf[4096];
	int r;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)tid);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_status_buf(buf, st);
}

/* One number of a "Max ..." line: its soft (col 0) or hard (col 1)
 * column; -1 for "unlimited". */
static int limit_col(const char *buf, const char *name, int col, long long *out)
{
	const char *p = strstr(buf, name);
	char *end;

	if (!p)
		return -EBADMSG;
	p += strlen(name);
	for (int i = 0; i <= col; i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "unlimited", 9)) {
			*out = -1;
			end = (char *)p + 9;
		} else {
			errno = 0;
			*out = strtoll(p, &end, 10);
			if (errno || end == p || *out < 0)
				return -EBADMSG;
		}
		if (*end != ' ' && *end != '\n' && *end)
			return -EBADMSG;
		p = end;
	}
	return 0;
}

int parse_limits_buf(const char *buf, struct rt_limits *out)
{
	long long prio, hard, rttime;

	if (limit_col(buf, "\nMax realtime priority", 0, &prio) < 0 ||
	    limit_col(buf, "\nMax realtime priority", 1, &hard) < 0 ||
	    limit_col(buf, "\nMax realtime timeout", 0, &rttime) < 0)
		return -EBADMSG;
	out->rtprio = prio < 0 || prio > 99 ? 99 : (unsigned)prio;
	out->rtprio_hard = hard < 0 || hard > 99 ? 99 : (unsigned)hard;
	out->rttime_set = rttime >= 0;
	return 0;
}

int read_rt_limits(const char *proc, pid_t pid, struct rt_limits *out)
{
	char path[128], buf[4096];
	int r;

	snprintf(path, sizeof(path), "%s/%d/limits", proc, (int)pid);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_limits_buf(buf, out);
}

int read_thread_starttime(const char *proc, pid_t tid, uint64_t *starttime)
{
	char path[128], buf[1024];
	int r;

	/* the thread's own stat, not /proc/TID/stat: that one is the whole
	 * process's, which the kernel sums over every thread of it (O(threads)
	 * per read, 1024 threads: tens of microseconds). The start time is the
	 * named thread's in both. */
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc, (int)tid, (int)tid);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_stat_starttime(buf, starttime);
}

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

/* A client in a PID namespace names threads as it sees them; isod finds
 * them among the processes of the client's namespace only, never by
 * scanning the machine (the server thread also runs the watchdog): the
 * client's own process first, then the process tree of the namespace —
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
	int r = read_file(path, buf, sizeof(buf));

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
	if (read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	f = field(buf, "PPid:");
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

int map_client_tid(const char *proc, pid_t client_pid, ino_t client_ns, pid_t ns_tid, pid_t *tid)
{
	static struct ns_walk w; /* 4 KiB: not on the server thread's stack;
				  * only the server thread maps */
	struct thread_status cst;
	ino_t own = 0, theirs = 0;
	int r;

	if (ns_tid <= 0)
		return -EINVAL;
	r = own_ns_inode(proc, &own);
	if (r < 0)
		return r;
	theirs = client_ns;
	r = theirs ? 0 : ns_inode(proc, client_pid, &theirs);
	if (r < 0)
		return r;
	if (own == theirs) {
		*tid = ns_tid;
		return 0;
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
	w.queue[w.n++] = ns_top(proc, client_pid, theirs);
	for (size_t i = 0; i < w.n; i++)
		if (w.queue[i] != client_pid && scan_tasks(&w, w.queue[i], true, tid))
			return 0;
	return -ESRCH;
}
