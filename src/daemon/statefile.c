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

#include "isod.h"
#include "iso_policy.h"
#include "log.h"

/* One record's longest text: "tid pid uid starttime policy prio limit
 * [runtime deadline period]\n"
 * with every number at its widest. */
#define RECORD_MAX 128

static int batch_init(struct state_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->text = malloc((size_t)STATEFILE_PENDING * RECORD_MAX);
	b->grants = calloc(STATEFILE_PENDING, sizeof(*b->grants));
	return b->text && b->grants ? 0 : -ENOMEM;
}

static void batch_clear(struct state_batch *b)
{
	b->len = 0;
	b->records = 0;
	b->ngrants = 0;
	b->overflow = false;
}

int statefile_buf_init(struct statefile_buf *b, unsigned max_threads)
{
	memset(b, 0, sizeof(*b));
	b->fd = b->dirfd = -1;
	b->cap = ((size_t)max_threads + 2) * RECORD_MAX;
	b->text = malloc(b->cap);
	if (!b->text || batch_init(&b->pending) < 0 || batch_init(&b->writing) < 0) {
		statefile_buf_free(b);
		return -ENOMEM;
	}
	return 0;
}

void statefile_buf_free(struct statefile_buf *b)
{
	free(b->text);
	b->text = NULL;
	free(b->pending.text);
	free(b->pending.grants);
	free(b->writing.text);
	free(b->writing.grants);
	memset(&b->pending, 0, sizeof(b->pending));
	memset(&b->writing, 0, sizeof(b->writing));
	if (b->fd >= 0)
		close(b->fd);
	if (b->dirfd >= 0)
		close(b->dirfd);
	b->fd = b->dirfd = -1;
}

static int format_grant(char *buf, size_t cap, const struct tracked *e)
{
	/* a reservation adds its runtime, deadline and period (ns) */
	if (e->dl.runtime_ns)
		return snprintf(buf, cap, "%d %d %u %llu %d %d %u %llu %llu %llu\n", (int)e->tid,
				(int)e->pid, (unsigned)e->uid, (unsigned long long)e->starttime,
				e->policy, e->prio, e->core.limit,
				(unsigned long long)e->dl.runtime_ns,
				(unsigned long long)e->dl.deadline_ns,
				(unsigned long long)e->dl.period_ns);
	return snprintf(buf, cap, "%d %d %u %llu %d %d %u\n", (int)e->tid, (int)e->pid,
			(unsigned)e->uid, (unsigned long long)e->starttime, e->policy, e->prio,
			e->core.limit);
}

/* Queue one record; a round with more changes than fit compacts instead
 * (the snapshot then says it all). */
static void note(struct isod *d, const struct tracked *e, bool grant)
{
	struct state_batch *b = &d->state.pending;
	char rec[RECORD_MAX];
	int n = grant ? format_grant(rec, sizeof(rec), e)
		      : snprintf(rec, sizeof(rec), "- %d %llu\n", (int)e->tid,
				 (unsigned long long)e->starttime);

	if (b->overflow || !b->text) {
		/* already compacting (or no buffers): nothing to queue */
	} else if (n < 0 || (size_t)n >= sizeof(rec) || b->records >= STATEFILE_PENDING ||
		   b->len + (size_t)n > (size_t)STATEFILE_PENDING * RECORD_MAX) {
		b->overflow = true;
	} else {
		memcpy(b->text + b->len, rec, (size_t)n);
		b->len += (size_t)n;
		b->records++;
		if (grant)
			b->grants[b->ngrants++] = (struct state_key){ e->tid, e->starttime };
	}
	atomic_store(&d->state_dirty, true);
}

void statefile_note_grant(struct isod *d, const struct tracked *e)
{
	note(d, e, true);
}

void statefile_note_release(struct isod *d, const struct tracked *e)
{
	note(d, e, false);
}

void statefile_snapshot(struct isod *d)
{
	size_t len = 0, records = 0;

	len += (size_t)snprintf(d->state.text, d->state.cap,
				"# isod state: tid pid uid starttime policy prio limit [runtime deadline period]; \"- tid starttime\": released\n");
	TASKS_FOREACH(&d->tasks, e) {
		if (len >= d->state.cap)
			break;
		len += (size_t)format_grant(d->state.text + len, d->state.cap - len, e);
		records++;
	}
	/* cannot happen (sized for max_threads lines); a cut record would be
	 * a torn one, ignored, and its thread found by the next start's sweep */
	d->state.len = len < d->state.cap ? len : d->state.cap - 1;
	d->state.snap_records = records;
}

/* The state file's directory, opened, if only root (or isod's own user)
 * can write it: anyone else could plant a record there — which a
 * restarted isod would re-grant — or links to other files. Returns the
 * directory fd and sets *base to the file's name in it; -EPERM when
 * others can write it (logged the first time). */
/* Only root (or isod's own user) can write the open directory fd? Said
 * once (*warned): every round of grants tries again, and the path does
 * not change at run time. */
static int dir_trusted(int fd, const char *name, bool *warned)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		if (!*warned)
			log_error("state file directory %s is writable by others than root (mode %04o, owner %u): not used, grants refused",
				  name, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		*warned = true;
		return -EPERM;
	}
	return 0;
}

int statefile_open_dir(struct statefile_buf *b, const char *path, const char **base)
{
	char dir[sizeof(((struct isod_config *)0)->state_path)];
	const char *slash = strrchr(path, '/');
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
	if (dir_trusted(fd, dir, &b->dir_warned) < 0) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int statefile_store(struct isod *d)
{
	struct statefile_buf *b = &d->state;
	char tmp[NAME_MAX + 1];
	const char *base;
	struct stat st;
	size_t off = 0;
	int dfd, fd, r = 0;

	if (!d->cfg.state_path[0])
		return 0;
	/* whatever happens, later changes go to the new file or to none */
	if (b->fd >= 0)
		close(b->fd);
	if (b->dirfd >= 0)
		close(b->dirfd);
	b->fd = b->dirfd = -1;
	dfd = statefile_open_dir(b, d->cfg.state_path, &base);
	if (dfd < 0)
		return dfd;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", base) >= sizeof(tmp)) {
		close(dfd);
		return -ENAMETOOLONG;
	}
	/* a new file of our own, never through a link: a leftover (an
	 * earlier crash, or something planted) is removed, not followed.
	 * O_APPEND: it is the log later changes are appended to */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
			    0644);
	if (fd < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (off < b->len && r == 0) {
		ssize_t w = write(fd, b->text + off, b->len - off);

		if (w < 0 && errno != EINTR)
			r = -EIO;
		else if (w > 0)
			off += (size_t)w;
	}
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	/* rename replaces the name itself, a link there included */
	if (r == 0 && renameat(dfd, tmp, dfd, base) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(dfd, tmp, 0);
		close(fd);
		close(dfd);
		return r;
	}
	/* the directory stays open: each append checks it (fstat) */
	b->fd = fd;
	b->dirfd = dfd;
	b->records = b->snap_records;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	return 0;
}

int statefile_write(struct isod *d)
{
	statefile_snapshot(d);
	return statefile_store(d);
}

void statefile_check(struct isod *d)
{
	struct statefile_buf *b = &d->state;
	struct stat st;

	/* removed (the unit's directory cleaned) or replaced, the file, or
	 * the directory, at the path: it is written anew */
	b->stale = b->fd < 0 || lstat(d->cfg.state_path, &st) < 0 || st.st_dev != b->dev ||
		   st.st_ino != b->ino;
}

enum state_commit statefile_begin(struct isod *d)
{
	struct statefile_buf *b = &d->state;
	struct state_batch t;

	/* no state file configured: nothing to compact (append() writes
	 * nothing), so no O(threads) snapshot per change either */
	if (d->cfg.state_path[0] &&
	    (b->fd < 0 || b->stale || b->pending.overflow ||
	     b->records + b->pending.records > 2 * d->tasks.used + STATEFILE_SLACK)) {
		/* the snapshot has every change queued so far */
		statefile_snapshot(d);
		batch_clear(&b->pending);
		return STATE_REWRITE;
	}
	t = b->writing;
	b->writing = b->pending;
	b->pending = t;
	batch_clear(&b->pending);
	return STATE_APPEND;
}

/* Append the batch taken by statefile_begin: one write for the round. */
static int append(struct isod *d)
{
	struct statefile_buf *b = &d->state;
	size_t off = 0;

	if (!b->writing.len || !d->cfg.state_path[0])
		return 0;
	/* as for a rewrite: a directory others can write is not used (the
	 * one open is the one at the path: statefile_check) */
	if (dir_trusted(b->dirfd, d->cfg.state_path, &b->dir_warned) < 0)
		return -EPERM;
	while (off < b->writing.len) {
		ssize_t w = write(b->fd, b->writing.text + off, b->writing.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* perhaps a part was written: the next commit rewrites the
			 * file whole, so a cut record is never followed by others */
			close(b->fd);
			b->fd = -1;
			return w < 0 ? -errno : -EIO;
		}
		off += (size_t)w;
	}
	b->records += b->writing.records;
	return 0;
}

int statefile_flush(struct isod *d, enum state_commit how)
{
	return how == STATE_REWRITE ? statefile_store(d) : append(d);
}

void statefile_end(struct isod *d)
{
	batch_clear(&d->state.writing);
}
