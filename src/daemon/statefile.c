/* statefile.c — persistence of granted threads across daemon restarts. */
#include "statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actuator.h"
#include "grants.h"
#include "isod.h"
#include "iso_policy.h"
#include "log.h"
#include "procinfo.h"

int statefile_buf_init(struct statefile_buf *b, unsigned max_threads)
{
	/* one line per thread at most 60 bytes, plus the header */
	b->cap = ((size_t)max_threads + 2) * 64;
	b->len = 0;
	b->failing = false;
	b->text = malloc(b->cap);
	return b->text ? 0 : -ENOMEM;
}

void statefile_buf_free(struct statefile_buf *b)
{
	free(b->text);
	b->text = NULL;
}

void statefile_snapshot(struct isod *d)
{
	size_t len = 0;

	len += (size_t)snprintf(d->state.text, d->state.cap,
				"# isod state: tid pid uid starttime policy prio limit\n");
	TASKS_FOREACH(&d->tasks, e) {
		if (len >= d->state.cap)
			break;
		len += (size_t)snprintf(d->state.text + len, d->state.cap - len,
					"%d %d %u %llu %d %d %u\n", (int)e->tid, (int)e->pid,
					(unsigned)e->uid, (unsigned long long)e->starttime,
					e->policy, e->prio, e->core.limit);
	}
	/* cannot happen (sized for max_threads lines); a cut record would be
	 * a damaged one, which makes the next start sweep */
	d->state.len = len < d->state.cap ? len : d->state.cap - 1;
}

/* Said once: every round of grants tries again, and the path does not
 * change at run time. */
static atomic_bool dir_warned;

/* The state file's directory, opened, if only root (or isod's own user)
 * can write it: anyone else could plant a record there — which a
 * restarted isod would re-grant — or links to other files. Returns the
 * directory fd and sets *base to the file's name in it; -EPERM when
 * others can write it (logged the first time). */
static int open_state_dir(const char *path, const char **base)
{
	char dir[sizeof(((struct isod_config *)0)->state_path)];
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t n;
	int fd;

	if (!slash || !slash[1])
		return -EINVAL;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	*base = slash + 1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		if (!atomic_exchange(&dir_warned, true))
			log_error("state file directory %s is writable by others than root (mode %04o, owner %u): not used, grants refused",
				  dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		return -EPERM;
	}
	return fd;
}

int statefile_store(const struct isod *d)
{
	char tmp[NAME_MAX + 1];
	const char *base;
	size_t off = 0;
	int dfd, fd, r = 0;

	if (!d->cfg.state_path[0])
		return 0;
	dfd = open_state_dir(d->cfg.state_path, &base);
	if (dfd < 0)
		return dfd;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", base) >= sizeof(tmp)) {
		close(dfd);
		return -ENAMETOOLONG;
	}
	/* a new file of our own, never through a link: a leftover (an
	 * earlier crash, or something planted) is removed, not followed */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (off < d->state.len && r == 0) {
		ssize_t w = write(fd, d->state.text + off, d->state.len - off);

		if (w < 0 && errno != EINTR)
			r = -EIO;
		else if (w > 0)
			off += (size_t)w;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* rename replaces the name itself, a link there included */
	if (r == 0 && renameat(dfd, tmp, dfd, base) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	close(dfd);
	return r;
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
	const char *base;
	FILE *f;
	int n = 0, dfd, fd, r;
	bool damaged = false;

	/* a record anyone could have written is no record: -EPERM, and the
	 * caller sweeps as for a lost one */
	dfd = open_state_dir(d->cfg.state_path, &base);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
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
		r = tasks_open(d->proc, s.pid, s.tid, &pin);
		if (r < 0) {
			log_debug_errno(r, "state file: thread %d of process %d not re-granted", (int)s.tid,
					(int)s.pid);
			continue;
		}
		if (pin.starttime != s.starttime) {
			log_debug("state file: thread %d started at %llu, not %llu: another thread, not touched",
				  (int)s.tid, (unsigned long long)pin.starttime,
				  (unsigned long long)s.starttime);
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
			log_warning_errno(r, "state file: cannot grant thread %d again; demoted",
					  (int)s.tid);
			(void)actuator_demote(backend_current(), s.tid);
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
