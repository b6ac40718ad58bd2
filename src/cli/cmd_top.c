/* cmd_top.c — `isoctl top`: options, then the screen, one plain frame
 * (--once) or a stream of JSON frames (--json). */
#include "cli.h"
#include "top/top.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One frame to stdout, text or JSON. */
static void print_frame(struct top_source *s, enum top_sort sort, const struct top_filter *f,
			double delay_s, bool json)
{
	static struct top_row rows[ISO_TOP_THREADS];
	struct top_view v = { .up = s->err == 0, .error = s->error, .socket = iso_socket_path(),
			      .info = &s->cur,
			      .strays = s->have_strays ? &s->strays : NULL, .rows = rows, .sort = sort, .filter = *f,
			      .delay_s = delay_s, .now_ms = wall_ms(), .user_name = top_user_name };
	struct winsize ws;
	int width = 80;
	size_t max, n;
	char *buf;

	memcpy(rows, s->rows, s->nrows * sizeof(rows[0]));
	v.nrows = top_filter_rows(rows, s->nrows, f);
	top_sort_rows(rows, v.nrows, sort);
	if (json) {
		top_print_json(stdout, &v);
		fflush(stdout);
		return;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		width = ws.ws_col;
	max = top_render_max_lines(&v);
	buf = malloc(max * (size_t)(width + 1));
	if (!buf)
		return;
	n = top_render(&v, width, 0, buf, max, NULL);
	for (size_t i = 0; i < n; i++)
		puts(buf + i * (size_t)(width + 1));
	free(buf);
}

int cmd_top(int argc, char **argv)
{
	enum { OPT_ONCE = CLI_OPT_FIRST_VERB_OPT, OPT_JSON, OPT_SORT, OPT_USER, OPT_PID };
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "user", required_argument, NULL, OPT_USER },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct top_source src;
	struct top_filter filter = { 0 };
	enum top_sort sort = TOP_SORT_CPU;
	bool once = false, json = false;
	double delay = 1.0;
	long iterations = 0, pid;
	char *end;
	int c, r;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":hd:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay >= 0.1 && delay <= 3600))
				return cli_usage_error("top", "-d: seconds from 0.1 to 3600, not '%s'", optarg);
			break;
		case 'n':
			if ((r = cli_parse_int("top", "-n", optarg, 1, 1000000, &iterations)))
				return r;
			break;
		case OPT_ONCE:
			once = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_SORT:
			if (top_sort_parse(optarg, &sort) < 0)
				return cli_usage_error("top", "--sort: cpu, prio, demotions, tid or user, not '%s'", optarg);
			break;
		case OPT_USER:
			if (top_parse_user(optarg, &filter.uid) < 0)
				return cli_usage_error("top", "--user: no user '%s'", optarg);
			filter.by_uid = true;
			break;
		case OPT_PID:
			if ((r = cli_parse_int("top", "--pid", optarg, 1, 0x7fffffff, &pid)))
				return r;
			filter.pid = (pid_t)pid;
			break;
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket("top", optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help("top");
		default:
			return cli_getopt_error("top", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("top", "unexpected argument '%s'", argv[optind]);
	if (once)
		iterations = 1;
	if (!once && !json && iterations == 0) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return cli_usage_error("top", "needs a terminal; use --once or --json");
		return top_run_screen(&src, sort, filter, delay);
	}
	for (long i = 0; iterations == 0 || i < iterations; i++) {
		if (i)
			usleep((useconds_t)(delay * 1e6));
		(void)top_fetch(&src);
		print_frame(&src, sort, &filter, delay, json);
	}
	/* one frame for scripts: its exit status says whether isod answered */
	if (src.err < 0)
		return cli_finish_output(cli_unreachable(src.err) ? CLI_EXIT_UNREACHABLE : CLI_EXIT_FAILED);
	return cli_finish_output(CLI_EXIT_OK);
}
