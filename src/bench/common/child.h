/* child.h — the life of every process isobench forks: bound to the parent
 * (dies with it, default signal handlers), bounded in time, as nobody for
 * the clients; waited for against a deadline; tracked so that a signal can
 * kill it; shared memory with the parent. */
#ifndef ISOBENCH_CHILD_H
#define ISOBENCH_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_NOBODY 65534

/* In a freshly forked child: default signal handlers, deathsig when the
 * parent dies. False if the parent is already gone (then _exit). */
bool child_bind_to_parent(pid_t parent, int deathsig);
/* A child that runs RT threads as nobody: bound to its parent (SIGKILL),
 * an alarm after bound_s, RLIMIT_RTTIME rt_us (bounded RT — and so never
 * taken for a lost grant by an isod's start-up sweep) and, when started as
 * root, nobody's credentials. False (said on stderr) on failure. */
bool child_become_rt_nobody(pid_t parent, unsigned bound_s, uint64_t rt_us);
/* Drop every credential to nobody (uid/gid 65534, no groups): 0 or -errno.
 * A credential change clears the parent-death signal: set it again. */
int bench_drop_to_nobody(void);

/* One look at child p: 1 it has ended (or cannot be waited for), 0 it
 * still runs, -1 it ran past deadline_ns (CLOCK_MONOTONIC) and has been
 * killed and reaped. *status as waitpid sets it. */
int child_reap(pid_t p, uint64_t deadline_ns, int *status);
/* Wait for p, looking every poll_ns (and calling tick(arg) then, if
 * given), until it ends or deadline_ns passes (then SIGKILL). 0 it ended
 * (*status as waitpid sets it), -ETIMEDOUT it was killed. Untracks p. */
int child_wait(pid_t p, uint64_t deadline_ns, uint64_t poll_ns,
	       void (*tick)(void *), void *arg, int *status);

/* The child a signal must SIGKILL (one at a time; 0: none). */
void child_track(pid_t p);
pid_t child_tracked(void);

/* A SCHED_OTHER (nice 0) process running body, bound to us, dead after
 * max_s: its pid or -errno. */
pid_t child_spawn_hog(unsigned max_s, void (*body)(void));
/* A hog's body: spin on the CPU. */
_Noreturn void hog_spin_cpu(void);

/* Zeroed memory shared with the children (MAP_SHARED): NULL on failure. */
void *shm_new(size_t size);
void shm_free(void *p, size_t size);

#endif
