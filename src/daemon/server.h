/* server.h — isod's socket: SOCK_SEQPACKET Unix socket, SO_PEERCRED
 * authentication, an epoll loop that serves requests until stop, and a
 * bound on connections (the oldest is dropped).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_SERVER_H
#define ISOD_SERVER_H

#include "isod.h"

#define SERVER_MAX_CONN 128

int server_listen(const char *path);
/* Serve until d->stop or a signal on sigfd; tick() is called about every
 * 100 ms (configuration reload). The state file is rewritten after every
 * round of requests that changed it, before their replies go out. */
/* forkfd: the process connector (-1: none). */
int server_run(struct isod *d, int listen_fd, int sigfd, int forkfd,
	       void (*tick)(struct isod *d));

#endif
