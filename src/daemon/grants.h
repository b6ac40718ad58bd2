/* grants.h — granting and withdrawing ISO, and keeping the scheduler
 * where isod put each thread (grants.c).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_GRANTS_H
#define ISOD_GRANTS_H

#include "backend.h"
#include "isod.h"
#include "info.h" /* isod_thread_info, isod_status_info */

/* A grant request after authorization: ids are isod's own. */
struct grant {
	pid_t pid, tid;
	uid_t uid;
	/* checked on the pinned thread before anything is changed: its owner
	 * (real or effective uid) must be `by` unless by is root, and, when
	 * not 0, its start time must be starttime */
	uid_t by;
	uint64_t starttime;
	int policy;   /* ISO_POLICY_ISO_RR / _ISO_FIFO */
	int prio;
	unsigned limit;
	uint32_t flags;
	/* NULL, or a reservation to admit and run as SCHED_DEADLINE
	 * (reserve.h); refused with -EBUSY and *dl_left (may be NULL) set to
	 * what the user could still have. NULL on a thread that holds one
	 * gives it back. */
	const struct iso_reserve_params *dl;
	uint64_t *dl_left;
	/* NULL, or the thread already pinned (tasks_open) and its status
	 * read after that, its process (pid), owner (by) and start time
	 * checked by the caller: a new entry takes this handle (its statfd
	 * then -1) once it still works, instead of opening and reading its
	 * own. Left open when not taken: the caller closes it. */
	struct tracked *pin;
};

/* Caller holds d->lock for all below. */
/* e is pinned (its handle open): is its thread (still) owned by `by` —
 * real or effective uid; root (0) may name any — and, when starttime is
 * not 0, started then? -EPERM / -ESRCH if not. Owner and start time are
 * read through the pinned identity, so a reused TID cannot pass. */
int isod_confirm(struct isod *d, const struct tracked *e, uid_t by, uint64_t starttime);
int isod_grant(struct isod *d, const struct grant *g, struct tracked **out);
/* isod_grant's steps, each one job, in the order it runs them (a
 * tracked thread, e, skips admit and join: it is in the table already).
 * 0 or a negative errno unless said otherwise; nothing is left half done.
 *   check: the band has g->prio: its kernel priority (>= 0); a tracked
 *     e is still g's thread, owned by g->by, and takes g->limit;
 *   admit: the thread's payer (*charged, charge.h) and the table have
 *     room (-EAGAIN): the counts; who may ask is admit.h's, before;
 *   join: pin it (or take g->pin), put it in the table, count it
 *     (accounting), follow its forks, take its baseline and its burst
 *     guard's carry (leave.h);
 *   apply: its policy to the backend; on failure it leaves the table;
 *   record: the events ring and the state file's queue;
 *   announce: the log line, and the enforcer's plan. */
int grant_check(struct isod *d, const struct grant *g, struct tracked *e);
int grant_admit(struct isod *d, const struct grant *g, uid_t *charged);
int grant_join(struct isod *d, const struct grant *g, uid_t charged, struct tracked **out);
int grant_apply(struct isod *d, const struct grant *g, struct tracked *e, int kprio, bool fresh);
void grant_record(struct isod *d, const struct tracked *e);
void grant_announce(struct isod *d, struct tracked *e, bool fresh);
int isod_release(struct isod *d, pid_t tid);
/* Drop e from the table. If its thread is gone (exited, or replaced by a
 * sibling's exec), its process is queued for a stray check (strays.h):
 * isod never forgets a thread without making sure nothing of its process
 * stays kernel RT unpoliced. */
void isod_forget(struct isod *d, struct tracked *e);
/* Is every tracked thread where isod put it? An owner may lower its RT
 * thread's priority or drop it to SCHED_OTHER (the kernel lets it); put
 * back isod's grant or demotion. Returns how many were corrected. Not
 * full: a thread the accounting saw leave the CPU as it should be is
 * taken as it is (accounting.h seen_policy); full: the kernel is asked
 * about each. */
int isod_verify(struct isod *d, bool full);
/* The state file was (ok) or could not be (!ok) written with every
 * grant made since the last call. When not, those grants are undone —
 * demoted and forgotten: no thread stays RT without a record. Returns how
 * many were undone. */
int isod_recorded(struct isod *d, bool ok);
/* The same for the grants of one appended batch only (statefile.h):
 * O(batch), not O(threads). */
int isod_recorded_keys(struct isod *d, const struct state_key *keys, unsigned n, bool ok);
/* The end of a group commit (statefile.h) that wrote (ok) or could not
 * write what statefile_begin took: the grants in it marked recorded, or
 * undone; then the batch is dropped (statefile_end). */
void isod_commit_end(struct isod *d, enum state_commit how, bool ok);
void isod_demote_all(struct isod *d);

/* For police.c, the enforcer's reconciliation: what e's scheduler should
 * have now on backend b (the engine's decision, except that a backend
 * keeping the budget is not told its demotions), and putting it there,
 * identity checked before and after, noting what was applied. */
enum applied grants_wanted(const struct backend *b, const struct tracked *e);
int grants_apply(struct isod *d, struct tracked *e);

#endif
