/* iso_recent.h — what the burst guard saw of threads that left ISO
 * lately, for the next fresh grant (issue 28: re-grant cycling must gain
 * nothing). A thread that releases ISO, exits or is forgotten leaves its
 * guard's record (iso_burst_leave); a fresh grant continues the record of
 * the same thread (TID and start time), else of its process, else of its
 * user (iso_burst_resume), so that neither asking again nor a new thread
 * of the same process or user starts the guard from zero. A record lasts
 * its back-off window (iso_burst_carry.keep_until_ns), then is dropped.
 * A thread that starts from another's record starts held (a back-off)
 * or with less allowance (a run) until it blocks — the cost to an honest
 * thread of a user whose other thread spun just before: one block.
 *
 * Fixed capacity, no allocation: ISO_RECENT_CAP entries, each call one
 * pass over them (O(ISO_RECENT_CAP), constant). When full, the record
 * that ends first gives way — a flood of leavers can push out an old
 * record, never grow the table. Pure, like the engine: time is handed in.
 */
#ifndef ISO_RECENT_H
#define ISO_RECENT_H

#include <stdbool.h>
#include <stdint.h>

#include "iso_burst.h"

#define ISO_RECENT_CAP 64

struct iso_recent_entry {
	bool used;
	int32_t tid, pid;
	uint32_t uid;
	uint64_t starttime;
	struct iso_burst_carry c;
};

struct iso_recent {
	struct iso_recent_entry e[ISO_RECENT_CAP];
};

void iso_recent_init(struct iso_recent *r);
/* Keep c for thread tid (of start time starttime) of process pid, user
 * uid, in place of any record that thread had. */
void iso_recent_put(struct iso_recent *r, int32_t tid, uint64_t starttime, int32_t pid,
		    uint32_t uid, const struct iso_burst_carry *c);
/* The record a fresh grant at now_ns continues, into *out: the thread's
 * own (*same_thread true; taken out, the grant carries it on), else the
 * one of its user's — of its own process or another — that binds most
 * (a back-off over a run; the later end; the least allowance left),
 * which stays for the user's other threads. Expired records are dropped.
 * false: none. */
bool iso_recent_take(struct iso_recent *r, int32_t tid, uint64_t starttime, int32_t pid,
		     uint32_t uid, int64_t now_ns, struct iso_burst_carry *out, bool *same_thread);
/* Records in use (tests, status). */
unsigned iso_recent_count(const struct iso_recent *r);

#endif
