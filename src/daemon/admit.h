/* admit.h — may a grant be made: the rules a client's request (handler.c
 * do_set, and through it the RealtimeKit face), a record recovered from
 * the state file at start-up (statefile_read.c) and a child adopted from
 * an ISO parent (forkwatch.c) all pass, so that neither a restart nor a
 * fork gets what a request could not have had (issue 28). The
 * per-user and global thread counts are isod_grant's (grants.c), which
 * both paths go through.
 *
 * Return contract: 0, or -EPERM with the reason in why (cap bytes). */
#ifndef ISOD_ADMIT_H
#define ISOD_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "isod.h"
#include "procinfo.h"

/* Do the allow lists of c admit a user with effective uid, gid and these
 * supplementary groups? Root and empty lists admit everybody. Pure. */
bool config_admits(const struct isod_config *c, uid_t uid, gid_t gid,
		   const gid_t *groups, size_t ngroups);
/* The administrator's rules for the user asking: an own limit no higher
 * than max_limit (root exempt), and the allow lists (allow_users,
 * allow_groups) admitting uid with effective gid and these supplementary
 * groups (config_admits, the rule a reload applies too: revoke.c). */
int isod_admit_user(const struct isod *d, uid_t uid, gid_t gid, const gid_t *groups,
		    size_t ngroups, unsigned limit, char *why, size_t cap);
/* The thread: a program that changes identity (setuid or setgid: its
 * effective ids are not its real ones) is not a client's to run as ISO —
 * the rule isod applies when it sees such an exec (strays_exec), applied
 * to a request and a recovery alike. by_root: asked by root, exempt. */
int isod_admit_thread(const struct thread_status *st, bool by_root, char *why, size_t cap);

#endif
