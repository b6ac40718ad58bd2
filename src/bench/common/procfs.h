/* procfs.h — what isobench reads from /proc: a task's schedstat, a
 * process's utime+stime, its threads. Parsers take a buffer (testable
 * without /proc); readers take a pid (and a tid, 0 for the process). */
#ifndef ISOBENCH_PROCFS_H
#define ISOBENCH_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

struct schedstat {
	uint64_t run_ns, wait_ns, slices; /* on CPU, runnable waiting, timeslices */
};

/* "run wait slices": 0 or -EINVAL. */
int procfs_parse_schedstat(const char *buf, struct schedstat *out);
/* /proc/PID/stat's utime+stime in ns (hz ticks a second): 0 or -EINVAL. */
int procfs_parse_stat_cpu(const char *buf, long hz, uint64_t *ns);
/* /proc/PID/task/TID/stat's policy (field 41: SCHED_OTHER 0, FIFO 1, RR
 * 2...) and rt_priority (field 40): 0 or -EINVAL. */
int procfs_parse_stat_sched(const char *buf, int *policy, int *rt_prio);

/* /proc/PID/schedstat, or /proc/PID/task/TID/schedstat: 0 or -errno. */
int procfs_schedstat(pid_t pid, pid_t tid, struct schedstat *out);
/* The kernel policy and RT priority of thread TID of PID: 0 or -errno. */
int procfs_sched(pid_t pid, pid_t tid, int *policy, int *rt_prio);
/* Its run time in ns, or -1. */
int64_t procfs_run_ns(pid_t pid, pid_t tid);
/* PID's utime+stime in ns (tick resolution): 0 or -errno. */
int procfs_stat_cpu_ns(pid_t pid, uint64_t *ns);

/* The CPU time of PID's threads, summed, and of those the kernel runs
 * SCHED_FIFO (isod's enforcer), in ns; and (slices, may be NULL) how
 * many times its threads were put on a CPU — its wakeups, near enough
 * for a daemon that sleeps between events: 0 or -errno. */
int procfs_threads_cpu(pid_t pid, uint64_t *all_ns, uint64_t *fifo_ns, uint64_t *slices);
/* PID's SCHED_FIFO thread (isod's enforcer; the last if several), 0 if
 * none. */
pid_t procfs_fifo_thread(pid_t pid);

#endif
