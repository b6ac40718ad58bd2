/* listen.c — isod's socket: created world-connectable, since who may do
 * what is decided per request from SO_PEERCRED (server.c, handler.c). */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

static int mkdir_parent(const char *path)
{
	char dir[108], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int server_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	r = mkdir_parent(path);
	if (r < 0)
		return log_error_errno(r, "cannot create directory for %s", path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return log_error_errno(r, "cannot bind %s", path);
	}
	/* Anyone may connect; who may do what is decided per request from
	 * SO_PEERCRED (and allow_users/allow_groups). */
	(void)chmod(path, 0666);
	if (listen(fd, SERVER_LISTEN_BACKLOG) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}
