/* peer.h — checks on the peer of a request (handler.h: struct peer). */
#ifndef ISOD_PEER_H
#define ISOD_PEER_H

#include <stdbool.h>

#include "handler.h"

/* May p ask for ISO at all (root, or allow_users / allow_groups)? */
bool peer_allowed(const struct isod *d, const struct peer *p);
/* Is the process that connected still the one under p->pid? */
bool peer_current(const struct isod *d, const struct peer *p);

#endif
