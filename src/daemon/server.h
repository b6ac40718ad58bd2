/* server.h — isod's socket: SOCK_SEQPACKET Unix socket, SO_PEERCRED
 * authentication, an epoll loop that serves requests until stop, and a
 * bound on connections (the oldest is dropped).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_SERVER_H
#define ISOD_SERVER_H

#include <stdbool.h>

#include "isod.h"
#include "ratelimit.h"

#define SERVER_MAX_CONN 128

/* Pending connections the kernel queues (listen.c). */
#define SERVER_LISTEN_BACKLOG 64
int server_listen(const char *path);
/* Serve until d->stop or a signal on sigfd; tick() is called about every
 * 100 ms (configuration reload). The state file is rewritten after every
 * round of requests that changed it, before their replies go out. */
/* forkfd: the process connector (-1: none). */
int server_run(struct isod *d, int listen_fd, int sigfd, int forkfd,
	       void (*tick)(struct isod *d));

/* A second front end served by the same loop and thread (the rtkit D-Bus
 * face, rtkit_bus.h): its fd is polled with the socket's, and its
 * requests share the socket's rate limiter and group commit. */
struct server_source {
	void *ctx;
	int (*fd)(void *ctx);         /* -1: none at the moment */
	uint32_t (*events)(void *ctx); /* EPOLLIN/EPOLLOUT wanted now */
	int (*timeout_ms)(void *ctx); /* -1: none */
	/* every round, whether or not the fd is ready; never blocks */
	void (*process)(void *ctx, struct ratelimit *rl);
	/* after the round's state file write: recorded as sync says */
	void (*flush)(void *ctx, bool recorded);
};

/* server_run with a second front end (NULL: none). */
int server_run_with(struct isod *d, int listen_fd, int sigfd, int forkfd,
		    void (*tick)(struct isod *d), const struct server_source *extra);

#endif
