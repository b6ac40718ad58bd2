/* procinfo.h — what isod reads about a thread from /proc: owner, process,
 * start time (identity against TID reuse) and PID-namespace mapping.
 * Parsers take buffers (unit-testable); readers take a /proc root path.
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone,
 * -EBADMSG: unparsable /proc content). */
#ifndef ISOD_PROCINFO_H
#define ISOD_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_MAX_NS 8

struct thread_status {
	pid_t tgid;
	uid_t ruid, euid;
	gid_t rgid, egid;
	gid_t groups[64];
	size_t ngroups;
	pid_t nspid[PROC_MAX_NS]; /* outermost (ours) first */
	size_t n_nspid;
};

/* Parse the text of /proc/TID/status. */
int parse_status_buf(const char *buf, struct thread_status *st);
/* Field 22 (starttime) of /proc/TID/stat text. */
int parse_stat_starttime(const char *buf, uint64_t *starttime);
/* The first field (ns on CPU) of /proc/.../schedstat text. */
int parse_schedstat_buf(const char *buf, uint64_t *cpu_ns);
/* Its first two: ns on CPU and ns runnable but waiting for one. */
int parse_schedstat_wait_buf(const char *buf, uint64_t *cpu_ns, uint64_t *wait_ns);
/* voluntary_ctxt_switches of /proc/TID/status text (the burst guard). */
int parse_status_nvcsw(const char *buf, uint64_t *nvcsw);

/* From /proc/PID/limits text: RLIMIT_RTPRIO's soft and hard values,
 * and whether RLIMIT_RTTIME is set. Only the hard RLIMIT_RTPRIO says what
 * the administrator allows (the process may raise its soft limit up to
 * it); RLIMIT_RTTIME proves nothing (anyone may set it with prlimit). */
struct rt_limits {
	unsigned rtprio, rtprio_hard;
	int rttime_set;
};
int parse_limits_buf(const char *buf, struct rt_limits *out);

int read_thread_status(const char *proc, pid_t tid, struct thread_status *st);
int read_rt_limits(const char *proc, pid_t pid, struct rt_limits *out);
int read_thread_starttime(const char *proc, pid_t tid, uint64_t *starttime);

/* The whole of a small /proc file into buf (NUL-terminated); -ESRCH
 * when it is gone. */
int proc_read_file(const char *path, char *buf, size_t cap);
/* What follows "name" at the start of a line of buf, or NULL. */
const char *proc_field(const char *buf, const char *name);

#endif
