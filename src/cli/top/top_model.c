/* top_model.c — isoctl top's rows: state, CPU %, filtering, sorting and
 * how values are written (top.h). Pure. */
#include "top.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iso_policy.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static const char *const sort_names[TOP_SORT_N] = {
	[TOP_SORT_CPU] = "cpu",
	[TOP_SORT_PRIO] = "prio",
	[TOP_SORT_DEMOTIONS] = "demotions",
	[TOP_SORT_TID] = "tid",
	[TOP_SORT_USER] = "user",
};

const char *top_sort_name(enum top_sort s)
{
	return (unsigned)s < TOP_SORT_N ? sort_names[s] : "?";
}

int top_sort_parse(const char *name, enum top_sort *out)
{
	for (int i = 0; i < TOP_SORT_N; i++)
		if (strcmp(name, sort_names[i]) == 0) {
			*out = (enum top_sort)i;
			return 0;
		}
	return -EINVAL;
}

enum top_sort top_sort_next(enum top_sort s)
{
	return (enum top_sort)(((unsigned)s + 1) % TOP_SORT_N);
}

const char *top_thread_state(const struct iso_thread_info *t, const struct iso_status_info *st)
{
	if (!(t->flags & ISO_THREAD_DEMOTED))
		return "iso";
	return st->refractory ? "refractory" : "demoted";
}

double top_cpu_pct(uint64_t prev_ns, uint64_t cur_ns, int64_t dt_ns, uint32_t cpu_milli)
{
	if (dt_ns <= 0 || prev_ns > cur_ns)
		return (double)cpu_milli / 1000.0;
	return (double)(cur_ns - prev_ns) * 100.0 / (double)dt_ns;
}

bool top_row_matches(const struct top_row *r, const struct top_filter *f)
{
	if (f->by_uid && r->t.info.uid != (uint32_t)f->uid)
		return false;
	return f->pid == 0 || r->t.info.pid == (int32_t)f->pid;
}

size_t top_filter_rows(struct top_row *rows, size_t n, const struct top_filter *f)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (top_row_matches(&rows[i], f))
			rows[k++] = rows[i];
	return k;
}

/* qsort has no context argument: the key for the comparison running now.
 * isoctl sorts from one thread only. */
static enum top_sort sort_key;

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int c = 0;

	switch (sort_key) {
	case TOP_SORT_CPU: c = cmp_num(b->cpu_pct, a->cpu_pct); break;
	case TOP_SORT_PRIO: c = cmp_num(b->t.info.prio, a->t.info.prio); break;
	case TOP_SORT_DEMOTIONS: c = cmp_num(b->t.demotions, a->t.demotions); break;
	case TOP_SORT_USER: c = strcmp(a->user, b->user); break;
	case TOP_SORT_TID: case TOP_SORT_N: break;
	}
	/* ties (and the tid order itself): by thread id, so rows do not jump */
	return c ? c : cmp_num(a->t.info.tid, b->t.info.tid);
}

void top_sort_rows(struct top_row *rows, size_t n, enum top_sort s)
{
	sort_key = s;
	if (n > 1)
		qsort(rows, n, sizeof(rows[0]), cmp_rows);
}

void top_fmt_iso(char *buf, size_t cap, int32_t policy, int32_t prio)
{
	if (policy == ISO_SCHED_ISO_RR)
		snprintf(buf, cap, "RR %d", (int)prio);
	else if (policy == ISO_SCHED_ISO_FIFO)
		snprintf(buf, cap, "FIFO %d", (int)prio);
	else
		snprintf(buf, cap, "-");
}

void top_fmt_kernel(char *buf, size_t cap, int32_t kernel_policy, int32_t kernel_prio)
{
	switch (kernel_policy < 0 ? -1 : kernel_policy & ~SCHED_RESET_ON_FORK) {
	case 0: snprintf(buf, cap, "OTHER"); break;
	case 1: snprintf(buf, cap, "FIFO %d", (int)kernel_prio); break;
	case 2: snprintf(buf, cap, "RR %d", (int)kernel_prio); break;
	case 3: snprintf(buf, cap, "BATCH"); break;
	case 5: snprintf(buf, cap, "IDLE"); break;
	case 7: snprintf(buf, cap, "EXT"); break;
	default: snprintf(buf, cap, "-"); break;
	}
}

void top_fmt_duration(char *buf, size_t cap, double s)
{
	if (isinf(s) || isnan(s) || s > 1e9)
		snprintf(buf, cap, "never");
	else if (s < 10.0)
		snprintf(buf, cap, "%.1f s", s < 0 ? 0.0 : s);
	else if (s < 60.0)
		snprintf(buf, cap, "%.0f s", s);
	else if (s < 3600.0)
		snprintf(buf, cap, "%d min %d s", (int)(s / 60), (int)fmod(s, 60.0));
	else
		snprintf(buf, cap, "%d h %d min", (int)(s / 3600), (int)fmod(s / 60.0, 60.0));
}

void top_fmt_bar(char *buf, size_t cap, int width, double usage, double limit)
{
	int inner = width - 2, fill, mark;

	if (cap == 0)
		return;
	if (inner < 1 || (size_t)width + 1 > cap) {
		buf[0] = '\0';
		return;
	}
	if (usage < 0)
		usage = 0;
	if (usage > 100)
		usage = 100;
	fill = (int)lround(usage * inner / 100.0);
	mark = limit > 0 && limit < 100 ? (int)lround(limit * inner / 100.0) : -1;
	if (mark >= inner)
		mark = inner - 1;
	buf[0] = '[';
	for (int i = 0; i < inner; i++)
		buf[1 + i] = i == mark ? '|' : i < fill ? '#' : '.';
	buf[width - 1] = ']';
	buf[width] = '\0';
}

const char *top_event_name(uint32_t kind)
{
	switch (kind) {
	case ISO_EVENT_GRANT: return "grant";
	case ISO_EVENT_DEMOTE: return "demote";
	case ISO_EVENT_RESTORE: return "restore";
	case ISO_EVENT_REFUSED: return "refused";
	case ISO_EVENT_STRAY: return "stray";
	default: return "event";
	}
}

const char *top_demote_reason(int32_t value)
{
	switch (value) {
	case ISO_DEMOTE_BUDGET: return "over iso_cpu";
	case ISO_DEMOTE_LIMIT: return "over its own limit";
	case ISO_DEMOTE_SHARE: return "its user over user_cpu";
	case ISO_DEMOTE_BURST: return "burst guard";
	case ISO_DEMOTE_STALL: return "stall cap";
	default: return "";
	}
}
