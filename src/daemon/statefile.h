/* statefile.h — the threads isod has made kernel RT, on disk, so that an
 * isod restarted after SIGKILL or a crash finds and re-polices them: no
 * unpoliced RT thread survives the daemon.
 *
 * Return contract: 0 / a count, or a negative errno. */
#ifndef ISOD_STATEFILE_H
#define ISOD_STATEFILE_H

#include "isod.h"

/* Write the table atomically (temp file + rename). Caller holds d->lock. */
int statefile_write(struct isod *d);
/* Re-adopt threads listed in the file whose identity (start time) still
 * matches; returns how many. -ENOENT: there is no file (state lost, or the
 * first start since boot); -EBADMSG: some lines were unreadable (what
 * could be read is recovered). Either way the caller cannot know every
 * thread it made RT and sweeps (sweep.h). A clean exit leaves a file
 * with no entries, so a missing file really means lost state.
 * Caller holds d->lock. */
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
