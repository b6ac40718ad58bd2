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

const char *proc_field(const char *buf, const char *name)
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
	f = proc_field(buf, "Tgid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 1 || v[0] > INT_MAX || v[0] < 0)
		return -EBADMSG;
	/* A thread being released has lost its pids, and the kernel prints
	 * 0 for them: it is gone, not malformed (found by abuse_race). */
	if (v[0] == 0)
		return -ESRCH;
	st->tgid = (pid_t)v[0];
	f = proc_field(buf, "Uid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 4 || v[0] > UINT_MAX || v[1] > UINT_MAX)
		return -EBADMSG;
	st->ruid = (uid_t)v[0];
	st->euid = (uid_t)v[1];
	f = proc_field(buf, "Gid:");
	if (!f || parse_ints(f, v, 64, &n) < 0 || n != 4 || v[0] > UINT_MAX || v[1] > UINT_MAX)
		return -EBADMSG;
	st->rgid = (gid_t)v[0];
	st->egid = (gid_t)v[1];
	f = proc_field(buf, "Groups:");
	if (f) {
		if (parse_ints(f, v, 64, &n) < 0)
			return -EBADMSG;
		for (size_t i = 0; i < n; i++)
			st->groups[i] = (gid_t)v[i];
		st->ngroups = n;
	}
	f = proc_field(buf, "NSpid:");
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

int proc_read_file(const char *path, char *buf, size_t cap)
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
	r = proc_read_file(path, buf, sizeof(buf));
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
	r = proc_read_file(path, buf, sizeof(buf));
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
	r = proc_read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_stat_starttime(buf, starttime);
}
