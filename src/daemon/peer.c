/* peer.c — what a request's peer may do, and whether it is still the
 * process that connected (the checks every front end's requests pass). */
#include "peer.h"

#include <poll.h>

#include "isod.h"
#include "procinfo.h"

bool peer_allowed(const struct isod *d, const struct peer *p)
{
	const struct isod_config *c = &d->cfg;

	if (p->uid == 0 || (c->n_allow_users == 0 && c->n_allow_groups == 0))
		return true;
	for (size_t i = 0; i < c->n_allow_users; i++)
		if (c->allow_users[i] == p->uid)
			return true;
	for (size_t i = 0; i < c->n_allow_groups; i++) {
		if (p->gid == c->allow_groups[i])
			return true;
		for (size_t j = 0; j < p->ngroups; j++)
			if (p->groups[j] == c->allow_groups[i])
				return true;
	}
	return false;
}

/* Is the process that connected still the one under p->pid? Its pid is
 * how a thread id is mapped from its PID namespace; once it has exited,
 * the number may be another process's. */
bool peer_current(const struct isod *d, const struct peer *p)
{
	uint64_t st;

	if (p->starttime == 0)
		return true;
	if (p->fresh)
		return p->starttime != 1; /* 1: gone at the accept */
	if (p->has_pidfd && p->starttime != 1) {
		struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };
		int n = poll(&pf, 1, 0);

		if (n >= 0)
			return n == 0; /* readable: the process has exited */
	}
	return read_thread_starttime(d->proc, p->pid, &st) == 0 && st == p->starttime;
}
