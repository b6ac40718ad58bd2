/* top_json.c — one frame of isoctl top as one line of JSON. */
#include "top.h"

#include <inttypes.h>
#include <math.h>

#include "iso_horizon.h"

/* Names and comms come from users and /proc: escape everything. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A time that never comes is null. */
static void json_secs(FILE *f, double s)
{
	if (isinf(s) || isnan(s))
		fputs("null", f);
	else
		fprintf(f, "%.3f", s);
}

static const char *b(bool v)
{
	return v ? "true" : "false";
}

void top_print_json(FILE *f, const struct top_view *v)
{
	const struct iso_status_info *st;
	const struct iso_users_info *us;
	char name[64];
	double use;

	fprintf(f, "{\"time_ms\":%" PRId64 ",\"up\":%s", v->now_ms, b(v->up));
	if (!v->up) {
		fputs(",\"error\":", f);
		json_str(f, v->error ? v->error : "");
		fputs("}\n", f);
		return;
	}
	st = &v->info->status;
	us = &v->info->users;
	use = (double)st->usage_milli / 1000.0;
	fprintf(f, ",\"iso_cpu\":%" PRIu32 ",\"iso_period\":%" PRIu32 ",\"usage\":%.3f"
		",\"refractory\":%s,\"band\":[%" PRId32 ",%" PRId32 "],\"ncpus\":%" PRIu32
		",\"total\":%" PRIu32 ",\"time_to_demotion\":",
		st->iso_cpu, st->iso_period_s, use, b(st->refractory), st->band_lo, st->band_hi,
		st->ncpus, st->total);
	json_secs(f, st->refractory ? 0.0 : iso_time_to_limit(use, st->iso_cpu, st->iso_period_s));
	fputs(",\"time_to_restore\":", f);
	json_secs(f, st->refractory ? iso_time_to_restore(use, st->iso_cpu, st->iso_period_s)
				    : 0.0);
	fprintf(f, ",\"user_cpu\":%" PRIu32 ",\"user_share\":%.3f,\"users\":[", us->user_cpu,
		(double)us->share_milli / 1000.0);
	for (uint32_t i = 0; i < us->count; i++) {
		const struct iso_user_info *u = &v->info->user_list[i];

		fprintf(f, "%s{\"uid\":%" PRIu32 ",\"user\":", i ? "," : "", u->uid);
		json_str(f, v->user_name ? v->user_name(u->uid, name, sizeof(name)) : "");
		fprintf(f, ",\"usage\":%.3f,\"over\":%s}", (double)u->usage_milli / 1000.0,
			b(u->flags & ISO_USER_OVER));
	}
	fputc(']', f);
	if (v->strays)
		fprintf(f, ",\"strays\":{\"policing\":%s,\"demoted\":%" PRIu64
			",\"suppressed\":%" PRIu64 ",\"exiting\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"audits\":%" PRIu64 "}",
			b(v->strays->policing), v->strays->demoted, v->strays->suppressed,
			v->strays->exiting, v->strays->lost, v->strays->sweeps);
	fprintf(f, ",\"sort\":\"%s\",\"threads\":[", top_sort_name(v->sort));
	for (size_t i = 0; i < v->nrows; i++) {
		const struct top_row *r = &v->rows[i];
		const struct iso_thread_info *t = &r->t.info;

		fprintf(f, "%s{\"tid\":%" PRId32 ",\"pid\":%" PRId32 ",\"uid\":%" PRIu32
			",\"user\":", i ? "," : "", t->tid, t->pid, t->uid);
		json_str(f, r->user);
		fputs(",\"comm\":", f);
		json_str(f, r->comm);
		fprintf(f, ",\"policy\":%" PRId32 ",\"prio\":%" PRId32 ",\"pr\":%d"
			",\"kernel_policy\":%" PRId32 ",\"kernel_prio\":%" PRId32
			",\"limit\":%" PRId32 ",\"state\":\"%s\",\"cpu\":%.3f,\"demotions\":%" PRIu32
			"}",
			t->policy, t->prio, -(int)t->prio, t->kernel_policy, t->kernel_prio,
			t->limit, r->state, r->cpu_pct, r->t.demotions);
	}
	fputs("],\"events\":[", f);
	for (uint32_t i = 0; i < v->info->nevents; i++) {
		const struct iso_event *e = &v->info->events[i];

		fprintf(f, "%s{\"seq\":%" PRIu32 ",\"time_ms\":%" PRId64 ",\"kind\":\"%s\""
			",\"tid\":%" PRId32 ",\"pid\":%" PRId32 ",\"uid\":%" PRIu32
			",\"value\":%" PRId32 "}",
			i ? "," : "", e->seq, e->time_ms, top_event_name(e->kind), e->tid, e->pid,
			e->uid, e->value);
	}
	fputs("]}\n", f);
}
