/* charge.h — the user a uid's per-user bounds are charged to.
 *
 * A user with subordinate uids (newuidmap, /etc/subuid: rootless podman,
 * toolbox, Flatpak's helpers) can run threads under many kernel uids, one
 * person all the same. isod charges max_threads_per_user, the per-user
 * shares and the rate limits to the person: a uid seen in a user
 * namespace that an unprivileged user made is charged to that user — the
 * owner (creator's euid, NS_GET_OWNER_UID) of the outermost such
 * namespace above the thread. A namespace root made (a container whose
 * ranges the administrator gave out, as to any user) passes the charge on
 * to the uid itself; root (kernel uid 0) is root; a thread in isod's own
 * user namespace is charged to its own uid. The owner checks (the
 * kernel's EPERM rule) keep the thread's own uid: only the key of the
 * per-user bounds changes.
 *
 * Return contract: 0 or a negative errno (-ESRCH: the process is gone). */
#ifndef ISOD_CHARGE_H
#define ISOD_CHARGE_H

#include <stddef.h>
#include <sys/types.h>

/* User namespaces nest 32 deep at most (the kernel's limit). */
#define CHARGE_MAX_DEPTH 33

/* The rule: uid's charge given the owners of the user namespaces above
 * its thread, innermost (the thread's own) first; n 0: isod's own. */
uid_t charge_rule(uid_t uid, const uid_t *owners, size_t n);

/* The owners of process pid's user namespaces up to (not including)
 * isod's own, innermost first, read through /proc root proc
 * (NS_GET_OWNER_UID, NS_GET_PARENT); *n of them. */
int read_userns_owners(const char *proc, pid_t pid, uid_t *owners, size_t cap, size_t *n);

/* charge_rule on what read_userns_owners reads; *out = uid if that
 * fails (the error is returned: the caller decides). */
int read_charged_uid(const char *proc, pid_t pid, uid_t uid, uid_t *out);

#endif
