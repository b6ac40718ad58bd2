/* statefile.h — the threads isod has made kernel RT, on disk, so that an
 * isod restarted after SIGKILL or a crash finds and re-polices them: no
 * unpoliced RT thread survives the daemon.
 *
 * The file is a log: a grant appends its record ("tid pid uid starttime
 * policy prio limit"), a thread leaving the table appends "- tid
 * starttime"; the last record of a tid says whether it is live. A change
 * costs one small append (O(1)), not a rewrite of every thread's line.
 * The log is compacted — rewritten with only the live records, atomically
 * (temp file + rename) — when it holds more than twice the live records
 * (plus STATEFILE_SLACK), when the pending changes of a round overflow,
 * after a failed write, and whenever the file on disk is no longer the one
 * isod appends to. docs/security.md ("The state file") says why it is
 * never fsync'ed.
 *
 * Return contract: 0 / a count, or a negative errno. */
#ifndef ISOD_STATEFILE_H
#define ISOD_STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct isod;
struct tracked;

/* Records beyond twice the live ones before a compaction. */
#define STATEFILE_SLACK 256
/* Changes one round can queue before it compacts instead of appending. */
#define STATEFILE_PENDING 512

/* A grant the log is about to record: checked off when written. */
struct state_key {
	pid_t tid;
	uint64_t starttime;
};

/* The changes not yet on disk, as text (one record a line) plus the
 * grants among them. Two of them: the enforcer and the server append to
 * one under d->lock while the server thread writes the other without it. */
struct state_batch {
	char *text;
	size_t len;
	unsigned records;
	struct state_key *grants;
	unsigned ngrants;
	bool overflow; /* more than STATEFILE_PENDING: compact instead */
};

/* Everything the state file needs, sized once for max_threads: no
 * allocation per write. */
struct statefile_buf {
	char *text;          /* a compaction's text: every live record */
	size_t cap, len;
	bool failing;        /* the last write failed (server thread only) */
	struct state_batch pending, writing;
	/* the open log (server thread only): -1 until the first compaction,
	 * and again after a failure. records: how many lines it holds. */
	int fd, dirfd;
	bool stale;          /* the file at the path is not fd's (statefile_check) */
	size_t records;
	size_t snap_records; /* lines of the last snapshot */
	dev_t dev;
	ino_t ino;
	/* the directory's "writable by others" said (statefile_open_dir):
	 * the server thread's, or the main thread's before it runs */
	bool dir_warned;
};
int statefile_buf_init(struct statefile_buf *b, unsigned max_threads);
void statefile_buf_free(struct statefile_buf *b);

/* Queue e's grant / e's leaving the table for the next commit (and mark
 * the state dirty). O(1). Caller holds d->lock. */
void statefile_note_grant(struct isod *d, const struct tracked *e);
void statefile_note_release(struct isod *d, const struct tracked *e);

/* The group commit, on the server thread, in three steps after
 * statefile_check:
 * statefile_begin (under d->lock) takes the queued changes, or, when a
 * compaction is due, a snapshot of the table; statefile_flush (without
 * the lock: disk waits never hold the lock the enforcer needs) appends or
 * rewrites; then, under d->lock, the grant table marks the grants
 * written, or undoes them when they could not be (isod_commit_end,
 * grants.h), and statefile_end drops the batch. */
enum state_commit { STATE_APPEND, STATE_REWRITE };
/* First, without the lock: is the file at the path still the open log? */
void statefile_check(struct isod *d);
enum state_commit statefile_begin(struct isod *d);
int statefile_flush(struct isod *d, enum state_commit how);
void statefile_end(struct isod *d);

/* The table as the file's text, into d->state. Caller holds d->lock. */
void statefile_snapshot(struct isod *d);
/* Write the last snapshot atomically (temp file + rename), never through
 * a symlink (the temp file is created O_EXCL|O_NOFOLLOW, a leftover
 * removed first), and only in a directory no one but root (or isod's own
 * user) can write: -EPERM otherwise (logged). The new file becomes the log
 * later changes are appended to. Server thread (or exit) only. */
int statefile_store(struct isod *d);
/* Both, for start-up and exit. Caller holds d->lock. */
int statefile_write(struct isod *d);
/* Re-adopt threads the log leaves live whose identity (start time) still
 * matches; returns how many. -ENOENT: there is no file (the first start
 * since boot, or lost); -EPERM: its directory is writable by others (the
 * record is not trusted); -EBADMSG: some records were unreadable (what
 * could be read is recovered). A last line without its newline is an
 * append cut short by a crash: ignored. The caller then sweeps for strays
 * (strays.h). A clean exit demotes every thread but keeps their records,
 * so a restart on the same file grants them again. Caller holds d->lock. */
int statefile_recover(struct isod *d);

/* The state file's directory, opened, if only root (or isod's own user)
 * can write it; *base: the file's name in it. -EPERM (logged once) when
 * others can write it. For statefile*.c. */
int statefile_open_dir(struct statefile_buf *b, const char *path, const char **base);

/* One grant record; pure, for tests and fuzzing. */
struct state_line {
	int tid, pid;
	unsigned uid;
	unsigned long long starttime;
	int policy, prio;
	unsigned limit;
	/* a reservation's, all 0 when none (reserve.h) */
	unsigned long long runtime_ns, deadline_ns, period_ns;
};
int statefile_parse_line(const char *line, struct state_line *out);
/* A grant or a release record ("- tid starttime"): STATE_REC_GRANT (all
 * of *out set), STATE_REC_RELEASE (tid and starttime set), or -EBADMSG. */
enum { STATE_REC_GRANT = 1, STATE_REC_RELEASE = 2 };
int statefile_parse_record(const char *line, struct state_line *out);
/* The live grants of a log's text (len bytes, not NUL-terminated), each
 * tid's last record deciding, in the order of those records, into *out
 * (malloc'ed, *n of them; free it). Returns 0, -EBADMSG when some line was
 * unreadable (the others are used), -ENOMEM. *torn: the last line had no
 * newline (ignored). Pure, for tests and fuzzing. */
int statefile_parse_log(const char *buf, size_t len, struct state_line **out, size_t *n,
			bool *torn);

#endif
