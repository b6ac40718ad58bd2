/* accounting_proc.c — the proc accounting: a thread's CPU time and wait
 * from /proc/PID/task/TID/schedstat (through the identity handle the task
 * table keeps open: one pread per sample, no allocation), its voluntary
 * context switches from .../status, its CPU (scope per-cpu) from .../stat. */
#include "accounting.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "procinfo.h"

static int proc_sample(const struct accounting *a, struct tracked *e, uint64_t as_of_ns)
{
	(void)a;
	(void)as_of_ns; /* a read of the kernel's figure now */
	char buf[96];
	ssize_t n = pread(e->statfd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	e->has_block = false; /* the guard guesses runs from reads */
	if (parse_schedstat_wait_buf(buf, &e->cpu_ns, &e->wait_ns) < 0)
		return -EBADMSG;
	return 0;
}

static int proc_voluntary_switches(const struct accounting *a, const char *proc,
				   const struct tracked *e, uint64_t *nvcsw)
{
	char path[128], buf[4096];
	ssize_t n;
	int fd, r;

	(void)a;

	snprintf(path, sizeof(path), "%s/%d/task/%d/status", proc, (int)e->pid, (int)e->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	buf[n] = '\0';
	r = parse_status_nvcsw(buf, nvcsw);
	/* the number may name a successor by now: the handle tells */
	if (r == 0 && !tasks_alive(e))
		r = -ESRCH;
	return r;
}

int parse_stat_processor(const char *buf, int *cpu)
{
	/* comm may contain anything, even ") "; fields resume after the
	 * last ')', which ends field 2 */
	const char *p = strrchr(buf, ')');
	int fieldno = 2;

	if (!p)
		return -EBADMSG;
	for (p++; *p;) {
		char *end;
		long v;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (++fieldno == 39) {
			if (*p < '0' || *p > '9')
				return -EBADMSG;
			errno = 0;
			v = strtol(p, &end, 10);
			if (errno || v > INT_MAX || (*end != ' ' && *end != '\n' && *end))
				return -EBADMSG;
			*cpu = (int)v;
			return 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -EBADMSG;
}

static int proc_last_cpu(const struct accounting *a, const char *proc, struct tracked *e,
			 int *cpu)
{
	char path[128], buf[1024];
	ssize_t n;

	(void)a;
	if (e->cpufd < 0) {
		snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc, (int)e->pid, (int)e->tid);
		e->cpufd = open(path, O_RDONLY | O_CLOEXEC);
		if (e->cpufd < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		/* the path may have named a successor: the identity handle
		 * still reads only while the thread we pinned lives, and a
		 * TID is not reused while it does */
		if (!tasks_alive(e)) {
			close(e->cpufd);
			e->cpufd = -1;
			return -ESRCH;
		}
	}
	n = pread(e->cpufd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return parse_stat_processor(buf, cpu);
}

/* every sample reads /proc: nothing to keep per thread */
static void proc_track(const struct accounting *a, const struct tracked *e)
{
	(void)a;
	(void)e;
}

const struct accounting accounting_proc = {
	.name = "proc",
	.sample = proc_sample,
	.voluntary_switches = proc_voluntary_switches,
	.last_cpu = proc_last_cpu,
	.track = proc_track,
	.untrack = proc_track,
};
