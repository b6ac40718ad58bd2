/* cmd_doctor.c — `isoctl doctor`: options, then every check of
 * doctor/ in order, then the report as text or JSON. */
#include "cli.h"
#include "doctor/doctor.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#define SELFTEST_SECONDS 5

int cmd_doctor(int argc, char **argv)
{
	enum { OPT_JSON = CLI_OPT_FIRST_VERB_OPT, OPT_TEST, OPT_ROOT, OPT_NO_BUS };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "test", no_argument, NULL, OPT_TEST },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		/* Hidden: read proc/, sys/, boot/, etc/ under DIR (the tests'
		 * fixture trees); the system bus is not asked then. */
		{ "root", required_argument, NULL, OPT_ROOT },
		/* Hidden: do not ask the system bus (the integration tests). */
		{ "no-bus", no_argument, NULL, OPT_NO_BUS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct doc_report rep = { 0 };
	struct doc_ctx ctx = { 0 };
	const char *root = NULL;
	bool json = false, test = false, bus = true;
	int c, r, status;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_TEST:
			test = true;
			break;
		case OPT_ROOT:
			if (!optarg[0] || optarg[0] != '/')
				return cli_usage_error("doctor", "--root: needs an absolute path");
			root = optarg;
			break;
		case OPT_NO_BUS:
			bus = false;
			break;
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket("doctor", optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help("doctor");
		default:
			return cli_getopt_error("doctor", c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("doctor", "unexpected argument '%s'", argv[optind]);

	doc_ctx_load(&ctx, root);
	ctx.uid = getuid();
	ctx.isoctl_version = ISOCTL_VERSION;
	ctx.bus_owner = root || !bus ? NULL : doc_bus_owner_busctl;
	doc_query_isod(&ctx.isod);
	doc_find_isod(&ctx, ctx.isod.socket, &ctx.conf);

	doc_check_isod(&rep, &ctx);
	doc_check_rtkit(&rep, &ctx);
	doc_check_kernel(&rep, &ctx);
	doc_check_rt_protection(&rep, &ctx);
	doc_check_irqs(&rep, &ctx);
	doc_check_limits(&rep, &ctx);
	doc_check_power(&rep, &ctx);
	if (test)
		doc_selftest(&rep, &ctx, SELFTEST_SECONDS);

	if (json) {
		doc_print_json(stdout, &rep, ISOCTL_VERSION);
	} else {
		printf("isoctl %s doctor: what decides whether an unprivileged audio thread "
		       "gets real time\n\n", ISOCTL_VERSION);
		doc_print_text(stdout, &rep);
	}
	status = doc_worst(&rep) == DOC_FAIL ? CLI_EXIT_FAILED : CLI_EXIT_OK;
	doc_report_free(&rep);
	doc_ctx_free(&ctx);
	return cli_finish_output(status);
}
