/* nsmap_walk.h — before Linux 6.11, a PID-namespaced client's thread ids
 * found by walking its namespace, at a bounded cost per request.
 *
 * A kernel before 6.11 cannot translate a PID between namespaces, so isod
 * reads /proc/TID/status (its NSpid line) of the namespace's threads until
 * it meets the one the client named. A client with thousands of threads
 * made that thousands of reads per request on the server thread, and every
 * other user's request waited behind them (issue 28). Now:
 *
 * - every thread a walk reads is remembered (namespace, id there → our
 *   id), and a remembered id is checked with one read before it is used;
 * - a walk spends at most NSWALK_BUDGET units (a file read, a directory
 *   opened, a parent looked up) per request, then stops where it is and
 *   the request is answered -EINPROGRESS; the client asks again (libisosched
 *   does, by itself) and the walk resumes there. Other users' requests are
 *   served between the two (the server's rounds).
 * - "no such thread" (-ESRCH) only after a whole walk that began after the
 *   thread was first asked for: a walk that resumed past the thread's
 *   place never misses it.
 *
 * The order is the one before: the client's own process first, then the
 * process tree of the namespace from its highest ancestor in it (at most
 * NSWALK_MAX_PROCS processes). State: the server thread's only. */
#ifndef ISOD_NSMAP_WALK_H
#define ISOD_NSMAP_WALK_H

#include <stddef.h>
#include <sys/types.h>

#define NSWALK_BUDGET 64
#define NSWALK_MAX_PROCS 1024

struct nswalk;

/* NULL: no memory. */
struct nswalk *nswalk_new(void);
void nswalk_free(struct nswalk *w);

/* Find ns_tid of the namespace ns (inode) whose threads have level+1
 * NSpid entries or more, for the client process client_pid (ours) in it.
 * 0 and *tid; -ESRCH: none there; -EINPROGRESS: the walk's budget for
 * this request is spent, ask again. *units (may be NULL): what it cost. */
int nswalk_find(struct nswalk *w, const char *proc, pid_t client_pid, ino_t ns, size_t level,
		pid_t ns_tid, pid_t *tid, unsigned *units);

#endif
