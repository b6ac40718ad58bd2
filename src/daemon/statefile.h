/* statefile.h — the threads isod has made kernel RT, on disk, so that an
 * isod restarted after SIGKILL or a crash finds and re-polices them: no
 * unpoliced RT thread survives the daemon.
 *
 * Return contract: 0 / a count, or a negative errno. */
#ifndef ISOD_STATEFILE_H
#define ISOD_STATEFILE_H

#include <stdbool.h>
#include <stddef.h>

struct isod;

/* The file's text between snapshot (under the lock) and store (without
 * it), sized once for max_threads lines: no allocation per write. */
struct statefile_buf {
	char *text;
	size_t cap, len;
	bool failing; /* the last write failed (server thread only) */
};
int statefile_buf_init(struct statefile_buf *b, unsigned max_threads);
void statefile_buf_free(struct statefile_buf *b);

/* The table as the file's text, into d->state. Caller holds d->lock. */
void statefile_snapshot(struct isod *d);
/* Write the last snapshot atomically (temp file + rename), never through
 * a symlink (the temp file is created O_EXCL|O_NOFOLLOW, a leftover
 * removed first), and only in a directory no one but root (or isod's own
 * user) can write: -EPERM otherwise (logged). Needs no lock:
 * only the server thread snapshots and stores, so disk waits never hold
 * the lock the enforcer needs. */
int statefile_store(const struct isod *d);
/* Both, for start-up and exit. Caller holds d->lock. */
int statefile_write(struct isod *d);
/* Re-adopt threads listed in the file whose identity (start time) still
 * matches; returns how many. -ENOENT: there is no file (the first start
 * since boot, or lost); -EPERM: its directory is writable by others (the
 * record is not trusted); -EBADMSG: some lines were unreadable (what could
 * be read is recovered). The caller then sweeps for strays (strays.h). A clean exit
 * demotes every thread but keeps their entries, so a restart on the same
 * file grants them again. Caller holds d->lock. */
int statefile_recover(struct isod *d);

/* One line of the file; pure, for tests and fuzzing. */
struct state_line {
	int tid, pid;
	unsigned uid;
	unsigned long long starttime;
	int policy, prio;
	unsigned limit;
};
int statefile_parse_line(const char *line, struct state_line *out);

#endif
