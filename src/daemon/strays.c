/* strays.c — find and demote the kernel RT threads of users that isod
 * does not police (iso_rule.h). */
#include "strays.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "exiting.h"
#include "grants.h"
#include "iso_plan.h"
#include "iso_rule.h"
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

/* Phase 1, no lock: is tid kernel RT at all (FIFO or RR at any priority,
 * or DEADLINE: iso_rule_kernel_rt)? One system call per thread. Measured
 * once on the 2-CPU test VM (about 140 threads, a loaded machine, 30
 * runs): the whole machine's scan took 1.1 ms best / 2.5 ms mean asking
 * the kernel (sched_getscheduler, then sched_getparam for an RT thread),
 * and 2.0 ms best / 4.6 ms mean reading each thread's /proc/TID/stat for
 * the same two fields instead (open, read, close, and the kernel
 * formatting 52 fields); the priority is no longer needed here. */
bool strays_maybe(pid_t tid)
{
	int policy = sched_getscheduler(tid);

	return policy >= 0 && iso_rule_kernel_rt(policy, 0);
}

static void read_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t cap)
{
	char path[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/task/%d/comm", proc, (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (char *c = buf; *c; c++)
		if (*c < ' ' || *c > '~')
			*c = '?'; /* the comm is the user's: no control bytes in the log */
}

/* Phase 2, under d->lock: tid was kernel RT a moment ago. Pin it, look
 * again, and demote it if the rule says it is a stray (iso_rule_judge).
 * 1 when demoted. A thread on its way out (exiting.h: mostly one isod
 * granted, forgotten at its exit) is demoted too, whatever it looks like,
 * but without a warning, and is no stray: 0. */
int strays_police(struct isod *d, pid_t pid, pid_t tid)
{
	struct tracked pin;
	struct thread_status st;
	struct rt_limits lim;
	struct iso_rule_thread rt;
	char comm[32];
	int policy, prio, nice, r = 0;
	bool exiting = false;

	if (tasks_find(&d->tasks, tid))
		return 0; /* isod's own */
	memset(&pin, 0, sizeof(pin));
	if (tasks_open(d->proc, pid, tid, &pin) < 0)
		return 0; /* gone */
	if (actuator_query(tid, &policy, &prio, &nice) < 0 || !iso_rule_kernel_rt(policy, prio) ||
	    read_thread_status(d->proc, tid, &st) < 0 || st.tgid != pid)
		goto out;
	rt = (struct iso_rule_thread){ .policy = policy, .prio = prio, .ruid = st.ruid,
				       .euid = st.euid };
	/* no limits read: no exemption (and root's is judged before them) */
	if (read_rt_limits(d->proc, pid, &lim) == 0)
		rt.rtprio_hard = lim.rtprio_hard;
	switch (iso_rule_judge(&rt)) {
	case ISO_RULE_STRAY:
		break;
	case ISO_RULE_RTPRIO:
		log_debug("thread %d (process %d, uid %u) is kernel %s %d, allowed by its hard RLIMIT_RTPRIO %u: the administrator's, left alone",
			  (int)tid, (int)pid, (unsigned)(st.ruid ? st.ruid : st.euid),
			  iso_rule_policy_name(policy), prio, lim.rtprio_hard);
		goto out;
	default:
		goto out;
	}
	/* its own flags and state (exiting.h); unreadable: not exiting (a
	 * gone thread fails the pin's check next, anything else is policed
	 * as a stray: never a way to stay RT) */
	if (read_thread_exiting(d->proc, pid, tid, &exiting) < 0)
		exiting = false;
	/* still the pinned thread: what we read was its */
	if (!tasks_alive(&pin))
		goto out;
	read_comm(d->proc, pid, tid, comm, sizeof(comm));
	r = actuator_demote(backend_current(), tid);
	if (r == 0 && exiting) {
		/* PF_EXITING never clears and a zombie never runs: no way
		 * back to user space, so no stray; demoted all the same */
		d->stray_log.exiting++;
		log_debug("thread %d (process %d, uid %u, comm %s) is exiting, still kernel %s %d with no isod record (isod forgets a thread at its exit): demoted, no stray",
			  (int)tid, (int)pid, (unsigned)(st.ruid ? st.ruid : st.euid), comm,
			  iso_rule_policy_name(policy), prio);
		r = 0;
	} else if (r == 0) {
		stray_log_warn(&d->stray_log, "stray: thread %d (process %d, uid %u, comm %s) was kernel %s %d with no isod record: demoted to SCHED_OTHER",
			       (int)tid, (int)pid, (unsigned)(st.ruid ? st.ruid : st.euid), comm,
			       iso_rule_policy_name(policy), prio);
		events_add(&d->events, ISO_EVENT_STRAY, tid, pid, st.ruid ? st.ruid : st.euid, prio);
		r = 1;
	} else {
		if (r != -ESRCH)
			log_error_errno(r, "cannot demote stray thread %d (process %d)", (int)tid, (int)pid);
		r = 0;
	}
out:
	close(pin.statfd);
	return r;
}

int strays_check_process(struct isod *d, pid_t pid)
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

		if (!parse_id(de->d_name, &tid) || !strays_maybe(tid))
			continue;
		pthread_mutex_lock(&d->lock);
		n += strays_police(d, pid, tid);
		pthread_mutex_unlock(&d->lock);
	}
	closedir(dir);
	return n;
}

int strays_sweep(struct isod *d)
{
	struct dirent *de;
	DIR *dir = opendir(d->proc);
	int n = 0;

	if (!dir)
		return log_error_errno(-errno, "cannot list %s", d->proc);
	pthread_mutex_lock(&d->lock);
	d->stray_log.sweeps++;
	pthread_mutex_unlock(&d->lock);
	while ((de = readdir(dir))) {
		pid_t pid;

		if (parse_id(de->d_name, &pid))
			n += strays_check_process(d, pid);
	}
	closedir(dir);
	if (n)
		log_warning("demoted %d stray RT thread%s isod did not police", n, n == 1 ? "" : "s");
	return n;
}

int strays_exec(struct isod *d, pid_t tgid)
{
	pthread_mutex_lock(&d->lock);
	TASKS_FOREACH(&d->tasks, e) {
		struct thread_status st;

		if (e->pid != tgid)
			continue;
		if (!tasks_alive(e)) {
			log_debug("thread %d (process %d) is gone after an exec in its process", (int)e->tid,
				  (int)tgid);
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
			continue;
		}
		/* a setuid/setgid program is not the client's to run as ISO */
		if (read_thread_status(d->proc, e->tid, &st) < 0 || st.ruid != e->uid ||
		    st.euid != st.ruid || st.egid != st.rgid) {
			if (tasks_alive(e))
				(void)actuator_demote(backend_current(), e->tid);
			log_warning("thread %d (process %d, uid %u) exec'd a program that changes its identity: ISO withdrawn, demoted to SCHED_OTHER",
				    (int)e->tid, (int)tgid, (unsigned)e->uid);
			isod_forget(d, e);
			atomic_store(&d->state_dirty, true);
		}
	}
	pthread_mutex_unlock(&d->lock);
	return strays_check_process(d, tgid);
}
