/* top_render.c — one frame of isoctl top as lines of text: the same
 * lines go to the screen and, with no height limit, to --once. */
#include "top.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "iso_horizon.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define ISO_TOP_THREADS_TEXT STR(ISO_TOP_THREADS)

struct out {
	char *buf;
	int width;
	size_t n, max;
	int *attr;
};

static void emit(struct out *o, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct out *o, int attr, const char *fmt, ...)
{
	va_list ap;

	if (o->n >= o->max)
		return;
	va_start(ap, fmt);
	/* truncated at the width: vsnprintf stops there */
	vsnprintf(o->buf + o->n * (size_t)(o->width + 1), (size_t)o->width + 1, fmt, ap);
	va_end(ap);
	if (o->attr)
		o->attr[o->n] = attr;
	o->n++;
}

static void fmt_clock(char *buf, size_t cap, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, cap, "%H:%M:%S", &tm))
		snprintf(buf, cap, "--:--:--");
}

static double pct(uint32_t milli)
{
	return (double)milli / 1000.0;
}

static const char *name_of(const struct top_view *v, uint32_t uid, char *buf, size_t cap)
{
	if (v->user_name)
		return v->user_name(uid, buf, cap);
	snprintf(buf, cap, "%" PRIu32, uid);
	return buf;
}

static void title(struct out *o, const struct top_view *v)
{
	const struct iso_status_info *st = &v->info->status;
	char clock[16], left[160];
	int pad;

	fmt_clock(clock, sizeof(clock), v->now_ms);
	snprintf(left, sizeof(left),
		 "isod: iso_cpu %" PRIu32 "%% over %" PRIu32 " s, %" PRIu32 " CPUs, band %" PRId32
		 "..%" PRId32 ", %" PRIu32 " ISO threads",
		 st->iso_cpu, st->iso_period_s, st->ncpus, st->band_lo, st->band_hi, st->total);
	pad = o->width - (int)strlen(left) - (int)strlen(clock);
	if (pad < 1)
		pad = 1;
	emit(o, TOP_ATTR_TITLE, "%s%*s%s", left, pad, "", clock);
}

static void budget(struct out *o, const struct top_view *v)
{
	const struct iso_status_info *st = &v->info->status;
	double use = pct(st->usage_milli);
	char bar[512], when[32];
	int bw = o->width - 26;

	if (bw > (int)sizeof(bar) - 1)
		bw = (int)sizeof(bar) - 1;
	top_fmt_bar(bar, sizeof(bar), bw < 12 ? 12 : bw, use, st->iso_cpu);
	emit(o, TOP_ATTR_NONE, "ISO %s %6.1f%% of %" PRIu32 "%%", bar, use, st->iso_cpu);
	if (st->refractory) {
		top_fmt_duration(when, sizeof(when),
				 iso_time_to_restore(use, st->iso_cpu, st->iso_period_s));
		emit(o, TOP_ATTR_WARN,
		     "REFRACTORY: ISO threads demoted; restored in %s at the earliest", when);
	} else {
		top_fmt_duration(when, sizeof(when),
				 iso_time_to_limit(use, st->iso_cpu, st->iso_period_s));
		emit(o, TOP_ATTR_NONE, "budget ok: next possible demotion in %s (at the earliest)",
		     when);
	}
}

/* The stray auditor's line: isod demotes every thread kernel RT in the
 * band it does not police; a lost kernel report is a warning too. */
static void strays(struct out *o, const struct top_view *v)
{
	const struct iso_strays_info *sy = v->strays;

	if (!sy)
		return;
	if (!sy->policing) {
		emit(o, TOP_ATTR_NONE, "strays: not policed (sweep_orphans off)");
		return;
	}
	emit(o, sy->demoted || sy->lost ? TOP_ATTR_WARN : TOP_ATTR_NONE,
	     "strays: %" PRIu64 " demoted (%" PRIu64 " warnings suppressed), %" PRIu64
	     " kernel reports lost, %" PRIu64 " full audits",
	     sy->demoted, sy->suppressed, sy->lost, sy->sweeps);
}

/* How many uids get a line of their own. */
static size_t users_shown(const struct top_view *v, int height)
{
	size_t n = v->info->users.count;

	if (!v->info->users.user_cpu)
		return 0;
	if (height > 0) {
		size_t most = height >= 40 ? 8 : height >= 30 ? 4 : 2;

		if (n > most)
			n = most;
	}
	return n;
}

/* The lines of the per-user shares: a heading, the uids, "+N more". */
static size_t user_lines_wanted(const struct top_view *v, int height)
{
	size_t n = users_shown(v, height);

	if (!v->info->users.user_cpu)
		return 0;
	return 1 + n + (n < v->info->users.total ? 1 : 0);
}

static void users(struct out *o, const struct top_view *v, int height)
{
	const struct iso_users_info *us = &v->info->users;
	size_t shown = users_shown(v, height);
	char bar[256], name[64];
	int bw = o->width - 44;

	if (!us->user_cpu)
		return;
	if (bw > (int)sizeof(bar) - 1)
		bw = (int)sizeof(bar) - 1;
	emit(o, TOP_ATTR_NONE, "user_cpu %" PRIu32 "%% of iso_cpu: %.1f%% of the CPUs per user",
	     us->user_cpu, pct(us->share_milli));
	for (size_t i = 0; i < shown; i++) {
		const struct iso_user_info *u = &v->info->user_list[i];

		top_fmt_bar(bar, sizeof(bar), bw < 12 ? 12 : bw, pct(u->usage_milli),
			    pct(us->share_milli));
		emit(o, (u->flags & ISO_USER_OVER) ? TOP_ATTR_WARN : TOP_ATTR_NONE,
		     "  %-10.10s %s %6.1f%% of %.1f%%%s", name_of(v, u->uid, name, sizeof(name)),
		     bar, pct(u->usage_milli), pct(us->share_milli),
		     (u->flags & ISO_USER_OVER) ? "  OVER" : "");
	}
	if (shown < us->total)
		emit(o, TOP_ATTR_NONE, "  +%zu more users (isoctl status lists them all)",
		     (size_t)us->total - shown);
}

/* COMMAND takes what the fixed columns leave, up to a whole comm. */
static int comm_width(int width)
{
	int w = width - 72;

	return w < 4 ? 4 : w > 16 ? 16 : w;
}

static void table_head(struct out *o, const struct top_view *v)
{
	char filt[64] = "";
	size_t total = v->info->status.total;

	if (v->filter.by_uid || v->filter.pid) {
		char name[40];
		int k = 0;

		if (v->filter.by_uid)
			k = snprintf(filt, sizeof(filt), "  user %s",
				     name_of(v, (uint32_t)v->filter.uid, name, sizeof(name)));
		if (v->filter.pid && k >= 0 && (size_t)k < sizeof(filt))
			snprintf(filt + k, sizeof(filt) - (size_t)k, "  pid %d", (int)v->filter.pid);
	}
	emit(o, TOP_ATTR_NONE, "THREADS %zu shown of %zu%s  sort: %s%s", v->nrows, total,
	     total > v->info->status.count ? " (only the first " ISO_TOP_THREADS_TEXT " come)" : "",
	     top_sort_name(v->sort), filt);
	emit(o, TOP_ATTR_HEAD, "%7s %7s %-8s %-*s %-7s %3s %-7s %4s %-10s %5s %4s", "TID", "PID",
	     "USER", comm_width(o->width), "COMMAND", "ISO", "PR", "KERNEL", "LIM", "STATE",
	     "CPU%", "DEM");
}

static void row(struct out *o, const struct top_row *r)
{
	const struct iso_thread_info *t = &r->t.info;
	char iso[16], kern[16], lim[16];
	int cw = comm_width(o->width);

	top_fmt_iso(iso, sizeof(iso), t->policy, t->prio);
	top_fmt_kernel(kern, sizeof(kern), t->kernel_policy, t->kernel_prio);
	if (t->limit > 0)
		snprintf(lim, sizeof(lim), "%d%%", (int)t->limit);
	else
		snprintf(lim, sizeof(lim), "-");
	emit(o, strcmp(r->state, "iso") ? TOP_ATTR_WARN : TOP_ATTR_NONE,
	     "%7" PRId32 " %7" PRId32 " %-8.8s %-*.*s %-7s %3d %-7s %4s %-10s %5.1f %4" PRIu32,
	     t->tid, t->pid, r->user, cw, cw, r->comm, iso, -(int)t->prio, kern, lim, r->state,
	     r->cpu_pct, r->t.demotions);
}

static const char *comm_of(const struct top_view *v, int32_t tid)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i].t.info.tid == tid)
			return v->rows[i].comm;
	return "";
}

static void event(struct out *o, const struct top_view *v, const struct iso_event *e)
{
	char clock[16], name[40], what[96];

	fmt_clock(clock, sizeof(clock), e->time_ms);
	name_of(v, e->uid, name, sizeof(name));
	switch (e->kind) {
	case ISO_EVENT_GRANT: snprintf(what, sizeof(what), "ISO priority %d", (int)e->value); break;
	case ISO_EVENT_DEMOTE: snprintf(what, sizeof(what), "%s", top_demote_reason(e->value)); break;
	case ISO_EVENT_REFUSED:
		snprintf(what, sizeof(what), "asked by pid %d: %s", (int)e->pid,
			 strerror(-e->value));
		break;
	case ISO_EVENT_STRAY:
		snprintf(what, sizeof(what), "unpoliced kernel RT %d in the band", (int)e->value);
		break;
	default: what[0] = '\0'; break;
	}
	emit(o, e->kind == ISO_EVENT_DEMOTE || e->kind == ISO_EVENT_STRAY ? TOP_ATTR_WARN
									 : TOP_ATTR_NONE,
	     "%s %-8s tid %-7d %-15s %-8.8s %s", clock, top_event_name(e->kind), (int)e->tid,
	     comm_of(v, e->tid), name, what);
}

static const char keys_help[] = "q quit  s sort  u user filter  p pid filter  space refresh";

size_t top_render_max_lines(const struct top_view *v)
{
	if (!v->up)
		return 5;
	return 8 + (v->strays ? 1 : 0) + user_lines_wanted(v, 0) + v->nrows + v->info->nevents + 2;
}

size_t top_render(const struct top_view *v, int width, int height, char *buf, size_t max,
		  int *attr)
{
	struct out o = { .buf = buf, .width = width, .max = max, .attr = attr };
	size_t ulines, top, evl, rows_room, shown, nev;

	if (width < 1)
		return 0;
	if (height > 0 && (size_t)height < o.max)
		o.max = (size_t)height;
	if (!v->up) {
		char clock[16];

		fmt_clock(clock, sizeof(clock), v->now_ms);
		emit(&o, TOP_ATTR_WARN, "isod not running (%s)", v->socket ? v->socket : "?");
		emit(&o, TOP_ATTR_NONE, "%s", v->error ? v->error : "");
		emit(&o, TOP_ATTR_NONE, "%s: trying again every %.1f s", clock, v->delay_s);
		if (v->keys)
			emit(&o, TOP_ATTR_HEAD, "%s", keys_help);
		return o.n;
	}
	title(&o, v);
	budget(&o, v);
	strays(&o, v);
	ulines = user_lines_wanted(v, height);
	users(&o, v, height);
	nev = v->info->nevents;
	top = 3 + (v->strays ? 1 : 0) + ulines + 2;
	if (height <= 0) {
		rows_room = v->nrows;
		evl = nev;
	} else {
		size_t left = (size_t)height > top + (v->keys ? 1 : 0) ?
				      (size_t)height - top - (v->keys ? 1 : 0) : 0;
		size_t ev_most = left / 3 > 2 ? left / 3 : 2;

		evl = nev < ev_most ? nev : ev_most;
		/* the events' heading takes a line too */
		rows_room = left > evl + 1 ? left - evl - 1 : 0;
		if (rows_room > v->nrows) { /* room to spare: more events */
			size_t spare = rows_room - v->nrows;

			evl = nev < evl + spare ? nev : evl + spare;
			rows_room = left > evl + 1 ? left - evl - 1 : 0;
		}
	}
	table_head(&o, v);
	shown = v->nrows <= rows_room ? v->nrows : rows_room > 0 ? rows_room - 1 : 0;
	for (size_t i = 0; i < shown; i++)
		row(&o, &v->rows[i]);
	if (shown < v->nrows)
		emit(&o, TOP_ATTR_NONE, "  ... %zu more", v->nrows - shown);
	else if (height > 0)
		for (size_t i = shown; i < rows_room; i++)
			emit(&o, TOP_ATTR_NONE, "%s", "");
	emit(&o, TOP_ATTR_HEAD, "EVENTS%s", nev ? "" : " (none yet)");
	for (size_t i = nev - evl; i < nev; i++)
		event(&o, v, &v->info->events[i]);
	if (v->keys && height > 0) {
		while (o.n + 1 < o.max)
			emit(&o, TOP_ATTR_NONE, "%s", "");
		emit(&o, TOP_ATTR_HEAD, "%s", keys_help);
	}
	return o.n;
}
