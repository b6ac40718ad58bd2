/* tasks_index.h — the task table's lookups in O(1) (tasks.h): slot by
 * TID, a free slot, and threads per uid. A request (SET, GET, a fork to
 * adopt) must not cost more with 4096 ISO threads than with one.
 *
 * Slots are indices into the table's array; the index never owns
 * entries. Sized once for the table's capacity; no allocation after
 * task_index_init. Not locked: the table's caller holds its lock.
 *
 * Return contract: task_index_init 0 or -ENOMEM; lookups -1 for none. */
#ifndef ISOD_TASKS_INDEX_H
#define ISOD_TASKS_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct uid_threads {
	uid_t uid;
	uint32_t count; /* 0: a uid seen before, now without threads */
	int used;
};

struct task_index {
	size_t cap;
	/* TID -> slot: chains through next[], heads per bucket */
	size_t nbuckets;    /* a power of two >= cap */
	int32_t *head;      /* nbuckets entries, -1: empty */
	int32_t *next;      /* cap entries */
	pid_t *tid_of;      /* cap entries: the TID in each slot (0: free) */
	/* free slots, a stack */
	int32_t *free_slots;
	size_t nfree;
	/* uid -> threads: linear probing; keys without threads stay until
	 * the next rebuild (when half the slots hold keys) */
	struct uid_threads *uids;
	struct uid_threads *uids_spare; /* as large: where a rebuild places them */
	size_t uid_slots;   /* a power of two >= 4 * cap */
	size_t uid_keys;
};

int task_index_init(struct task_index *x, size_t cap);
void task_index_free(struct task_index *x);
/* The slot holding tid, or -1. */
int32_t task_index_find(const struct task_index *x, pid_t tid);
/* Take a free slot for tid (of user uid), or -1 when full. */
int32_t task_index_take(struct task_index *x, pid_t tid, uid_t uid);
/* Give slot back (it held tid of uid). */
void task_index_put(struct task_index *x, int32_t slot, uid_t uid);
size_t task_index_uid_count(const struct task_index *x, uid_t uid);

#endif
