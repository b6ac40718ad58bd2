/* ratelimit.c — token buckets per uid. */
#include "ratelimit.h"

#include <string.h>

void ratelimit_init(struct ratelimit *rl, unsigned rate, unsigned burst)
{
	memset(rl, 0, sizeof(*rl));
	ratelimit_configure(rl, rate, burst);
}

void ratelimit_configure(struct ratelimit *rl, unsigned rate, unsigned burst)
{
	rl->rate = rate;
	rl->burst = burst ? burst : 1;
	for (size_t i = 0; i < RATELIMIT_USERS; i++)
		if (rl->b[i].tokens > rl->burst)
			rl->b[i].tokens = rl->burst;
}

static struct rate_bucket *bucket_for(struct ratelimit *rl, uid_t uid, int64_t now_ns)
{
	struct rate_bucket *idle = &rl->b[0];

	for (size_t i = 0; i < RATELIMIT_USERS; i++) {
		struct rate_bucket *b = &rl->b[i];
		if (b->used && b->uid == uid)
			return b;
		if (!b->used || (idle->used && b->last_ns < idle->last_ns))
			idle = b;
	}
	idle->used = true;
	idle->uid = uid;
	idle->tokens = rl->burst;
	idle->last_ns = now_ns;
	return idle;
}

bool ratelimit_take(struct ratelimit *rl, uid_t uid, int64_t now_ns)
{
	struct rate_bucket *b;

	if (uid == 0 || rl->rate == 0)
		return true;
	b = bucket_for(rl, uid, now_ns);
	if (now_ns > b->last_ns) {
		b->tokens += (double)(now_ns - b->last_ns) * rl->rate / 1e9;
		if (b->tokens > rl->burst)
			b->tokens = rl->burst;
	}
	b->last_ns = now_ns;
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}
