/* peer.h — the peer of a request, and checks on it. */
#ifndef ISOD_PEER_H
#define ISOD_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct isod;

/* Who is on the other end, all taken by the kernel at connect time
 * (server.c): nothing is re-read from /proc under the peer's pid later,
 * which another process may have by then. */
struct peer {
	pid_t pid; /* from SO_PEERCRED, isod's namespace */
	uid_t uid; /* effective uid at connect time */
	uid_t charged; /* who pays for uid: the key of the per-user bounds
			* (rate limit, turns), read at accept (charge.h) */
	gid_t gid; /* effective gid */
	uint64_t starttime; /* of pid; 0: unknown (no check) */
	bool fresh; /* starttime was read at this very connection's accept,
		     * just before this request: no second read (server.c) */
	bool has_pidfd; /* pidfd is a pidfd of pid, opened before starttime
			 * was read: while it does not poll readable, the
			 * process lives and pid is still its (no read) */
	int pidfd;
	ino_t pidns; /* pid's PID namespace, read at accept; 0: read per request */
	gid_t groups[64];   /* supplementary groups (SO_PEERGROUPS) */
	size_t ngroups;
};


/* May p ask for ISO at all (root, or allow_users / allow_groups)? */
bool peer_allowed(const struct isod *d, const struct peer *p);
/* Is the process that connected still the one under p->pid? */
bool peer_current(const struct isod *d, const struct peer *p);

#endif
