/* charge.c — which user pays for a uid (charge.h). */
#include "charge.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

uid_t charge_rule(uid_t uid, const uid_t *owners, size_t n)
{
	if (uid == 0)
		return 0;
	/* the outermost namespace an unprivileged user made */
	for (size_t i = n; i-- > 0;)
		if (owners[i] != 0)
			return owners[i];
	return uid;
}

int read_userns_owners(const char *proc, pid_t pid, uid_t *owners, size_t cap, size_t *n)
{
	char path[128];
	struct stat own, sb;
	int fd, r = 0;

	*n = 0;
	snprintf(path, sizeof(path), "%s/self/ns/user", proc);
	if (stat(path, &own) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/%d/ns/user", proc, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	for (;;) {
		uid_t owner;
		int parent;

		if (fstat(fd, &sb) < 0) {
			r = -errno;
			break;
		}
		if (sb.st_dev == own.st_dev && sb.st_ino == own.st_ino)
			break; /* isod's own: the top */
		if (*n == cap) {
			r = -ELOOP;
			break;
		}
		if (ioctl(fd, NS_GET_OWNER_UID, &owner) < 0) {
			r = -errno;
			break;
		}
		owners[(*n)++] = owner;
		parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0) {
			/* EPERM: the parent is outside isod's namespace (isod
			 * itself in one, the thread in a sibling): as far up
			 * as isod can see */
			r = errno == EPERM ? 0 : -errno;
			break;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	return r;
}

int read_charged_uid(const char *proc, pid_t pid, uid_t uid, uid_t *out)
{
	uid_t owners[CHARGE_MAX_DEPTH];
	size_t n;
	int r = read_userns_owners(proc, pid, owners, CHARGE_MAX_DEPTH, &n);

	*out = r < 0 ? uid : charge_rule(uid, owners, n);
	return r;
}
