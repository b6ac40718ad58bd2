/* rtkit_caller.h — who is calling isod's RealtimeKit1 face, and may
 * they: the bus driver's credentials of the sender, the caller's pid
 * pinned by start time (as the socket's peer), and — with polkit = yes —
 * polkit's verdict on rtkit's own action ids for that process.
 *
 * Return contract: 0 (or a verdict) or a negative errno. */
#ifndef ISOD_RTKIT_CALLER_H
#define ISOD_RTKIT_CALLER_H

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "handler.h"
#include "isod.h"

/* The reply of GetConnectionCredentials into p (uid, pid, groups);
 * -ENODATA when uid or pid is missing. */
int rtkit_caller_read_creds(sd_bus_message *m, struct peer *p);
/* p->starttime and p->gid from the live process; -ESRCH if it is gone. */
int rtkit_caller_pin(struct isod *d, struct peer *p);
/* Ask polkit, asynchronously and without interaction, whether process p
 * may have org.freedesktop.RealtimeKit1.acquire-real-time (realtime) or
 * .acquire-high-priority; the reply goes to cb(userdata) through *slot. */
int rtkit_polkit_ask(sd_bus *bus, const struct peer *p, bool realtime,
		     sd_bus_message_handler_t cb, void *userdata, sd_bus_slot **slot);
/* polkit's reply: 1 authorized, 0 not, -ENOENT polkit is not on the bus,
 * another negative errno when it could not decide. */
int rtkit_polkit_verdict(sd_bus_message *reply);

#endif
