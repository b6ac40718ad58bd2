/* procfs.c — /proc readers: schedstat, stat's CPU time and policy, the
 * threads. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

int procfs_parse_schedstat(const char *buf, struct schedstat *out)
{
	unsigned long long a, b, c;

	if (sscanf(buf, "%llu %llu %llu", &a, &b, &c) != 3)
		return -EINVAL;
	out->run_ns = a;
	out->wait_ns = b;
	out->slices = c;
	return 0;
}

int procfs_parse_stat_cpu(const char *buf, long hz, uint64_t *ns)
{
	const char *rp = strrchr(buf, ')');
	unsigned long long ut, st;

	/* after ") ": state(3) ... utime is field 14, stime 15 */
	if (!rp || sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
				  " %llu %llu", &ut, &st) != 2)
		return -EINVAL;
	*ns = (ut + st) * (1000000000ull / (unsigned long long)(hz > 0 ? hz : 100));
	return 0;
}

int procfs_parse_stat_sched(const char *buf, int *policy, int *rt_prio)
{
	const char *p = strrchr(buf, ')');
	int field = 2; /* ")" ends field 2, comm */
	long long v[2];

	if (!p)
		return -EINVAL;
	p++;
	/* rt_priority is field 40, policy 41 (proc(5)) */
	while (field < 39) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		while (*p && *p != ' ')
			p++;
		field++;
	}
	if (sscanf(p, " %lld %lld", &v[0], &v[1]) != 2)
		return -EINVAL;
	*rt_prio = (int)v[0];
	*policy = (int)v[1];
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? 0 : -ENODATA;
}

int procfs_schedstat(pid_t pid, pid_t tid, struct schedstat *out)
{
	char path[80], buf[128];
	int r;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	r = read_small(path, buf, sizeof(buf));
	return r < 0 ? r : procfs_parse_schedstat(buf, out);
}

int64_t procfs_run_ns(pid_t pid, pid_t tid)
{
	struct schedstat s;

	return procfs_schedstat(pid, tid, &s) < 0 ? -1 : (int64_t)s.run_ns;
}

int procfs_stat_cpu_ns(pid_t pid, uint64_t *ns)
{
	char path[64], buf[1024];
	int r;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	r = read_small(path, buf, sizeof(buf));
	return r < 0 ? r : procfs_parse_stat_cpu(buf, sysconf(_SC_CLK_TCK), ns);
}

int procfs_sched(pid_t pid, pid_t tid, int *policy, int *rt_prio)
{
	char path[80], buf[1024];
	int r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	r = read_small(path, buf, sizeof(buf));
	return r < 0 ? r : procfs_parse_stat_sched(buf, policy, rt_prio);
}

static bool is_fifo(pid_t tid)
{
	int pol = sched_getscheduler(tid);

	return pol >= 0 && (pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO;
}

/* Calls each(tid, arg) for every thread of pid: 0 or -errno. */
static int for_each_thread(pid_t pid, void (*each)(pid_t, pid_t, void *), void *arg)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t t = (pid_t)atoi(e->d_name);

		if (t > 0)
			each(pid, t, arg);
	}
	closedir(d);
	return 0;
}

struct cpu_sum {
	uint64_t all, fifo, slices;
};

static void add_cpu(pid_t pid, pid_t tid, void *arg)
{
	struct cpu_sum *s = arg;
	struct schedstat st;

	if (procfs_schedstat(pid, tid, &st) < 0)
		return;
	s->all += st.run_ns;
	s->slices += st.slices;
	if (is_fifo(tid))
		s->fifo += st.run_ns;
}

int procfs_threads_cpu(pid_t pid, uint64_t *all_ns, uint64_t *fifo_ns, uint64_t *slices)
{
	struct cpu_sum s = { 0, 0, 0 };
	int r = for_each_thread(pid, add_cpu, &s);

	*all_ns = s.all;
	*fifo_ns = s.fifo;
	if (slices)
		*slices = s.slices;
	return r;
}

static void note_fifo(pid_t pid, pid_t tid, void *arg)
{
	(void)pid;
	if (is_fifo(tid))
		*(pid_t *)arg = tid;
}

pid_t procfs_fifo_thread(pid_t pid)
{
	pid_t found = 0;

	for_each_thread(pid, note_fifo, &found);
	return found;
}
