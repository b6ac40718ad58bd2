/* cmd_tune.c — `isoctl tune`: set isod's budget tunables (root only). */
#include "cli.h"

#include <getopt.h>
#include <string.h>

/* "key=value" with key exactly name: value, else NULL. */
static const char *value_of(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

int cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct iso_status_info st = { 0 };
	long cpu = 0, period = 0, user_cpu = -1;
	int c, r, i;

	opterr = 0;
	optind = 0; /* glibc: 0 re-reads the optstring's ordering flag */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket("tune", optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help("tune");
		default:
			return cli_getopt_error("tune", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("tune", "nothing to set: give iso_cpu=N and/or iso_period=S");
	for (i = optind; i < argc; i++) {
		const char *v;

		if ((v = value_of(argv[i], "iso_cpu"))) {
			if (cpu)
				return cli_usage_error("tune", "iso_cpu given twice");
			if ((r = cli_parse_int("tune", "iso_cpu", v, 1, 100, &cpu)))
				return r;
		} else if ((v = value_of(argv[i], "iso_period"))) {
			if (period)
				return cli_usage_error("tune", "iso_period given twice");
			if ((r = cli_parse_int("tune", "iso_period", v, 1, 3600, &period)))
				return r;
		} else if ((v = value_of(argv[i], "user_cpu"))) {
			if (user_cpu >= 0)
				return cli_usage_error("tune", "user_cpu given twice");
			if ((r = cli_parse_int("tune", "user_cpu", v, 0, 100, &user_cpu)))
				return r;
		} else {
			return cli_usage_error("tune", "unknown tunable '%s' (iso_cpu=N, iso_period=S or user_cpu=P)",
					       argv[i]);
		}
	}

	/* user_cpu is its own request: an isod without per-user shares
	 * refuses it (EBADMSG), and the budget is then left alone too */
	if (user_cpu >= 0) {
		r = iso_tune_user_cpu((int)user_cpu);
		if (r < 0)
			return cli_lib_error(r, "tune");
	}
	r = iso_tune((int)cpu, (int)period, &st);
	if (r < 0)
		return cli_lib_error(r, "tune");
	cli_print_tunables(stdout, &st);
	if (user_cpu >= 0)
		printf("user_cpu=%ld\n", user_cpu);
	return cli_finish_output(CLI_EXIT_OK);
}
