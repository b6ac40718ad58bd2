/* accounting_check.c — the accounting setting and the checks on values
 * read from the BPF accounting's maps (accounting_check.h). */
#include "accounting_check.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

/* The largest thread id Linux hands out (PID_MAX_LIMIT, 2^22). */
#define TID_MAX 4194304u

/* A switch-in this far in isod's future is a wrong entry, not a race
 * between the program's clock read and isod's (both CLOCK_MONOTONIC). */
#define SINCE_SLACK_NS 1000000000ull

int accounting_parse(const char *s, enum accounting_kind *out)
{
	if (!strcasecmp(s, "auto"))
		*out = ACCOUNTING_AUTO;
	else if (!strcasecmp(s, "bpf"))
		*out = ACCOUNTING_BPF;
	else if (!strcasecmp(s, "proc"))
		*out = ACCOUNTING_PROC;
	else
		return -EINVAL;
	return 0;
}

const char *accounting_kind_name(enum accounting_kind k)
{
	return k == ACCOUNTING_BPF ? "bpf" : k == ACCOUNTING_PROC ? "proc" : "auto";
}

int acct_thread_cpu(const struct acct_thread *v, uint64_t now, uint64_t prev, uint64_t *cpu_ns)
{
	uint64_t live = 0, sum;

	if (v->since_ns == ACCT_UNSEEN)
		return -EAGAIN;
	if (v->since_ns) {
		if (v->since_ns > now + SINCE_SLACK_NS)
			return -EBADMSG;
		live = now > v->since_ns ? now - v->since_ns : 0;
	}
	if (__builtin_add_overflow(v->total_ns, live, &sum))
		return -EBADMSG;
	*cpu_ns = sum < prev ? prev : sum;
	return 0;
}

bool acct_stray_valid(const struct acct_stray *s, int band_lo, int band_hi)
{
	return s->tid >= 1 && s->tid <= TID_MAX && s->tgid >= 1 && s->tgid <= TID_MAX &&
	       band_lo >= 1 && s->prio >= (unsigned)band_lo && s->prio <= (unsigned)band_hi &&
	       s->uid != 0 && s->uid != (uint32_t)-1;
}

bool acct_lineage_valid(const struct acct_lineage *l)
{
	return (l->kind == ACCT_LINEAGE_FORK || l->kind == ACCT_LINEAGE_EXEC) && l->parent >= 1 &&
	       l->parent <= TID_MAX && l->tid >= 1 && l->tid <= TID_MAX;
}

bool acct_event_valid(const struct acct_event *ev, size_t cap)
{
	return (ev->kind == ACCT_EV_WAKE || ev->kind == ACCT_EV_EXIT) && ev->tid >= 1 &&
	       ev->tid <= TID_MAX && ev->slot < cap && ev->slot < ACCT_MAX_SLOTS;
}

uint64_t acct_start_ticks(uint64_t start_ns, long hz)
{
	/* the kernel's nsec_to_clock_t, for a USER_HZ that divides 10^9 */
	if (hz <= 0 || hz > 1000000000L || 1000000000L % hz != 0)
		return UINT64_MAX;
	return start_ns / (uint64_t)(1000000000L / hz);
}

int acct_band_sum(const struct acct_cpu *cpus, size_t n, uint64_t *sum)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		if (__builtin_add_overflow(s, cpus[i].band_ns, &s))
			return -EOVERFLOW;
	*sum = s;
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct acct_entry *)a)->tid, y = ((const struct acct_entry *)b)->tid;

	return x < y ? -1 : x > y;
}

void acct_entries_sort(struct acct_entry *e, size_t n)
{
	if (n > 1)
		qsort(e, n, sizeof(*e), by_tid);
}

const struct acct_entry *acct_entry_find(const struct acct_entry *e, size_t n, uint32_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].tid == tid)
			return &e[mid];
		if (e[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
