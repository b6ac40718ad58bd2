/* iso_burst.c — the burst guard and the stall cap (iso_burst.h). */
#include "iso_burst.h"

#include <errno.h>

void iso_burst_init(struct iso_burst *b)
{
	*b = (struct iso_burst){ .phase = ISO_BURST_IDLE,
				 .backoff_ns = ISO_BURST_BACKOFF_NS };
}

bool iso_burst_demoted(const struct iso_burst *b)
{
	return b->phase == ISO_BURST_DEMOTED;
}

/* Time between a and s the thread spent neither on a CPU nor waiting for
 * one: asleep (or stopped), up to the counters' lag. */
static int64_t slept_ns(const struct iso_burst_sample *a, const struct iso_burst_sample *s)
{
	return (s->now_ns - a->now_ns) - (int64_t)(s->cpu_ns - a->cpu_ns) -
	       (int64_t)(s->wait_ns - a->wait_ns);
}

/* More than a thread that never slept may seem to have slept (the
 * counters' lag at both ends, a wait not yet counted): the error does not
 * grow with the span, so neither does the slack. */
static bool slept_since(const struct iso_burst_sample *a, const struct iso_burst_sample *s)
{
	return slept_ns(a, s) > ISO_BURST_SLACK_NS;
}

/* Between the previous read and s: used at least half a CPU and seems not
 * to have slept — a run may have begun. */
static bool looks_running(const struct iso_burst *b, const struct iso_burst_sample *s)
{
	int64_t elapsed = s->now_ns - b->prev.now_ns;

	return (int64_t)(s->cpu_ns - b->prev.cpu_ns) * 2 >= elapsed && !slept_since(&b->prev, s);
}

/* Starved, not hogging: since its run began it waited for a CPU more than
 * 5/4 of the time it ran — preempted by higher ISO threads, like issue
 * 32's victim, which is always late and so never sleeps. Its streak
 * begins again here: the guard is for a thread that holds a CPU, and the
 * one that holds it is the preempter. Two ISO_RR spinners sharing a CPU
 * wait as long as they run (1:1) and stay suspects; three or more wait
 * longer and pass — the stall cap and the budget, which look at the CPUs
 * and not at one thread, hold those (docs/semantics.md, rule 18). */
static bool starved(const struct iso_burst *b, const struct iso_burst_sample *s)
{
	uint64_t ran = s->cpu_ns - b->start.cpu_ns, waited = s->wait_ns - b->start.wait_ns;

	return ran > 0 && waited > ran + ran / 4;
}

static bool valid_next(const struct iso_burst *b, const struct iso_burst_sample *s)
{
	return b->has_prev && s->now_ns > b->prev.now_ns && s->cpu_ns >= b->prev.cpu_ns &&
	       s->wait_ns >= b->prev.wait_ns;
}

bool iso_burst_wants_nv(const struct iso_burst *b, int64_t burst_ns,
			const struct iso_burst_sample *s)
{
	if (burst_ns <= 0 || !valid_next(b, s))
		return false;
	/* read with the block point, from the same source: always */
	if (s->has_block)
		return true;
	switch (b->phase) {
	case ISO_BURST_RUNNING:
		/* at the allowance, or when it seems to have slept (or is
		 * waiting for a CPU, which schedstat counts only once it
		 * gets one): the switch count tells */
		return (int64_t)(s->cpu_ns - b->start.cpu_ns) >= b->allowance_ns ||
		       slept_since(&b->start, s);
	case ISO_BURST_DEMOTED:
		return s->now_ns >= b->until_ns || slept_since(&b->start, s);
	default:
		return looks_running(b, s);
	}
}

static void begin_run(struct iso_burst *b, const struct iso_burst_sample *s,
		      uint64_t nv, int64_t allowance_ns)
{
	b->phase = ISO_BURST_RUNNING;
	b->start = *s;
	b->nv = nv;
	b->nv_known = true;
	b->allowance_ns = allowance_ns;
}

/* CPU time since it last blocked, exactly (-1: not known). */
static int64_t exact_run_ns(const struct iso_burst_sample *s)
{
	if (!s->has_block || s->cpu_ns < s->block_cpu_ns)
		return -1;
	return (int64_t)(s->cpu_ns - s->block_cpu_ns);
}

/* A run seen at this read: from where it really began when that is known
 * (its last block), else from this read (looks_running). */
static void begin_seen_run(struct iso_burst *b, const struct iso_burst_sample *s,
			   uint64_t nv, int64_t burst_ns)
{
	if (exact_run_ns(s) >= 0) {
		begin_run(b, s, nv, burst_ns);
		b->start.cpu_ns = s->block_cpu_ns;
	} else if (looks_running(b, s)) {
		begin_run(b, s, nv, burst_ns);
	}
}

/* A block is seen (nv changed): keep what it ends, if it is one block
 * alone (iso_burst.h undo_ok). */
static void save_undo(struct iso_burst *b, uint64_t nv)
{
	b->undo_ok = nv - b->nv == 1;
	b->undo_phase = b->phase;
	b->undo_start = b->start;
	b->undo_prev = b->prev;
	b->undo_nv = b->nv;
	b->undo_allowance_ns = b->allowance_ns;
	b->undo_until_ns = b->until_ns;
	b->undo_backoff_ns = b->backoff_ns;
}

static int demote(struct iso_burst *b, const struct iso_burst_sample *s)
{
	b->undo_ok = false;
	b->phase = ISO_BURST_DEMOTED;
	b->start = *s;
	b->until_ns = s->now_ns + b->backoff_ns;
	b->backoff_ns *= 2;
	if (b->backoff_ns > ISO_BURST_BACKOFF_MAX_NS)
		b->backoff_ns = ISO_BURST_BACKOFF_MAX_NS;
	b->demotions++;
	return ISO_BURST_DEMOTE;
}

/* One read, all of it checked valid. */
static int step(struct iso_burst *b, int64_t burst_ns, const struct iso_burst_sample *s,
		bool have_nv, uint64_t nv)
{
	/* the ask's own block, seen now: not a block (iso_burst.h) — if it
	 * came at the grant: before the thread ran on (the block point,
	 * when known), or with no sleep since beyond the counters' slack */
	if (have_nv && b->ask_block && nv != b->nv) {
		if (s->has_block ? s->block_cpu_ns <= b->ask_at.cpu_ns + ISO_BURST_ASK_CPU_NS
				 : !slept_since(&b->ask_at, s))
			b->nv++;
		b->ask_block = false;
	}
	switch (b->phase) {
	case ISO_BURST_RUNNING:
		if (!have_nv) {
			/* cannot tell: a run that seems to have slept is
			 * over (never demote without proof) */
			if (slept_since(&b->start, s))
				b->phase = ISO_BURST_IDLE;
			return ISO_BURST_KEEP;
		}
		if (nv != b->nv) {
			/* it blocked somewhere in there: the run is over,
			 * and it has earned a fresh start */
			save_undo(b, nv);
			b->backoff_ns = ISO_BURST_BACKOFF_NS;
			b->phase = ISO_BURST_IDLE;
			b->nv = nv;
			begin_seen_run(b, s, nv, burst_ns);
			if (b->phase == ISO_BURST_RUNNING &&
			    (int64_t)(s->cpu_ns - b->start.cpu_ns) >= b->allowance_ns)
				return demote(b, s);
			return ISO_BURST_KEEP;
		}
		if (starved(b, s)) {
			/* a new streak from here (its allowance as it was:
			 * a trial stays a trial) */
			b->start = *s;
			return ISO_BURST_KEEP;
		}
		if ((int64_t)(s->cpu_ns - b->start.cpu_ns) < b->allowance_ns)
			return ISO_BURST_KEEP; /* only waited for a CPU */
		return demote(b, s);
	case ISO_BURST_DEMOTED:
		if (!have_nv)
			return ISO_BURST_KEEP;
		if (nv != b->nv) {
			/* blocked: ISO again; a new run begins when one
			 * is seen, with a full allowance */
			save_undo(b, nv);
			b->backoff_ns = ISO_BURST_BACKOFF_NS;
			b->phase = ISO_BURST_IDLE;
			b->nv = nv;
			return ISO_BURST_RESTORE;
		}
		if (s->now_ns >= b->until_ns) {
			/* still has not blocked: a short trial */
			begin_run(b, s, nv, burst_ns / ISO_BURST_TRIAL_DIV);
			return ISO_BURST_RESTORE;
		}
		b->start = *s; /* seemed to sleep, did not: look again later */
		return ISO_BURST_KEEP;
	default:
		if (!have_nv)
			return ISO_BURST_KEEP;
		if (b->nv_known && nv != b->nv)
			save_undo(b, nv);
		b->nv = nv; /* the baseline a leaving is judged from */
		b->nv_known = true;
		begin_seen_run(b, s, nv, burst_ns);
		/* known exactly: already past its allowance since it blocked */
		if (b->phase == ISO_BURST_RUNNING &&
		    (int64_t)(s->cpu_ns - b->start.cpu_ns) >= b->allowance_ns)
			return demote(b, s);
		return ISO_BURST_KEEP;
	}
}

int iso_burst_feed(struct iso_burst *b, int64_t burst_ns,
		   const struct iso_burst_sample *s, bool have_nv, uint64_t nv)
{
	int r = ISO_BURST_KEEP;

	if (burst_ns < 0 || !s)
		return -EINVAL;
	if (burst_ns == 0) {
		/* off (perhaps just now, by a reload): nothing held */
		r = b->phase == ISO_BURST_DEMOTED ? ISO_BURST_RESTORE : ISO_BURST_KEEP;
		b->phase = ISO_BURST_IDLE;
		b->backoff_ns = ISO_BURST_BACKOFF_NS;
	} else if (!valid_next(b, s)) {
		/* first read, or counters that went back: a new baseline.
		 * A demoted task stays demoted until seen to block. */
		if (b->phase == ISO_BURST_RUNNING)
			b->phase = ISO_BURST_IDLE;
		if (b->phase == ISO_BURST_DEMOTED)
			b->start = *s;
	} else {
		r = step(b, burst_ns, s, have_nv, nv);
	}
	b->prev = *s;
	b->has_prev = true;
	return r;
}

int64_t iso_burst_earliest_ns(const struct iso_burst *b, int64_t burst_ns)
{
	int64_t left;

	if (burst_ns <= 0)
		return INT64_MAX;
	switch (b->phase) {
	case ISO_BURST_RUNNING:
		left = b->allowance_ns - (int64_t)(b->prev.cpu_ns - b->start.cpu_ns);
		/* less the counters' lag: the reported CPU time may catch up
		 * by a tick more than the time that passed */
		return b->prev.now_ns + (left > 0 ? left : 0) - ISO_BURST_SLACK_NS;
	case ISO_BURST_DEMOTED:
		return b->until_ns;
	default:
		/* a run can begin at the next read at the earliest and
		 * counts from there */
		return (b->has_prev ? b->prev.now_ns : 0) + burst_ns - ISO_BURST_SLACK_NS;
	}
}

int64_t iso_burst_earliest_exact_ns(const struct iso_burst *b, int64_t burst_ns, int64_t now_ns)
{
	int64_t from, left;

	if (burst_ns <= 0)
		return INT64_MAX;
	if (b->phase == ISO_BURST_DEMOTED || !b->has_prev || exact_run_ns(&b->prev) < 0)
		return iso_burst_earliest_ns(b, burst_ns);
	from = now_ns > b->prev.now_ns ? now_ns : b->prev.now_ns;
	left = (b->phase == ISO_BURST_RUNNING ? b->allowance_ns - (int64_t)(b->prev.cpu_ns - b->start.cpu_ns)
					      : burst_ns - exact_run_ns(&b->prev));
	return from + (left > 0 ? left : 0) - ISO_BURST_SLACK_NS;
}

bool iso_burst_leave(const struct iso_burst *b, int64_t burst_ns,
		     const struct iso_burst_sample *s, bool have_nv, uint64_t nv,
		     struct iso_burst_carry *c)
{
	/* the guard's own baseline: where its run or back-off began, else
	 * its last read */
	const struct iso_burst_sample *ref;
	struct iso_burst u;
	bool blocked;

	if (burst_ns <= 0 || !s || !b->has_prev)
		return false;
	if (b->undo_ok && have_nv && b->nv_known && nv == b->nv) {
		/* the last block seen is the one the leaving made (none since):
		 * judged from the state it ended */
		u = *b;
		u.phase = b->undo_phase;
		u.start = b->undo_start;
		u.prev = b->undo_prev;
		u.nv = b->undo_nv;
		u.allowance_ns = b->undo_allowance_ns;
		u.until_ns = b->undo_until_ns;
		u.backoff_ns = b->undo_backoff_ns;
		u.undo_ok = false;
		return iso_burst_leave(&u, burst_ns, s, have_nv, nv, c);
	}
	ref = b->phase == ISO_BURST_IDLE ? &b->prev : &b->start;
	if (s->cpu_ns < ref->cpu_ns)
		return false;
	if (have_nv && b->nv_known)
		blocked = nv - b->nv > ISO_BURST_OWN_BLOCKS + (b->ask_block ? 1u : 0u);
	else
		blocked = s->now_ns > ref->now_ns && s->wait_ns >= ref->wait_ns && slept_since(ref, s);
	if (blocked)
		return false;
	*c = (struct iso_burst_carry){ .backoff_ns = b->backoff_ns, .has_nv = have_nv, .nv = nv,
				       .left_ns = s->now_ns };
	if (b->phase == ISO_BURST_DEMOTED) {
		c->demoted = true;
		c->until_ns = b->until_ns;
	} else {
		/* idle: it ran at least this since the last read without a
		 * block seen — the least the run can have been */
		c->ran_ns = (int64_t)(s->cpu_ns - ref->cpu_ns);
		c->allowance_ns = b->phase == ISO_BURST_RUNNING ? b->allowance_ns : burst_ns;
		if (c->ran_ns <= 0)
			return false; /* nothing a fresh start would not have */
	}
	/* a back-off must outlive its end, with the next (doubled) one
	 * still owed; a run, as long as a first back-off would last */
	c->keep_until_ns = (c->demoted && c->until_ns > s->now_ns ? c->until_ns : s->now_ns) +
			   (b->backoff_ns > ISO_BURST_BACKOFF_NS ? b->backoff_ns : ISO_BURST_BACKOFF_NS);
	return true;
}

int iso_burst_resume(struct iso_burst *b, int64_t burst_ns, const struct iso_burst_carry *c,
		     bool same_thread, const struct iso_burst_sample *s, uint64_t nv)
{
	if (burst_ns < 0 || !s)
		return -EINVAL;
	iso_burst_init(b);
	b->prev = *s;
	b->has_prev = true;
	b->nv = nv;
	b->nv_known = true;
	b->ask_block = true;
	b->ask_at = *s;
	if (!c || burst_ns == 0 || s->now_ns >= c->keep_until_ns)
		return ISO_BURST_KEEP;
	/* its own record: a block while it was away (beyond the release's
	 * and the ask's, either side of isod's reads) is a block, as one
	 * while ISO would have been */
	if (same_thread && c->has_nv && nv - c->nv > 2 * ISO_BURST_OWN_BLOCKS)
		return ISO_BURST_KEEP;
	b->backoff_ns = c->backoff_ns > ISO_BURST_BACKOFF_NS ? c->backoff_ns : ISO_BURST_BACKOFF_NS;
	if (b->backoff_ns > ISO_BURST_BACKOFF_MAX_NS)
		b->backoff_ns = ISO_BURST_BACKOFF_MAX_NS;
	if (c->demoted) {
		if (s->now_ns < c->until_ns) {
			/* the back-off goes on: held until it blocks or ends */
			b->phase = ISO_BURST_DEMOTED;
			b->start = *s;
			b->until_ns = c->until_ns;
			return ISO_BURST_DEMOTE;
		}
		/* over while it was away: the trial it would have had */
		begin_run(b, s, nv, burst_ns / ISO_BURST_TRIAL_DIV);
		return ISO_BURST_KEEP;
	}
	/* the run goes on from where it was, with what is left of its
	 * allowance: only its CPU time as ISO counts, not what it ran while
	 * away (nor, for another thread, what that one ran before) */
	begin_run(b, s, nv, (c->allowance_ns > 0 && c->allowance_ns <= burst_ns ? c->allowance_ns
										 : burst_ns) -
				    (c->ran_ns > 0 ? c->ran_ns : 0));
	if (b->allowance_ns <= 0)
		return demote(b, s);
	return ISO_BURST_KEEP;
}

void iso_stall_init(struct iso_stall *st)
{
	st->level_ns = 0;
	st->over = false;
}

int iso_stall_feed(struct iso_stall *st, int64_t stall_ns, unsigned iso_cpu,
		   int64_t dt_ns, uint64_t iso_cpu_ns, unsigned ncpus)
{
	return iso_stall_feed_ran(st, stall_ns, iso_cpu, dt_ns, iso_cpu_ns, ncpus, ncpus);
}

int iso_stall_feed_ran(struct iso_stall *st, int64_t stall_ns, unsigned iso_cpu,
		       int64_t dt_ns, uint64_t iso_cpu_ns, unsigned ncpus, unsigned ran)
{
	bool was = st->over;
	double share, depth, c, most;

	if (stall_ns < 0 || dt_ns < 0 || ncpus == 0 || iso_cpu < 1 || iso_cpu > 100)
		return -EINVAL;
	if (stall_ns == 0) {
		iso_stall_init(st);
		return was ? 1 : 0;
	}
	if (dt_ns == 0)
		return 0;
	share = (double)iso_cpu_ns / ((double)dt_ns * (double)ncpus);
	if (share > 1.0)
		share = 1.0;
	c = (double)iso_cpu / 100.0;
	/* the most of the machine ISO can have held at once: ran threads */
	most = ran >= ncpus || ran == 0 ? 1.0 : (double)ran / (double)ncpus;
	if (share > most)
		most = share;
	/* The bucket fills by what ISO used above iso_cpu and drains by what
	 * it left below; its depth is what all CPUs at ISO fill in stall_ns.
	 * Once full it must drain completely before ISO returns: with every
	 * ISO task demoted that takes stall_ns·(100−iso_cpu)/iso_cpu, so
	 * over time the cap leaves normal tasks their (100 − iso_cpu) %. */
	depth = (double)stall_ns * (1.0 - c);
	if (most <= c) {
		/* never above iso_cpu at any moment of the interval: it drains */
		st->level_ns -= (int64_t)((c - share) * (double)dt_ns);
		if (st->level_ns < 0)
			st->level_ns = 0;
	} else {
		/* Only the interval's total is known, not when in it ISO ran,
		 * and the floor at 0 makes the order matter: the drain counts
		 * first, the fill last, as if ISO had held `most` of the
		 * machine at the end. So the level is never below what any
		 * order of the same use leaves, and a long interval (a check
		 * planned far ahead, iso_plan.h) never hides a burst at its
		 * end. With ISO at `most` throughout, or at 0, this is the
		 * plain net sum. */
		double busy = share / most * (double)dt_ns; /* time ISO held `most` */

		st->level_ns -= (int64_t)(c * ((double)dt_ns - busy));
		if (st->level_ns < 0)
			st->level_ns = 0;
		st->level_ns += (int64_t)((most - c) * busy);
	}
	if (st->level_ns > (int64_t)depth)
		st->level_ns = (int64_t)depth;
	if (!st->over && depth > 0 && st->level_ns >= (int64_t)depth)
		st->over = true;
	else if (st->over && st->level_ns == 0)
		st->over = false;
	return st->over != was ? 1 : 0;
}
