/* nsmap.h — thread ids of a client in another PID namespace, mapped to
 * isod's own (containers, Flatpak, `unshare -p`).
 *
 * Return contract: 0 or a negative errno (-ESRCH: no such thread in the
 * client's namespace, or the client is gone; -EINPROGRESS: before Linux
 * 6.11 only, the walk that finds it has spent this request's share: ask
 * again, it resumes — see nsmap_walk.h). */
#ifndef ISOD_NSMAP_H
#define ISOD_NSMAP_H

#include <stdbool.h>
#include <sys/types.h>

struct nswalk;

/* What mapping remembers: the server thread's only. Zeroed is ready;
 * nsmap_free releases it. */
struct nsmap {
	char own_proc[128];    /* isod's own PID namespace, read once per /proc root */
	ino_t own_ns;
	bool kernel_cannot;    /* no NS_GET_PID_FROM_PIDNS (before 6.11): walk */
	struct nswalk *walk;   /* the walks and their memory, made when first needed */
	unsigned last_units;   /* what the last map_client_tid cost (tests) */
};

void nsmap_free(struct nsmap *m);
/* Walk as on a kernel before 6.11, even where the kernel can translate
 * (tests of the walk on any kernel). */
void nsmap_force_walk(struct nsmap *m);

/* The PID namespace of process client_pid (its ns/pid inode). A
 * process's own PID namespace never changes: read once per connection. */
int client_pidns(const char *proc, pid_t client_pid, ino_t *ino);

/* Map tid as seen in the PID namespace of process client_pid to isod's
 * own view. Only threads the client sees are found (before 6.11, those of
 * its own namespace only), so a client can never name a thread it cannot
 * see. client_ns: that process's
 * namespace as client_pidns read it while the process was the caller's (0:
 * read it now). Cost: none for a client in isod's namespace; one ioctl
 * for one in another, on Linux 6.11 and later (NS_GET_PID_FROM_PIDNS);
 * before that, one read for a thread found before, else a walk of the
 * namespace's processes of at most NSWALK_BUDGET reads per request. */
int map_client_tid(struct nsmap *m, const char *proc, pid_t client_pid, ino_t client_ns,
		   pid_t ns_tid, pid_t *tid);

/* After the thread is pinned: is tid (isod's) still ns_tid in the
 * client's namespace? -ESRCH if not. One ioctl, or before 6.11 two reads
 * (the thread's NSpid and the client's level). */
int map_client_check(struct nsmap *m, const char *proc, pid_t client_pid, ino_t client_ns,
		     pid_t tid, pid_t ns_tid);

#endif
