/* nsmap.h — thread ids of a client in another PID namespace, mapped to
 * isod's own (containers, Flatpak, `unshare -p`).
 *
 * Return contract: 0 or a negative errno (-ESRCH: no such thread in the
 * client's namespace, or the client is gone). */
#ifndef ISOD_NSMAP_H
#define ISOD_NSMAP_H

#include <sys/types.h>

/* The PID namespace of process client_pid (its ns/pid inode). A
 * process's own PID namespace never changes: read once per connection. */
int client_pidns(const char *proc, pid_t client_pid, ino_t *ino);

/* Map tid as seen in the PID namespace of process client_pid to isod's
 * own view. Only threads the client sees are found (those of its own
 * namespace and of namespaces below it), so a client can never name a
 * thread it cannot see. client_ns: that process's namespace as
 * client_pidns read it while the process was the caller's (0: read it
 * now). Cost: none for a client in isod's namespace; one ioctl for one in
 * another, on Linux 6.11 and later (NS_GET_PID_FROM_PIDNS); before that,
 * a walk of the namespace's processes (O(their threads)). */
int map_client_tid(const char *proc, pid_t client_pid, ino_t client_ns, pid_t ns_tid,
		   pid_t *tid);

/* After the thread is pinned: is tid (isod's) still ns_tid in the
 * client's namespace? -ESRCH if not. A kernel that cannot tell (before
 * 6.11) answers 0: the walk read its NSpid moments before. */
int map_client_check(const char *proc, pid_t client_pid, ino_t client_ns, pid_t tid,
		     pid_t ns_tid);

#endif
