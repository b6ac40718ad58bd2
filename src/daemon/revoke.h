/* revoke.h — after a configuration reload, take ISO back from the threads
 * of users the allow lists no longer admit (issue 11, item 10d): a grant
 * lasts only as long as its owner may hold one.
 *
 * Return contract: a count, or a negative errno. */
#ifndef ISOD_REVOKE_H
#define ISOD_REVOKE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "isod.h"

/* Demote and forget (logged, one line per thread) every tracked thread
 * whose owner the current lists do not admit; its groups are read from
 * the thread's /proc status now. Returns how many. Caller holds d->lock. */
int isod_revoke_disallowed(struct isod *d);

#endif
