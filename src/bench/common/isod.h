/* isod.h — the private isod of a benchmark run: found next to isobench (or
 * as told), started in a fresh temp dir readable by the unprivileged
 * clients with the arguments one builder makes, waited for until its
 * socket answers, stopped with SIGTERM (SIGKILL if it does not go). One
 * runs at a time. */
#ifndef ISOBENCH_ISOD_H
#define ISOBENCH_ISOD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* An isod binary and the options it has (older ones lack some). */
struct isod_bin {
	char *path; /* malloc'ed */
	bool has_sweep_orphans, has_rate_limit, has_burst_ms, has_accounting, has_reserve;
};

/* What a mode wants of its private isod; 0 / NULL / false: isod's default. */
struct isod_want {
	int iso_cpu, iso_period_s;
	const char *log_level;
	int max_threads_per_user, max_threads;
	bool rate_limit_off;  /* --rate-limit 0, where isod has it */
	bool guard_off;       /* --burst-ms 0, where isod has it */
	bool stall_cap_off;   /* --stall-ms 0, where isod has --burst-ms */
	const char *accounting; /* --accounting VALUE (auto|bpf|proc), NULL: isod's default */
	int reserve_cpu, reserve_user; /* --reserve-cpu, --reserve-user (0: isod's default) */
};

/* Find the isod binary: explicit path, env ISOD, next to /proc/self/exe,
 * ../daemon/isod (build tree), PATH; and ask it (--help) for its options.
 * 0, or -ENOENT (the caller says so: ISOD_NOT_FOUND). */
#define ISOD_NOT_FOUND "no isod binary found (--isod, $ISOD, next to isobench, PATH)"
int isod_bin_find(const char *explicit_path, struct isod_bin *bin);
void isod_bin_free(struct isod_bin *bin);

#define ISOD_MAX_ARGV 32
/* The private isod's argv for want, on sock and state (numbers go into
 * numbuf); NULL-terminated. Pure: the number of arguments. */
int isod_build_argv(const struct isod_bin *bin, const struct isod_want *want,
		    const char *sock, const char *state, char numbuf[6][16],
		    const char *argv[ISOD_MAX_ARGV]);

/* Start the private isod in a fresh temp dir, point ISOSCHED_SOCKET at it
 * and wait until it answers. 0, or -1 with why in err. */
int isod_start(const struct isod_bin *bin, const struct isod_want *want,
	       char *err, size_t errlen);
/* The private isod's pid, 0 if none runs. */
pid_t isod_private_pid(void);
/* Does the daemon behind ISOSCHED_SOCKET answer? */
bool isod_answers(void);
/* The daemon's sampling interval in ms, or fallback if it does not say. */
double isod_sample_ms(double fallback);
void isod_stop_private(void);
/* Async-signal-safe: SIGTERM the private isod (bounded wait, then SIGKILL)
 * and remove its temp dir's known files. */
void isod_kill_private(void);

#endif
