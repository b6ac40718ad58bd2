/* statefile.c — persistence of granted threads across daemon restarts. */
#include "statefile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "actuator.h"
#include "iso_policy.h"
#include "log.h"
#include "procinfo.h"

void statefile_snapshot(struct isod *d)
{
	size_t len = 0;

	len += (size_t)snprintf(d->state_buf, d->state_cap,
				"# isod state: tid pid uid starttime policy prio limit\n");
	for (size_t i = 0; i < d->tasks.end && len < d->state_cap; i++) {
		const struct tracked *e = &d->tasks.t[i];
		if (e->used)
			len += (size_t)snprintf(d->state_buf + len, d->state_cap - len,
						"%d %d %u %llu %d %d %u\n", (int)e->tid, (int)e->pid,
						(unsigned)e->uid, (unsigned long long)e->starttime,
						e->policy, e->prio, e->core.limit);
	}
	/* cannot happen (sized for max_threads lines); a cut record would be
	 * a damaged one, which makes the next start sweep */
	d->state_len = len < d->state_cap ? len : d->state_cap - 1;
}

int statefile_store(const struct isod *d)
{
	char tmp[300];
	FILE *f;

	if (!d->cfg.state_path[0])
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->cfg.state_path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	if (fwrite(d->state_buf, 1, d->state_len, f) != d->state_len) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(f) != 0 || rename(tmp, d->cfg.state_path) < 0) {
		int r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

int statefile_write(struct isod *d)
{
	statefile_snapshot(d);
	return statefile_store(d);
}

int statefile_parse_line(const char *line, struct state_line *s)
{
	char extra;

	if (sscanf(line, "%d %d %u %llu %d %d %u %c", &s->tid, &s->pid, &s->uid,
		   &s->starttime, &s->policy, &s->prio, &s->limit, &extra) != 7)
		return -EBADMSG;
	if (s->tid <= 0 || s->pid <= 0 || !iso_policy_is_iso(s->policy) ||
	    iso_check_param(s->policy, s->prio) < 0 || s->limit > 100)
		return -EBADMSG;
	return 0;
}

int statefile_recover(struct isod *d)
{
	char line[256];
	FILE *f = fopen(d->cfg.state_path, "re");
	int n = 0, r;
	bool damaged = false;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct state_line s;
		struct grant g;
		struct tracked pin;

		if (line[0] == '#')
			continue;
		if (statefile_parse_line(line, &s) < 0) {
			damaged = true;
			continue;
		}
		/* pin the thread first: a different one under a reused TID
		 * (another start time) is none of ours, and must not be
		 * touched even to demote it */
		memset(&pin, 0, sizeof(pin));
		if (tasks_open(d->proc, s.pid, s.tid, &pin) < 0)
			continue;
		if (pin.starttime != s.starttime) {
			close(pin.statfd);
			continue;
		}
		g.pid = s.pid;
		g.tid = s.tid;
		g.uid = s.uid;
		g.by = s.uid;
		g.starttime = s.starttime;
		g.policy = s.policy;
		g.prio = s.prio;
		g.limit = s.limit;
		g.flags = 0;
		r = isod_grant(d, &g, NULL);
		if (r == 0) {
			n++;
		} else if (r == -EPERM) {
			/* another user's thread: not the one the entry names */
			log_warning("%s lists thread %d for uid %u, but it belongs to another user: not touched",
				    d->cfg.state_path, (int)s.tid, s.uid);
		} else if (tasks_alive(&pin)) {
			/* ours, but cannot be policed: never leave it RT */
			(void)actuator_demote(s.tid);
		}
		close(pin.statfd);
	}
	fclose(f);
	if (n)
		log_info("recovered %d ISO thread(s) from %s", n, d->cfg.state_path);
	if (damaged) {
		log_warning("%s has unreadable lines", d->cfg.state_path);
		return -EBADMSG;
	}
	return n;
}
