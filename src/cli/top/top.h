/* top.h — isoctl top: the live view of isod's budget, threads and
 * recent events. The model (rows, sorting, filtering, formatting), the
 * text frame and the JSON frame are pure (top_model.c, top_render.c,
 * top_json.c) and unit-tested; fetching (top_source.c) and the screen
 * (top_screen.c) are not.
 *
 * Return contract: int functions return 0 or a negative errno. */
#ifndef ISOCTL_TOP_H
#define ISOCTL_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "isosched.h"

enum top_sort {
	TOP_SORT_CPU,       /* CPU % over the last interval, highest first */
	TOP_SORT_PRIO,      /* ISO priority, highest first */
	TOP_SORT_DEMOTIONS, /* demotions so far, most first */
	TOP_SORT_TID,       /* thread id, lowest first */
	TOP_SORT_USER,      /* user name, then tid */
	TOP_SORT_N
};
const char *top_sort_name(enum top_sort s);
/* -EINVAL for a name that is none of top_sort_name's. */
int top_sort_parse(const char *name, enum top_sort *out);
enum top_sort top_sort_next(enum top_sort s);

/* One line of the thread table. */
struct top_row {
	struct iso_top_thread t;
	char user[33];     /* user name, or the uid in digits */
	char comm[17];     /* the thread's name, "?" if unreadable */
	double cpu_pct;    /* percent of one CPU over the last interval */
	const char *state; /* "iso", "demoted" or "refractory" */
};

/* The thread's state as top shows it: demoted while the whole budget is
 * over (refractory) is "refractory", demoted for any other reason
 * (its own limit, its user's share, the burst guard) "demoted". */
const char *top_thread_state(const struct iso_thread_info *t, const struct iso_status_info *st);
/* CPU % of one CPU from two reads dt_ns apart; without a usable earlier
 * read (prev_ns > cur_ns or dt_ns <= 0), isod's own figure (cpu_milli). */
double top_cpu_pct(uint64_t prev_ns, uint64_t cur_ns, int64_t dt_ns, uint32_t cpu_milli);

struct top_filter {
	bool by_uid;
	uid_t uid;
	pid_t pid; /* 0: any */
};
bool top_row_matches(const struct top_row *r, const struct top_filter *f);
/* Keep the rows f matches (in place); returns how many are left. */
size_t top_filter_rows(struct top_row *rows, size_t n, const struct top_filter *f);
void top_sort_rows(struct top_row *rows, size_t n, enum top_sort s);

/* Formatting. Each writes a NUL-terminated string into buf of cap bytes. */
/* "RR 10", "FIFO 99"; "-" for NORMAL. */
void top_fmt_iso(char *buf, size_t cap, int32_t policy, int32_t prio);
/* "OTHER", "RR 11", "FIFO 98", "EXT", "-" when unknown. */
void top_fmt_kernel(char *buf, size_t cap, int32_t kernel_policy, int32_t kernel_prio);
/* "0.4 s", "12 s", "3 min 5 s", "never" (INFINITY). */
void top_fmt_duration(char *buf, size_t cap, double seconds);
/* A bar of width cells (brackets included) for usage against a scale of
 * 0..100 %, with '|' where the limit is: "[#####.....|....]". */
void top_fmt_bar(char *buf, size_t cap, int width, double usage_pct, double limit_pct);
/* "grant", "demote", ...; "event" for an unknown kind. */
const char *top_event_name(uint32_t kind);
/* Why a DEMOTE event happened: "over iso_cpu", ...; "" if unknown. */
const char *top_demote_reason(int32_t value);

/* Everything one frame shows. */
struct top_view {
	bool up;                   /* isod answered */
	const char *error;         /* when not: why */
	const char *socket;        /* the socket asked */
	const struct iso_top_info *info; /* when up */
	/* the stray auditor's counts; NULL: an isod without them */
	const struct iso_strays_info *strays;
	const struct top_row *rows;      /* filtered and sorted */
	size_t nrows;
	enum top_sort sort;
	struct top_filter filter;
	double delay_s;
	int64_t now_ms;            /* wall clock of the frame */
	/* uid to name, for the share lines and events */
	const char *(*user_name)(uint32_t uid, char *buf, size_t cap);
	bool keys;                 /* show the key help line (the screen) */
};

/* One frame as lines of at most width columns, into out (a caller's
 * array of max_lines strings of width + 1 bytes each, row-major, so line
 * i is out + i·(width + 1)). height 0: no limit (every thread and event;
 * --once); otherwise the frame fits height lines. Returns the number of
 * lines. attr[i] (may be NULL) gets TOP_ATTR_* for line i. */
enum { TOP_ATTR_NONE, TOP_ATTR_HEAD, TOP_ATTR_WARN, TOP_ATTR_TITLE };
size_t top_render(const struct top_view *v, int width, int height, char *out,
		  size_t max_lines, int *attr);
/* The number of lines top_render may need with height 0. */
size_t top_render_max_lines(const struct top_view *v);

/* One frame as one line of JSON (a stream: one object per line). */
void top_print_json(FILE *f, const struct top_view *v);

/* Fetching (top_source.c). */
struct top_source {
	struct iso_top_info cur, prev;
	bool have_prev;
	int64_t cur_mono_ns, prev_mono_ns;
	struct top_row rows[ISO_TOP_THREADS];
	size_t nrows;
	int err;              /* of the last fetch, 0 if isod answered */
	struct iso_strays_info strays; /* when have_strays */
	bool have_strays;
	char error[160];
};
/* Ask isod once; on success build the rows (all of them, unfiltered,
 * unsorted) with CPU % against the previous answer. */
int top_fetch(struct top_source *s);
/* uid to name via the password database ("1234" when none). */
const char *top_user_name(uint32_t uid, char *buf, size_t cap);
/* A user name or uid in digits to a uid; -ENOENT when neither. */
int top_parse_user(const char *s, uid_t *out);

/* The screen (top_screen.c): runs until q; returns the exit status. */
int top_run_screen(struct top_source *s, enum top_sort sort, struct top_filter filter,
		   double delay_s);

#endif
