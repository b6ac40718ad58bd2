/* sweep.c — demote unpoliced band threads a lost or stale record left. */
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "actuator.h"
#include "log.h"
#include "procinfo.h"

static bool parse_id(const char *name, pid_t *out)
{
	char *end;
	long v = strtol(name, &end, 10);

	if (*name < '1' || *name > '9' || *end || v <= 0 || v > INT32_MAX)
		return false;
	*out = (pid_t)v;
	return true;
}

/* Is tid (of process pid) an orphaned isod grant? Every read may fail as
 * the thread exits; that only means "no". */
static bool is_orphan(struct isod *d, pid_t pid, pid_t tid)
{
	struct thread_status st;
	struct rt_limits lim;
	int policy, prio, nice;

	if (tasks_find(&d->tasks, tid))
		return false;
	if (actuator_query(tid, &policy, &prio, &nice) < 0)
		return false;
	if ((policy != SCHED_FIFO && policy != SCHED_RR) ||
	    prio < d->cfg.band.lo || prio > d->cfg.band.hi)
		return false;
	if (actuator_reset_on_fork(tid) != 1)
		return false;
	if (read_thread_status(d->proc, tid, &st) < 0 || st.ruid == 0 || st.euid == 0)
		return false;
	if (read_rt_limits(d->proc, pid, &lim) < 0)
		return false;
	return lim.rtprio < (unsigned)prio && !lim.rttime_set;
}

static int sweep_process(struct isod *d, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%d/task", d->proc, (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0; /* gone meanwhile */
	while ((de = readdir(dir))) {
		pid_t tid;
		int r;

		if (!parse_id(de->d_name, &tid) || !is_orphan(d, pid, tid))
			continue;
		r = actuator_demote(tid);
		if (r == 0) {
			log_warning("thread %d (process %d) was kernel RT in the band with no isod record: demoted to SCHED_OTHER",
				    (int)tid, (int)pid);
			n++;
		} else if (r != -ESRCH) {
			log_error_errno(r, "cannot demote orphaned thread %d", (int)tid);
		}
	}
	closedir(dir);
	return n;
}

int sweep_orphans(struct isod *d)
{
	struct dirent *de;
	DIR *dir = opendir(d->proc);
	int n = 0;

	if (!dir)
		return log_error_errno(-errno, "cannot list %s", d->proc);
	while ((de = readdir(dir))) {
		pid_t pid;

		if (parse_id(de->d_name, &pid))
			n += sweep_process(d, pid);
	}
	closedir(dir);
	if (n)
		log_warning("demoted %d band thread%s the state file did not list", n, n == 1 ? "" : "s");
	return n;
}
