/* cmd_status.c — `isoctl status`: the budget and every ISO thread. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>


/* Fetch the status and all threads into a table of *n entries in *out
 * (the caller frees it). Returns 0 or a negative errno. */
static int fetch_all(struct iso_status_info *st, struct iso_thread_info **out,
		     size_t *n)
{
	struct iso_thread_info *t = NULL;
	size_t cap;
	int r, tries;

	r = iso_status(st, NULL, 0);
	if (r < 0)
		return r;
	cap = st->total;
	/* The table may grow between the calls: room to spare, and retry
	 * while it did not fit. */
	for (tries = 0; tries < 8; tries++) {
		struct iso_thread_info *nt;

		cap = cap + cap / 4 + 16;
		nt = realloc(t, cap * sizeof(*t));
		if (!nt) {
			free(t);
			return -ENOMEM;
		}
		t = nt;
		r = iso_status(st, t, cap);
		if (r < 0) {
			free(t);
			return r;
		}
		if ((size_t)r < cap || st->total <= cap)
			break;
		cap = st->total;
	}
	*out = t;
	*n = (size_t)r;
	return 0;
}

int cmd_status(int argc, char **argv)
{
	struct iso_status_info st = { 0 };
	struct iso_thread_info *t = NULL;
	/* uids past these are not listed (status still says how many) */
	struct iso_users_info us = { 0 };
	struct iso_user_info users[256];
	struct iso_strays_info sy;
	bool json, have_sy;
	size_t n = 0, nu;
	int r;

	if ((r = cli_parse_query_opts("status", argc, argv, &json)) != CLI_PARSE_OK)
		return r;
	if (optind < argc)
		return cli_usage_error("status", "unexpected argument '%s'", argv[optind]);

	r = fetch_all(&st, &t, &n);
	if (r < 0)
		return cli_lib_error(r, "status");
	/* per-user shares: an isod without them answers EOPNOTSUPP */
	r = iso_users(&us, users, sizeof(users) / sizeof(users[0]));
	if (r < 0)
		us.user_cpu = 0;
	nu = r < 0 ? 0 : (size_t)r;
	/* the stray auditor's counts: an isod without them, EOPNOTSUPP */
	have_sy = iso_strays(&sy) == 0;
	if (json) {
		cli_print_status_json(stdout, &st, t, n, &us, users, nu, have_sy ? &sy : NULL);
	} else {
		cli_print_status_text(stdout, &st, t, n);
		cli_print_users_text(stdout, &us, users, nu);
		if (have_sy)
			cli_print_strays_text(stdout, &sy);
	}
	free(t);
	return cli_finish_output(CLI_EXIT_OK);
}
