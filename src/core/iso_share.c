/* iso_share.c — per-user share of the ISO budget (iso_share.h). */
#include "iso_share.h"

#include <errno.h>
#include <math.h>

int iso_share_init(struct iso_share *s, struct iso_share_user *users,
		   size_t cap, unsigned user_cpu)
{
	if (user_cpu > ISO_USER_CPU_MAX || (cap && !users))
		return -EINVAL;
	s->user_cpu = user_cpu;
	s->users = users;
	s->cap = cap;
	s->end = 0;
	s->started = false;
	s->last_ns = 0;
	for (size_t i = 0; i < cap; i++)
		users[i] = (struct iso_share_user){ 0 };
	return 0;
}

int iso_share_retune(struct iso_share *s, unsigned user_cpu)
{
	if (user_cpu > ISO_USER_CPU_MAX)
		return -EINVAL;
	s->user_cpu = user_cpu;
	if (!user_cpu)
		for (size_t i = 0; i < s->end; i++)
			s->users[i].over = false;
	return 0;
}

double iso_share_limit(const struct iso_share *s, const struct iso_tunables *t)
{
	return (double)t->iso_cpu * (double)s->user_cpu / 100.0;
}

uint64_t iso_task_iso_delta(const struct iso_task *task, uint64_t cpu_ns)
{
	/* the engine's own rule (iso_engine_account) */
	if (task->has_prev && cpu_ns >= task->prev_cpu_ns && !task->demoted)
		return cpu_ns - task->prev_cpu_ns;
	return 0;
}

static struct iso_share_user *find(const struct iso_share *s, uint32_t uid)
{
	for (size_t i = 0; i < s->end; i++)
		if (s->users[i].used && s->users[i].uid == uid)
			return &s->users[i];
	return NULL;
}

void iso_share_begin(struct iso_share *s)
{
	for (size_t i = 0; i < s->end; i++) {
		s->users[i].pending_ns = 0;
		s->users[i].seen = false;
		s->users[i].changed = false;
	}
}

/* uid's entry, a new one if it has none; NULL when the table is full. */
static struct iso_share_user *find_or_add(struct iso_share *s, uint32_t uid)
{
	struct iso_share_user *u = find(s, uid);

	if (!u) {
		for (size_t i = 0; i < s->end && !u; i++)
			if (!s->users[i].used)
				u = &s->users[i];
		if (!u && s->end < s->cap)
			u = &s->users[s->end++];
		if (!u)
			return NULL;
		*u = (struct iso_share_user){ .used = true, .uid = uid };
	}
	return u;
}

int iso_share_account(struct iso_share *s, uint32_t uid, uint64_t iso_ns)
{
	struct iso_share_user *u = find_or_add(s, uid);

	if (!u)
		return -ENOSPC;
	u->pending_ns += iso_ns;
	u->seen = true;
	return 0;
}

int iso_share_charge(struct iso_share *s, uint32_t uid, uint64_t iso_ns)
{
	struct iso_share_user *u = find_or_add(s, uid);

	if (!u)
		return -ENOSPC;
	/* the carry: fed at the next commit like a late read's lump, and
	 * keeps the entry (iso_share_commit) until it is */
	u->carry_ns += iso_ns;
	return 0;
}

/* The hysteresis of iso_over_limit, for a share that need not be a whole
 * percent. */
static bool over_share(double usage, double limit, bool was_over)
{
	return usage > limit || (was_over && usage >= limit * 9.0 / 10.0);
}

int iso_share_commit(struct iso_share *s, const struct iso_tunables *t,
		     int64_t now_ns, unsigned ncpus)
{
	double dt, keep, limit;

	if (ncpus == 0 || iso_tunables_check(t, 0) < 0)
		return -EINVAL;
	if (!s->started) {
		s->started = true;
		s->last_ns = now_ns;
		return 0;
	}
	if (now_ns <= s->last_ns)
		return 0;
	dt = (double)(now_ns - s->last_ns) / 1e9;
	keep = exp(-dt / (double)t->iso_period_s);
	limit = iso_share_limit(s, t);
	for (size_t i = 0; i < s->end; i++) {
		struct iso_share_user *u = &s->users[i];
		uint64_t total, cap;
		double share;
		bool was;

		if (!u->used)
			continue;
		/* as iso_engine_commit: a lump beyond this step's capacity is
		 * fed over the next steps (at most one second of all CPUs) */
		total = u->pending_ns + u->carry_ns;
		cap = (uint64_t)(now_ns - s->last_ns) * ncpus;
		u->carry_ns = 0;
		if (total > cap) {
			u->carry_ns = total - cap;
			if (u->carry_ns > 1000000000ull * ncpus)
				u->carry_ns = 1000000000ull * ncpus;
			total = cap;
		}
		/* as iso_budget_feed: CPU time over elapsed time */
		share = (double)total / 1e9 / (dt * (double)ncpus);
		if (share > 1.0)
			share = 1.0;
		u->usage = u->usage * keep + 100.0 * share * (1.0 - keep);
		if (u->usage > 100.0)
			u->usage = 100.0;
		was = u->over;
		u->over = s->user_cpu && over_share(u->usage, limit, u->over);
		u->changed = u->over != was;
		/* a user whose tasks are all gone (or demoted) is kept while
		 * its use still counts */
		if (!u->seen && !u->over && !u->carry_ns && u->usage < 0.001)
			u->used = false;
	}
	s->last_ns = now_ns;
	while (s->end > 0 && !s->users[s->end - 1].used)
		s->end--;
	return 0;
}

bool iso_share_over(const struct iso_share *s, uint32_t uid)
{
	const struct iso_share_user *u;

	if (!iso_share_on(s))
		return false;
	u = find(s, uid);
	return u && u->over;
}

double iso_share_usage(const struct iso_share *s, uint32_t uid)
{
	const struct iso_share_user *u = find(s, uid);

	return u ? u->usage : 0.0;
}

bool iso_share_decide(const struct iso_engine *e, const struct iso_share *s,
		      uint32_t uid, struct iso_task *task)
{
	bool was = task->demoted;

	(void)iso_engine_decide(e, task);
	if (iso_share_over(s, uid))
		task->demoted = true;
	return task->demoted != was;
}
