/* conn.h — the connection to isod a process keeps from one call to the
 * next (conn.c says when it is kept and when a call opens its own). */
#ifndef ISO_CLIENT_CONN_H
#define ISO_CLIENT_CONN_H

#include <stdbool.h>

/* Supplementary groups compared to tell the credentials unchanged; a
 * process with more never keeps its connection (each call opens one). */
#define CONN_GROUPS_MAX 64

struct conn {
	int fd;      /* the connection, or a negative errno */
	bool kept;   /* the process's kept connection (conn_put keeps it) */
	bool reused; /* kept from an earlier call: it may have been closed by
		      * isod since (a restart, a connection limit), so a
		      * transport failure on it is worth one retry */
};

/* Open a connection of the call's own to the socket at path. */
int conn_open(const char *path);

/* The connection for one call: the kept one when it is free and still
 * this process's, else a new one. Returns c->fd. */
int conn_get(const char *path, struct conn *c);

/* The call is done with c: a kept connection stays open unless broken
 * (any failure before a whole reply: a reply arriving later must not be
 * read as the next call's), any other is closed. */
void conn_put(struct conn *c, bool broken);

#endif
