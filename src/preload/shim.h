/* shim.h — internals of libisosched-preload.so, the LD_PRELOAD shim that
 * turns unprivileged requests for SCHED_FIFO / SCHED_RR (and SCHED_ISO_RR,
 * policy 4) into ISO grants from isod, as the SCHED_ISO patch's automatic
 * downgrade did in the kernel.
 *
 * Rules every path follows:
 *  - the real call is made first; only EPERM for FIFO/RR (or EINVAL for
 *    policy 4, which the kernel does not know) leads to isod;
 *  - when isod is unreachable or refuses, the caller sees the real call's
 *    error exactly; policy 5 (SCHED_IDLE) and all others pass through;
 *  - no allocation and no locks: the tid table is a fixed array of atomic
 *    words, isod is reached with one socket per call (libisosched).
 * Only the symbols in exports.map leave the shared object.
 */
#ifndef ISO_SHIM_H
#define ISO_SHIM_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "iso_sched_abi.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK ISO_KSCHED_RESET_ON_FORK
#endif
#define SHIM_SCHED_ISO_RR ISO_KSCHED_ISO_RR

/* ---- real.c: the next definitions (libc), resolved once ---- */
struct sched_attr; /* <linux/sched/types.h> */
struct shim_real {
	int (*sched_setscheduler)(pid_t, int, const struct sched_param *);
	int (*sched_setparam)(pid_t, const struct sched_param *);
	int (*sched_getscheduler)(pid_t);
	int (*sched_getparam)(pid_t, struct sched_param *);
	int (*sched_get_priority_max)(int);
	int (*sched_get_priority_min)(int);
	long (*syscall)(long, ...);
	int (*pthread_create)(pthread_t *, const pthread_attr_t *,
			      void *(*)(void *), void *);
	int (*pthread_setschedparam)(pthread_t, int, const struct sched_param *);
	int (*pthread_setschedprio)(pthread_t, int);
	int (*pthread_getschedparam)(pthread_t, int *, struct sched_param *);
	/* glibc >= 2.41 only; NULL before: then the raw system call is used */
	int (*sched_setattr)(pid_t, struct sched_attr *, unsigned);
	int (*sched_getattr)(pid_t, struct sched_attr *, unsigned, unsigned);
};
/* tid of a pthread_t (glibc/musl encode it in the thread's CPU clock). */
pid_t shim_pthread_tid(pthread_t th);
/* Resolved in a constructor (pure look-ups, no other effect), or on demand
 * if something calls in before it ran; never waits for another thread's
 * resolution, and a call made from inside the shim's own dlsym (an
 * allocator calling syscall()) gets raw system calls (real.c). */
const struct shim_real *shim_real(void);

/* ---- table.c: tid -> the policy/priority the program asked for ---- */
struct shim_req {
	int policy; /* as the program gave it, SCHED_RESET_ON_FORK included */
	int prio;
};
bool shim_table_get(pid_t tid, struct shim_req *out);
void shim_table_set(pid_t tid, int policy, int prio);
void shim_table_clear(pid_t tid); /* forgets a residue mark as well */
/* Released, but left with a RESET_ON_FORK flag it did not ask for. */
void shim_table_set_residue(pid_t tid);
bool shim_table_residue(pid_t tid);

/* ---- iso.c: talking to isod, the decisions shared by all calls ---- */
/* tid of a pid argument: 0 is the caller. */
pid_t shim_tid(pid_t pid);
/* FIFO, RR or ISO_RR (flags masked)? */
bool shim_policy_wants_iso(int policy);
/* The ISO priority isod is asked for when a program asks for policy
 * (flags included) at prio: prio itself for 1..99, 1 for policy 4 at 0
 * (the -ck/MuQSS/PDS form: ISO below every other ISO thread); -1 when
 * the request is not one for isod. */
int shim_iso_prio(int policy, int prio);
/* Should a failed real call with error err for policy (flags included)
 * and priority prio be retried through isod? */
bool shim_should_ask(int err, int policy, int prio);
/* Ask isod for ISO for tid (a real tid, not 0) and remember the request.
 * Returns 0 or a negative errno from libisosched. */
int shim_ask(pid_t tid, int policy, int prio);
/* Is tid under ISO? Asks isod to be sure (tids are reused): for threads
 * granted through this shim, and for others the kernel runs FIFO/RR with
 * RESET_ON_FORK (isod's mark). *req gets what the program asked for (for
 * the others: SCHED_FIFO for ISO_FIFO, SCHED_RR for ISO_RR, and the ISO
 * priority). */
bool shim_active(pid_t tid, struct shim_req *req);
/* Known to the table (no isod round trip)? */
bool shim_known(pid_t tid, struct shim_req *req);
/* The program leaves ISO for something else: tell isod (best effort) so
 * it does not restore the thread later, and forget it. */
void shim_release(pid_t tid);
/* Policy as a getter shows it: a residue RESET_ON_FORK removed. */
int shim_shown_policy(pid_t tid, int kernel_policy);
/* The setters' common path. apply(ctx, flags) makes the real call, with
 * SCHED_RESET_ON_FORK or-ed into the policy if flags has it, and returns 0
 * or a positive errno; the result is the same. shim_set_policy is for
 * calls that name a policy, shim_set_prio for those that keep it
 * (cur_policy(ctx) gives the kernel's current one, or -1). */
typedef int (*shim_apply_fn)(void *ctx, int flags);
int shim_set_policy(pid_t tid, int policy, int prio, shim_apply_fn apply,
		    void *ctx);
int shim_set_prio(pid_t tid, int prio, shim_apply_fn apply,
		  int (*cur_policy)(void *ctx), void *ctx);

/* ---- sched.c, used by the syscall() wrapper ---- */
int shim_sched_setscheduler(pid_t pid, int policy, const struct sched_param *p);
int shim_sched_setparam(pid_t pid, const struct sched_param *p);
int shim_sched_getscheduler(pid_t pid);
int shim_sched_getparam(pid_t pid, struct sched_param *p);
int shim_sched_get_priority_max(int policy);
int shim_sched_get_priority_min(int policy);
int shim_sched_setattr(pid_t pid, struct sched_attr *a, unsigned flags);
int shim_sched_getattr(pid_t pid, struct sched_attr *a, unsigned size,
		       unsigned flags);
/* ---- deadline.c: sched_setattr(SCHED_DEADLINE) as a reservation ---- */
/* a: the caller's attr, k: the same read as the kernel's layout; the
 * libc convention (0, or -1 and errno). */
int shim_setattr_deadline(pid_t pid, struct sched_attr *a, const struct iso_sched_attr *k);

#define SHIM_EXPORT __attribute__((visibility("default")))

#endif
