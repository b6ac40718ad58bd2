/* rtkit_bus.h — isod's RealtimeKit1 face on the D-Bus system bus
 * (docs/rtkit.md). sd-bus plumbing only: it owns (or queues for)
 * org.freedesktop.RealtimeKit1, serves rtkit's object and properties,
 * learns who called from the bus driver (GetConnectionCredentials, asked
 * asynchronously: the server thread never waits on the bus), and hands
 * each call to rtkit_req.h — the socket's request path. Replies that
 * announce a grant wait for the state file like the socket's.
 *
 * The bus is found the standard way (DBUS_SYSTEM_BUS_ADDRESS, else the
 * system bus); if it goes away isod keeps serving its socket and
 * reconnects every few seconds.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_RTKIT_BUS_H
#define ISOD_RTKIT_BUS_H

#include "isod.h"
#include "server.h"

struct rtkit_bus;

/* Connect and ask for the name; failing to connect is not fatal (it is
 * retried), only running out of memory is. */
int rtkit_bus_open(struct isod *d, struct rtkit_bus **out);
void rtkit_bus_close(struct rtkit_bus *b);
/* The server loop's view of it (server.h). */
void rtkit_bus_source(struct rtkit_bus *b, struct server_source *s);

#endif
