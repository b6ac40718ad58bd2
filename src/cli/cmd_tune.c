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
	long cpu = 0, period = 0;
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
		} else {
			return cli_usage_error("tune", "unknown tunable '%s' (iso_cpu=N or iso_period=S)",
					       argv[i]);
		}
	}

	r = iso_tune((int)cpu, (int)period, &st);
	if (r < 0)
		return cli_lib_error(r, "tune");
	cli_print_tunables(stdout, &st);
	return cli_finish_output(CLI_EXIT_OK);
}
