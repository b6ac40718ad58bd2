/* iso_share.h — per-user share of the ISO budget (`user_cpu`). The global
 * budget (iso_engine.h) lets one user's runaway make every ISO thread of
 * every user refractory. With user_cpu set, each uid's ISO use is also
 * averaged, exactly as the global use is (same exponential, same time
 * constant iso_period), and a uid whose use goes above user_cpu percent of
 * iso_cpu loses ISO for *its* threads alone, with the patch's hysteresis
 * (back below 90 % of its share). The global rule still binds everyone.
 * user_cpu 0 turns it off: the decisions are then the engine's alone.
 *
 * Pure like the engine: the caller hands in time and CPU time; the user
 * table is storage the caller provides. One step, beside the engine's:
 *     iso_share_begin(s);
 *     for each task read: iso_share_account(s, uid, iso_task_iso_delta(task, cpu_ns));
 *                         (before iso_engine_account*, which moves the baseline)
 *     iso_share_commit(s, &tun, now_ns, ncpus);
 *     for each task: if (iso_share_decide(e, s, uid, task)) act on task->demoted
 *
 * Return contract: int functions give 0 or -EINVAL / -ENOSPC. */
#ifndef ISO_SHARE_H
#define ISO_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iso_budget.h"
#include "iso_engine.h"

#define ISO_USER_CPU_MAX 100

struct iso_share_user {
	bool used;
	uint32_t uid;
	double usage;        /* this uid's ISO use, percent of all CPUs */
	bool over;           /* above its share, and not yet below 90 % of it */
	bool changed;        /* over changed in the last commit (for a log line) */
	uint64_t pending_ns; /* ISO CPU time accounted in this step */
	uint64_t carry_ns;   /* beyond what the CPUs could do in the last step (a
			      * late read's lump): fed next, as the engine does */
	bool seen;           /* accounted a task this step (or over): kept */
};

struct iso_share {
	unsigned user_cpu;   /* percent of iso_cpu one uid may hold; 0 = off */
	struct iso_share_user *users;
	size_t cap;
	size_t end;          /* entries at or past end are all free: loops stop there */
	bool started;
	int64_t last_ns;
};

/* users: cap entries of storage (one per possible ISO thread is always
 * enough). -EINVAL for user_cpu above 100. */
int iso_share_init(struct iso_share *s, struct iso_share_user *users,
		   size_t cap, unsigned user_cpu);
/* Takes effect at the next step; averages are kept. Turning it off
 * clears every user's "over". */
int iso_share_retune(struct iso_share *s, unsigned user_cpu);
static inline bool iso_share_on(const struct iso_share *s)
{
	return s->user_cpu != 0;
}
/* A uid's share of all CPUs, percent: iso_cpu · user_cpu / 100. */
double iso_share_limit(const struct iso_share *s, const struct iso_tunables *t);

/* The CPU time a task used as ISO since its previous read — what
 * iso_engine_account will count for it. Call before that moves the
 * baseline. */
uint64_t iso_task_iso_delta(const struct iso_task *task, uint64_t cpu_ns);

void iso_share_begin(struct iso_share *s);
/* Count iso_ns of ISO CPU time for uid in this step. -ENOSPC when the
 * table is full (the time then counts for nobody: never a false
 * demotion). */
int iso_share_account(struct iso_share *s, uint32_t uid, uint64_t iso_ns);
/* iso_share_account for a task that leaves (iso_engine_charge), at any
 * moment, inside a step or between two: counted at the next commit, not
 * cleared by the next iso_share_begin. -ENOSPC as iso_share_account. */
int iso_share_charge(struct iso_share *s, uint32_t uid, uint64_t iso_ns);
/* Feed every uid's average over the time since the previous commit (the
 * same formula as iso_budget_feed) and decide who is over its share.
 * Users with no task any more and no use left are forgotten. */
int iso_share_commit(struct iso_share *s, const struct iso_tunables *t,
		     int64_t now_ns, unsigned ncpus);
/* Is uid over its share now? (false when off or unknown) */
bool iso_share_over(const struct iso_share *s, uint32_t uid);
/* uid's current use, percent of all CPUs (0 when unknown). */
double iso_share_usage(const struct iso_share *s, uint32_t uid);

/* The engine's decision for task (iso_engine_decide: global budget, own
 * limit), then demoted as well while its uid is over its share. Returns
 * true when task->demoted changed. With shares off it is exactly
 * iso_engine_decide. (An own limit's hysteresis sees a share demotion as
 * its own: such a task returns once use is below 90 % of its limit.) */
bool iso_share_decide(const struct iso_engine *e, const struct iso_share *s,
		      uint32_t uid, struct iso_task *task);

#endif
