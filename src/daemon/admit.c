/* admit.c — the rules a grant must pass, whoever asks (admit.h). */
#include "admit.h"

#include <errno.h>
#include <stdio.h>

bool config_admits(const struct isod_config *c, uid_t uid, gid_t gid,
		   const gid_t *groups, size_t ngroups)
{
	if (uid == 0 || (c->n_allow_users == 0 && c->n_allow_groups == 0))
		return true;
	for (size_t i = 0; i < c->n_allow_users; i++)
		if (c->allow_users[i] == uid)
			return true;
	for (size_t i = 0; i < c->n_allow_groups; i++) {
		if (gid == c->allow_groups[i])
			return true;
		for (size_t j = 0; j < ngroups; j++)
			if (groups[j] == c->allow_groups[i])
				return true;
	}
	return false;
}

int isod_admit_user(const struct isod *d, uid_t uid, gid_t gid, const gid_t *groups,
		    size_t ngroups, unsigned limit, char *why, size_t cap)
{
	unsigned maxlim = d->cfg.max_limit ? d->cfg.max_limit : d->engine.tun.iso_cpu;

	if (uid != 0 && limit > maxlim) {
		snprintf(why, cap, "limit %u %% is above the administrator's maximum of %u %%",
			 limit, maxlim);
		return -EPERM;
	}
	if (!config_admits(&d->cfg, uid, gid, groups, ngroups)) {
		snprintf(why, cap, "user %u is not allowed ISO scheduling (allow_users/allow_groups)",
			 (unsigned)uid);
		return -EPERM;
	}
	return 0;
}

int isod_admit_thread(const struct thread_status *st, bool by_root, char *why, size_t cap)
{
	if (by_root || (st->euid == st->ruid && st->egid == st->rgid))
		return 0;
	snprintf(why, cap, "it runs a program that changes its identity (setuid/setgid)");
	return -EPERM;
}
