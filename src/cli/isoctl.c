/* isoctl.c — isosched's command line: global options and the verb table;
 * each verb parses its own options (cmd_*.c). */
#include "cli.h"

#include <getopt.h>
#include <string.h>

#ifndef ISOCTL_VERSION
#error "meson.build must define ISOCTL_VERSION"
#endif

const struct cli_verb cli_verbs[] = {
	{ "run", cmd_run, "run a command with its main thread in ISO" },
	{ "set", cmd_set, "put a thread into ISO, change or release it" },
	{ "get", cmd_get, "show a thread's ISO state" },
	{ "status", cmd_status, "show the budget and all ISO threads" },
	{ "tune", cmd_tune, "change iso_cpu / iso_period (root)" },
	{ "doctor", cmd_doctor, "check what decides whether audio threads get real time" },
	{ "top", cmd_top, "watch the budget, ISO threads and events live" },
	{ "help", cmd_help, "show help" },
	{ NULL, NULL, NULL }
};

const struct cli_verb *cli_find_verb(const char *name)
{
	const struct cli_verb *v;

	for (v = cli_verbs; v->name; v++)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

int cmd_help(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return cli_print_help("help");
	if (argc > 2)
		return cli_usage_error("help", "one command at a time");
	if (argc == 2 && !cli_find_verb(argv[1]))
		return cli_usage_error("help", "unknown command '%s'", argv[1]);
	return cli_print_help(argc == 2 ? argv[1] : NULL);
}

enum { OPT_VERSION = CLI_OPT_FIRST_VERB_OPT };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 }
	};
	const struct cli_verb *v;
	int c, r;

	opterr = 0;
	/* '+': stop at the verb; the rest belongs to it. */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket(NULL, optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help(NULL);
		case OPT_VERSION:
			puts("isoctl " ISOCTL_VERSION);
			return cli_finish_output(CLI_EXIT_OK);
		default:
			return cli_getopt_error(NULL, c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error(NULL, "no command given (run, set, get, status, top, tune, doctor, help)");
	v = cli_find_verb(argv[optind]);
	if (!v)
		return cli_usage_error(NULL, "unknown command '%s'", argv[optind]);
	return v->fn(argc - optind, argv + optind);
}
