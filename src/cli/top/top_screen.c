/* top_screen.c — isoctl top on a terminal (ncurses): refresh, keys,
 * resizes. Drawing is top_render's lines, one per screen row. */
#include "top.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void draw(struct top_source *s, enum top_sort sort, const struct top_filter *f,
		 double delay_s)
{
	static struct top_row rows[ISO_TOP_THREADS];
	struct top_view v = { .up = s->err == 0, .error = s->error, .socket = iso_socket_path(),
			      .info = &s->cur,
			      .strays = s->have_strays ? &s->strays : NULL, .rows = rows, .sort = sort, .filter = *f,
			      .delay_s = delay_s, .now_ms = now_ms(), .user_name = top_user_name,
			      .keys = true };
	int w = COLS > 1 ? COLS : 1, h = LINES > 1 ? LINES : 1;
	char *buf;
	int *attr;
	size_t n;

	memcpy(rows, s->rows, s->nrows * sizeof(rows[0]));
	v.nrows = top_filter_rows(rows, s->nrows, f);
	top_sort_rows(rows, v.nrows, sort);
	buf = malloc((size_t)h * (size_t)(w + 1));
	attr = malloc((size_t)h * sizeof(*attr));
	erase();
	if (buf && attr) {
		n = top_render(&v, w, h, buf, (size_t)h, attr);
		for (size_t i = 0; i < n; i++) {
			int a = attr[i] == TOP_ATTR_HEAD ? A_REVERSE
				: attr[i] == TOP_ATTR_WARN ? A_BOLD
				: attr[i] == TOP_ATTR_TITLE ? A_BOLD : A_NORMAL;

			attron(a);
			mvaddnstr((int)i, 0, buf + i * (size_t)(w + 1), w);
			attroff(a);
		}
	}
	free(buf);
	free(attr);
	refresh();
}

/* A line typed at the bottom row ("" when given up). */
static void prompt(const char *what, char *out, int cap)
{
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_REVERSE);
	addstr(what);
	attroff(A_REVERSE);
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(out, cap - 1) == ERR)
		out[0] = '\0';
	noecho();
	curs_set(0);
}

int top_run_screen(struct top_source *s, enum top_sort sort, struct top_filter filter,
		   double delay_s)
{
	int64_t next = 0;
	char line[64];

	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	for (;;) {
		int64_t t = mono_ms();
		int ch;

		if (t >= next) {
			(void)top_fetch(s);
			next = t + (int64_t)(delay_s * 1000.0);
			draw(s, sort, &filter, delay_s);
		}
		timeout((int)(next - t > 0 ? next - t : 0));
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		switch (ch) {
		case 's':
			sort = top_sort_next(sort);
			break;
		case 'u':
			prompt("user (empty: all): ", line, sizeof(line));
			filter.by_uid = line[0] && top_parse_user(line, &filter.uid) == 0;
			break;
		case 'p':
			prompt("pid (empty: all): ", line, sizeof(line));
			filter.pid = (pid_t)atoi(line);
			if (filter.pid < 0)
				filter.pid = 0;
			break;
		case ' ':
			next = 0;
			continue;
		case ERR:
			continue;
		default: /* KEY_RESIZE among them: draw again at the new size */
			break;
		}
		draw(s, sort, &filter, delay_s);
	}
	endwin();
	return 0;
}
