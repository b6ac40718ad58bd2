/* table.c — which threads got ISO through this shim, and what the program
 * asked for. Lock-free and allocation-free (usable from signal handlers):
 * a fixed open-addressing table of 64-bit atomic words, each holding
 *   tid (bits 0..31) | prio (32..39) | policy (40..47) | reset (48) | used (49)
 *   | residue (50)
 * 'residue' marks a thread released from ISO that keeps the kernel's
 * RESET_ON_FORK flag isod gave it (unprivileged threads cannot drop it),
 * so the getters can hide what the program never asked for.
 * Words only ever go from 0 to a tid, never back, so a probe may stop at
 * the first empty word; a slot whose 'used' bit is clear is free for reuse.
 * If the table is full the grant still stands; only the getters then show
 * the kernel's view. */
#include "shim.h"

#include <stdatomic.h>
#include <stdint.h>

#define SLOTS 1024u /* power of two */
#define PROBES 64u

#define W_USED (UINT64_C(1) << 49)
#define W_RESET (UINT64_C(1) << 48)
#define W_RESIDUE (UINT64_C(1) << 50)

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2,
	       "the tid table needs lock-free 64-bit atomics");

static _Atomic uint64_t slots[SLOTS];

static uint32_t w_tid(uint64_t w) { return (uint32_t)w; }

static uint64_t make(pid_t tid, int policy, int prio)
{
	uint64_t w = (uint32_t)tid;

	w |= (uint64_t)((unsigned)prio & 0xffu) << 32;
	w |= (uint64_t)((unsigned)policy & 0xffu) << 40;
	if (policy & SCHED_RESET_ON_FORK)
		w |= W_RESET;
	return w | W_USED;
}

static unsigned hash(pid_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (SLOTS - 1);
}

bool shim_table_get(pid_t tid, struct shim_req *out)
{
	unsigned h = hash(tid);

	if (tid <= 0)
		return false;
	for (unsigned i = 0; i < PROBES; i++) {
		uint64_t w = atomic_load_explicit(&slots[(h + i) & (SLOTS - 1)],
						  memory_order_acquire);
		if (w == 0)
			return false;
		if (w_tid(w) == (uint32_t)tid && (w & W_USED)) {
			out->prio = (int)((w >> 32) & 0xff);
			out->policy = (int)((w >> 40) & 0xff);
			if (w & W_RESET)
				out->policy |= SCHED_RESET_ON_FORK;
			return true;
		}
	}
	return false;
}

static void clear(pid_t tid, uint64_t mark)
{
	unsigned h = hash(tid);

	if (tid <= 0)
		return;
	/* All of them: two racing inserts of one tid may have made two. */
	for (unsigned i = 0; i < PROBES; i++) {
		_Atomic uint64_t *s = &slots[(h + i) & (SLOTS - 1)];
		uint64_t w = atomic_load_explicit(s, memory_order_acquire);

		if (w == 0)
			return;
		uint64_t to = (uint64_t)(uint32_t)tid | mark;

		while (w_tid(w) == (uint32_t)tid && w != to &&
		       (mark || (w & (W_USED | W_RESIDUE))) &&
		       !atomic_compare_exchange_weak_explicit(
			       s, &w, to,
			       memory_order_acq_rel, memory_order_acquire))
			;
	}
}

void shim_table_set(pid_t tid, int policy, int prio)
{
	uint64_t nw = make(tid, policy, prio);
	unsigned h = hash(tid);

	if (tid <= 0)
		return;
	/* Update an entry of this tid if there is one... */
	for (unsigned i = 0; i < PROBES; i++) {
		_Atomic uint64_t *s = &slots[(h + i) & (SLOTS - 1)];
		uint64_t w = atomic_load_explicit(s, memory_order_acquire);

		if (w == 0)
			break;
		while (w_tid(w) == (uint32_t)tid) {
			if (atomic_compare_exchange_weak_explicit(
				    s, &w, nw, memory_order_acq_rel,
				    memory_order_acquire))
				return;
		}
	}
	/* ...else take an empty or unused slot. */
	for (unsigned i = 0; i < PROBES; i++) {
		_Atomic uint64_t *s = &slots[(h + i) & (SLOTS - 1)];
		uint64_t w = atomic_load_explicit(s, memory_order_acquire);

		while (!(w & W_USED)) {
			if (atomic_compare_exchange_weak_explicit(
				    s, &w, nw, memory_order_acq_rel,
				    memory_order_acquire))
				return;
		}
	}
}

void shim_table_clear(pid_t tid)
{
	clear(tid, 0);
}

void shim_table_set_residue(pid_t tid)
{
	clear(tid, W_RESIDUE);
}

bool shim_table_residue(pid_t tid)
{
	unsigned h = hash(tid);

	if (tid <= 0)
		return false;
	for (unsigned i = 0; i < PROBES; i++) {
		uint64_t w = atomic_load_explicit(&slots[(h + i) & (SLOTS - 1)],
						  memory_order_acquire);
		if (w == 0)
			return false;
		if (w_tid(w) == (uint32_t)tid && (w & W_RESIDUE))
			return true;
	}
	return false;
}
