/* statefile_read.c — reading the state log back: its records (pure
 * parsers) and the re-adoption of its live grants at start-up. */
#include "statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuator.h"
#include "admit.h"
#include "grants.h"
#include "isod.h"
#include "iso_policy.h"
#include "iso_reserve.h"
#include "log.h"
#include "procinfo.h"

/* A record line is at most ~100 bytes; anything this long is damage. */
#define LINE_MAX_LEN 256
/* A log larger than this is not one isod wrote (compaction keeps it near
 * twice the live records): read no further than this. */
#define LOG_MAX_BYTES (64u << 20)

int statefile_parse_line(const char *line, struct state_line *s)
{
	char extra;
	int n, end = 0;

	memset(s, 0, sizeof(*s));
	n = sscanf(line, "%d %d %u %llu %d %d %u%n", &s->tid, &s->pid, &s->uid, &s->starttime,
		   &s->policy, &s->prio, &s->limit, &end);
	if (n != 7)
		return -EBADMSG;
	/* 7 fields, or 10 with a reservation's runtime, deadline and period;
	 * nothing after either */
	line += end;
	if (sscanf(line, " %c", &extra) == 1) {
		if (sscanf(line, "%llu %llu %llu %c", &s->runtime_ns, &s->deadline_ns,
			   &s->period_ns, &extra) != 3)
			return -EBADMSG;
		n = 10;
	}
	if (s->tid <= 0 || s->pid <= 0 || !iso_policy_is_iso(s->policy) ||
	    iso_check_param(s->policy, s->prio) < 0 || s->limit > 100)
		return -EBADMSG;
	if (n == 10) {
		struct iso_reserve_params p = { s->runtime_ns, s->deadline_ns, s->period_ns };

		if (s->deadline_ns == 0 || iso_reserve_check(&p) < 0)
			return -EBADMSG;
	}
	return 0;
}

int statefile_parse_record(const char *line, struct state_line *s)
{
	char extra;

	if (line[0] != '-')
		return statefile_parse_line(line, s) < 0 ? -EBADMSG : STATE_REC_GRANT;
	memset(s, 0, sizeof(*s));
	if (line[1] != ' ' ||
	    sscanf(line + 2, "%d %llu %c", &s->tid, &s->starttime, &extra) != 2 || s->tid <= 0)
		return -EBADMSG;
	return STATE_REC_RELEASE;
}

/* A parsed record and where it stood in the log. */
struct rec {
	struct state_line l;
	size_t at;
	bool grant;
};

static int by_tid_then_place(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->l.tid != y->l.tid)
		return x->l.tid < y->l.tid ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int by_place(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* The log's records into *recs (*n); -EBADMSG if some line was not one. */
static int parse_records(const char *buf, size_t len, struct rec **recs, size_t *n, bool *torn)
{
	size_t cap = 0, pos = 0;
	bool damaged = false;

	*recs = NULL;
	*n = 0;
	*torn = false;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll;
		char line[LINE_MAX_LEN];
		struct state_line s;
		int kind;

		if (!nl) {
			*torn = true; /* an append cut short: never acknowledged */
			break;
		}
		ll = (size_t)(nl - (buf + pos));
		if (ll >= sizeof(line) || memchr(buf + pos, '\0', ll)) {
			damaged = true;
		} else if (ll > 0 && buf[pos] != '#') {
			memcpy(line, buf + pos, ll);
			line[ll] = '\0';
			kind = statefile_parse_record(line, &s);
			if (kind < 0) {
				damaged = true;
			} else {
				if (*n == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct rec *r = realloc(*recs, nc * sizeof(**recs));

					if (!r)
						return -ENOMEM;
					*recs = r;
					cap = nc;
				}
				(*recs)[*n] = (struct rec){ s, *n, kind == STATE_REC_GRANT };
				(*n)++;
			}
		}
		pos += ll + 1;
	}
	return damaged ? -EBADMSG : 0;
}

int statefile_parse_log(const char *buf, size_t len, struct state_line **out, size_t *n,
			bool *torn)
{
	struct rec *recs;
	size_t nrec, live = 0;
	int r = parse_records(buf, len, &recs, &nrec, torn);

	*out = NULL;
	*n = 0;
	if (r == -ENOMEM) {
		free(recs);
		return r;
	}
	if (nrec == 0) {
		free(recs);
		return r;
	}
	/* each tid's last record decides: a grant is live, a release is not */
	qsort(recs, nrec, sizeof(*recs), by_tid_then_place);
	for (size_t i = 0; i < nrec; i++)
		if (recs[i].grant && (i + 1 == nrec || recs[i + 1].l.tid != recs[i].l.tid))
			recs[live++] = recs[i];
	qsort(recs, live, sizeof(*recs), by_place);
	*out = malloc((live ? live : 1) * sizeof(**out));
	if (!*out) {
		free(recs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < live; i++)
		(*out)[i] = recs[i].l;
	*n = live;
	free(recs);
	return r;
}

/* The whole file into a buffer (malloc'ed; *len bytes). */
static int read_all(int fd, char **buf, size_t *len)
{
	struct stat st;
	size_t cap, got = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	cap = st.st_size > LOG_MAX_BYTES ? LOG_MAX_BYTES : (size_t)st.st_size;
	*buf = malloc(cap + 1);
	if (!*buf)
		return -ENOMEM;
	while (got < cap) {
		ssize_t r = read(fd, *buf + got, cap - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(*buf);
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*len = got;
	return 0;
}

/* Grant s's thread again if it is still the one the record names. */
static bool adopt(struct isod *d, const struct state_line *s)
{
	struct thread_status st;
	struct grant g = { 0 };
	struct iso_reserve_params dl = { s->runtime_ns, s->deadline_ns, s->period_ns };
	uint64_t left = 0;
	struct tracked pin;
	char why[120];
	int r;

	/* pin the thread first: a different one under a reused TID (another
	 * start time) is none of ours, and must not be touched even to
	 * demote it */
	memset(&pin, 0, sizeof(pin));
	r = tasks_open(d->proc, s->pid, s->tid, &pin);
	if (r < 0) {
		log_debug_errno(r, "state file: thread %d of process %d not re-granted", (int)s->tid,
				(int)s->pid);
		return false;
	}
	if (pin.starttime != s->starttime) {
		log_debug("state file: thread %d started at %llu, not %llu: another thread, not touched",
			  (int)s->tid, (unsigned long long)pin.starttime,
			  (unsigned long long)s->starttime);
		close(pin.statfd);
		return false;
	}
	/* the rules a request passes (admit.h), for the user the record
	 * names as it is now: a user the lists no longer admit, a limit
	 * above max_limit, a program that changed identity (setuid exec
	 * while isod was down) get no grant, and are not left RT. Another
	 * user's thread is isod_grant's to refuse, untouched */
	if (read_thread_status(d->proc, s->tid, &st) == 0 &&
	    (st.ruid == s->uid || st.euid == s->uid) &&
	    (isod_admit_user(d, s->uid, st.egid, st.groups, st.ngroups, s->limit, why,
			     sizeof(why)) < 0 ||
	     isod_admit_thread(&st, s->uid == 0, why, sizeof(why)) < 0)) {
		log_warning("state file: thread %d (pid %d, uid %u) not granted again: %s; demoted",
			    (int)s->tid, (int)s->pid, s->uid, why);
		if (tasks_alive(&pin))
			(void)actuator_demote(backend_current(), s->tid);
		close(pin.statfd);
		return false;
	}
	g.pid = s->pid;
	g.tid = s->tid;
	g.uid = s->uid;
	g.by = s->uid;
	g.starttime = s->starttime;
	g.policy = s->policy;
	g.prio = s->prio;
	g.limit = s->limit;
	g.flags = 0;
	g.pin = NULL;
	g.dl = dl.runtime_ns ? &dl : NULL;
	g.dl_left = &left;
	r = isod_grant(d, &g, NULL);
	if (r == -EBUSY && g.dl) {
		/* the caps were lowered while isod was down: band ISO, as
		 * where DEADLINE cannot serve (reserve.h) */
		struct tracked *e;

		log_warning("state file: thread %d's reservation is over reserve_cpu now: band ISO instead",
			    (int)s->tid);
		g.dl = NULL;
		r = isod_grant(d, &g, &e);
		if (r == 0)
			e->dl_why = ISO_RESERVE_WHY_CAP;
	}
	if (r == -EPERM) {
		/* another user's thread: not the one the entry names */
		log_warning("%s lists thread %d for uid %u, but it belongs to another user: not touched",
			    d->cfg.state_path, (int)s->tid, s->uid);
	} else if (r < 0 && tasks_alive(&pin)) {
		/* ours, but cannot be policed (over max_threads_per_user, as
		 * a request would be: -EAGAIN): never leave it RT */
		log_warning_errno(r, "state file: cannot grant thread %d again; demoted", (int)s->tid);
		(void)actuator_demote(backend_current(), s->tid);
	}
	close(pin.statfd);
	return r == 0;
}

int statefile_recover(struct isod *d)
{
	struct state_line *live = NULL;
	const char *base;
	char *buf = NULL;
	size_t len = 0, nlive = 0;
	int n = 0, dfd, fd, r;
	bool torn = false;

	/* a record anyone could have written is no record: -EPERM, and the
	 * caller sweeps as for a lost one */
	dfd = statefile_open_dir(&d->state, d->cfg.state_path, &base);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	r = read_all(fd, &buf, &len);
	close(fd);
	if (r < 0)
		return r;
	r = statefile_parse_log(buf, len, &live, &nlive, &torn);
	free(buf);
	if (r == -ENOMEM)
		return r;
	if (torn)
		log_info("%s ends in a record cut short (isod was stopped while writing it): ignored",
			 d->cfg.state_path);
	for (size_t i = 0; i < nlive; i++)
		if (adopt(d, &live[i]))
			n++;
	free(live);
	if (n)
		log_info("recovered %d ISO thread(s) from %s", n, d->cfg.state_path);
	if (r == -EBADMSG) {
		log_warning("%s has unreadable lines", d->cfg.state_path);
		return -EBADMSG;
	}
	return n;
}
