/* tasks_index.c — O(1) lookups for the task table (tasks_index.h). */
#include "tasks_index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t pow2_at_least(size_t n)
{
	size_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static size_t hash32(uint32_t v, size_t mask)
{
	return ((size_t)v * 2654435761u) & mask; /* Knuth's multiplicative */
}

int task_index_init(struct task_index *x, size_t cap)
{
	memset(x, 0, sizeof(*x));
	if (cap == 0 || cap > INT32_MAX / 8)
		return -EINVAL;
	x->cap = cap;
	x->nbuckets = pow2_at_least(cap);
	x->uid_slots = pow2_at_least(4 * cap);
	x->head = malloc(x->nbuckets * sizeof(*x->head));
	x->next = malloc(cap * sizeof(*x->next));
	x->tid_of = calloc(cap, sizeof(*x->tid_of));
	x->free_slots = malloc(cap * sizeof(*x->free_slots));
	x->uids = calloc(x->uid_slots, sizeof(*x->uids));
	x->uids_spare = calloc(x->uid_slots, sizeof(*x->uids_spare));
	if (!x->head || !x->next || !x->tid_of || !x->free_slots || !x->uids || !x->uids_spare) {
		task_index_free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < x->nbuckets; i++)
		x->head[i] = -1;
	/* the lowest slot on top: the table stays packed at its start, so
	 * its walks (which stop at the last used slot) stay short */
	for (size_t i = 0; i < cap; i++)
		x->free_slots[i] = (int32_t)(cap - 1 - i);
	x->nfree = cap;
	return 0;
}

void task_index_free(struct task_index *x)
{
	free(x->head);
	free(x->next);
	free(x->tid_of);
	free(x->free_slots);
	free(x->uids);
	free(x->uids_spare);
	memset(x, 0, sizeof(*x));
}

int32_t task_index_find(const struct task_index *x, pid_t tid)
{
	if (tid <= 0 || !x->head)
		return -1;
	for (int32_t s = x->head[hash32((uint32_t)tid, x->nbuckets - 1)]; s >= 0; s = x->next[s])
		if (x->tid_of[s] == tid)
			return s;
	return -1;
}

static struct uid_threads *uid_slot(const struct task_index *x, uid_t uid)
{
	size_t mask = x->uid_slots - 1;

	/* never full: keys are at most half the slots (uid_add) */
	for (size_t i = hash32((uint32_t)uid, mask);; i = (i + 1) & mask)
		if (!x->uids[i].used || x->uids[i].uid == uid)
			return &x->uids[i];
}

/* Keep only uids with threads: run when half the slots hold keys. They
 * are placed afresh in the spare table, which then becomes the table
 * (removing keys in place would break the probe chains after them). */
static void uid_rebuild(struct task_index *x)
{
	struct uid_threads *old = x->uids;

	x->uids = x->uids_spare;
	x->uids_spare = old;
	memset(x->uids, 0, x->uid_slots * sizeof(*x->uids));
	x->uid_keys = 0;
	for (size_t i = 0; i < x->uid_slots; i++) {
		if (!old[i].used || old[i].count == 0)
			continue;
		*uid_slot(x, old[i].uid) = old[i];
		x->uid_keys++;
	}
}

static void uid_add(struct task_index *x, uid_t uid)
{
	struct uid_threads *c = uid_slot(x, uid);

	if (!c->used) {
		if (x->uid_keys + 1 > x->uid_slots / 2) {
			uid_rebuild(x);
			c = uid_slot(x, uid);
		}
		*c = (struct uid_threads){ .uid = uid, .count = 0, .used = 1 };
		x->uid_keys++;
	}
	c->count++;
}

int32_t task_index_take(struct task_index *x, pid_t tid, uid_t uid)
{
	int32_t s;
	size_t b;

	if (tid <= 0 || x->nfree == 0)
		return -1;
	s = x->free_slots[--x->nfree];
	b = hash32((uint32_t)tid, x->nbuckets - 1);
	x->tid_of[s] = tid;
	x->next[s] = x->head[b];
	x->head[b] = s;
	uid_add(x, uid);
	return s;
}

void task_index_put(struct task_index *x, int32_t slot, uid_t uid)
{
	struct uid_threads *c;
	int32_t *link;

	if (slot < 0 || (size_t)slot >= x->cap || x->tid_of[slot] == 0)
		return;
	link = &x->head[hash32((uint32_t)x->tid_of[slot], x->nbuckets - 1)];
	while (*link >= 0 && *link != slot)
		link = &x->next[*link];
	if (*link == slot)
		*link = x->next[slot];
	x->tid_of[slot] = 0;
	x->free_slots[x->nfree++] = slot;
	c = uid_slot(x, uid);
	if (c->used && c->count > 0)
		c->count--;
}

size_t task_index_uid_count(const struct task_index *x, uid_t uid)
{
	const struct uid_threads *c;

	if (!x->uids)
		return 0;
	c = uid_slot(x, uid);
	return c->used ? c->count : 0;
}
