/* iso_recent.c — the guard's records of threads that left (iso_recent.h). */
#include "iso_recent.h"

#include <string.h>

void iso_recent_init(struct iso_recent *r)
{
	memset(r, 0, sizeof(*r));
}

void iso_recent_put(struct iso_recent *r, int32_t tid, uint64_t starttime, int32_t pid,
		    uint32_t uid, const struct iso_burst_carry *c)
{
	struct iso_recent_entry *slot = NULL;

	for (unsigned i = 0; i < ISO_RECENT_CAP; i++) {
		struct iso_recent_entry *x = &r->e[i];

		if (x->used && x->tid == tid && x->starttime == starttime) {
			slot = x; /* the thread's own, replaced */
			break;
		}
		/* else a free one, else the one that ends first */
		if (!slot || (slot->used && (!x->used || x->c.keep_until_ns < slot->c.keep_until_ns)))
			slot = x;
	}
	*slot = (struct iso_recent_entry){ .used = true, .tid = tid, .pid = pid, .uid = uid,
					   .starttime = starttime, .c = *c };
}

/* Does a bind more than b? */
static bool binds_more(const struct iso_burst_carry *a, const struct iso_burst_carry *b)
{
	if (a->demoted != b->demoted)
		return a->demoted;
	if (a->demoted)
		return a->until_ns > b->until_ns ||
		       (a->until_ns == b->until_ns && a->backoff_ns > b->backoff_ns);
	return a->allowance_ns - a->ran_ns < b->allowance_ns - b->ran_ns;
}

bool iso_recent_take(struct iso_recent *r, int32_t tid, uint64_t starttime, int32_t pid,
		     uint32_t uid, int64_t now_ns, struct iso_burst_carry *out, bool *same_thread)
{
	struct iso_recent_entry *own = NULL, *user = NULL;

	for (unsigned i = 0; i < ISO_RECENT_CAP; i++) {
		struct iso_recent_entry *x = &r->e[i];

		if (!x->used)
			continue;
		if (now_ns >= x->c.keep_until_ns) {
			x->used = false;
			continue;
		}
		if (x->uid != uid)
			continue;
		/* a record of its process is one of its user's: the one
		 * that binds most of them all, so that neither a new thread
		 * nor a new process of the same user starts clean */
		if (x->tid == tid && x->starttime == starttime && x->pid == pid)
			own = x;
		else if (!user || binds_more(&x->c, &user->c))
			user = x;
	}
	*same_thread = own != NULL;
	if (own) {
		*out = own->c;
		own->used = false;
		return true;
	}
	if (user) {
		*out = user->c;
		return true;
	}
	return false;
}

unsigned iso_recent_count(const struct iso_recent *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ISO_RECENT_CAP; i++)
		n += r->e[i].used;
	return n;
}
