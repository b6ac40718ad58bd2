/* revoke.c — the allow lists applied again to what is already granted. */
#include "revoke.h"

#include "admit.h"
#include "grants.h"
#include "log.h"
#include "procinfo.h"

int isod_revoke_disallowed(struct isod *d)
{
	const struct isod_config *c = &d->cfg;
	int n = 0;

	if (c->n_allow_users == 0 && c->n_allow_groups == 0)
		return 0;
	TASKS_FOREACH(&d->tasks, e) {
		struct thread_status st = { 0 };
		pid_t tid;
		uid_t uid;

		/* groups as the thread has them now; a thread that is gone has
		 * none (the enforcer forgets it anyway) */
		(void)read_thread_status(d->proc, e->tid, &st);
		if (config_admits(c, e->uid, st.egid, st.groups, st.ngroups))
			continue;
		tid = e->tid;
		uid = e->uid;
		log_info("reload: user %u is no longer allowed ISO (allow_users/allow_groups): thread %d (pid %d) demoted and forgotten",
			 (unsigned)uid, (int)tid, (int)e->pid);
		(void)isod_release(d, tid);
		n++;
	}
	return n;
}
