/* cmd_run.c — `isoctl run`: put the calling thread into ISO, then exec the
 * command, which keeps the policy (a thread's policy survives execve). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iso_policy.h"

#ifndef ISOSCHED_PRELOAD_PATH
#error "meson.build must define ISOSCHED_PRELOAD_PATH"
#endif

enum { OPT_PRELOAD = CLI_OPT_FIRST_VERB_OPT, OPT_LIMIT, OPT_RESERVE };

/* Prepend the preload shim to LD_PRELOAD (unless it is already there). */
static int add_preload(void)
{
	const char *shim = getenv("ISOSCHED_PRELOAD");
	const char *old = getenv("LD_PRELOAD");
	char *val;
	int r;

	if (!shim || !*shim)
		shim = ISOSCHED_PRELOAD_PATH;
	/* ld.so splits LD_PRELOAD at ':' and ' '. */
	if (strpbrk(shim, ": \t")) {
		fprintf(stderr, "isoctl run: preload shim '%s': "
			"path must not contain ':' or blanks\n", shim);
		return CLI_EXIT_FAILED;
	}
	if (access(shim, R_OK) < 0) {
		fprintf(stderr, "isoctl run: preload shim %s: %s "
			"(set ISOSCHED_PRELOAD)\n", shim, strerror(errno));
		return CLI_EXIT_FAILED;
	}
	if (old && *old) {
		/* Already listed? Then leave LD_PRELOAD as it is. */
		size_t n = strlen(shim);
		const char *p = old;

		while ((p = strstr(p, shim)) != NULL) {
			bool starts = p == old || p[-1] == ':' || p[-1] == ' ';
			bool ends = p[n] == '\0' || p[n] == ':' || p[n] == ' ';

			if (starts && ends)
				return 0;
			p += n;
		}
		if (asprintf(&val, "%s:%s", shim, old) < 0) {
			fprintf(stderr, "isoctl run: LD_PRELOAD: %s\n", strerror(ENOMEM));
			return CLI_EXIT_FAILED;
		}
		r = setenv("LD_PRELOAD", val, 1);
		free(val);
	} else {
		r = setenv("LD_PRELOAD", shim, 1);
	}
	if (r < 0) {
		fprintf(stderr, "isoctl run: LD_PRELOAD: %s\n", strerror(errno));
		return CLI_EXIT_FAILED;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rr", no_argument, NULL, 'r' },
		{ "fifo", no_argument, NULL, 'f' },
		{ "prio", required_argument, NULL, 'p' },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "reserve", required_argument, NULL, OPT_RESERVE },
		{ "preload", no_argument, NULL, OPT_PRELOAD },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int policy = 0, prio = CLI_DEFAULT_PRIO, limit = 0, c, r;
	bool preload = false, reserve = false;
	struct cli_reserve res;

	opterr = 0;
	optind = 0; /* glibc: 0 re-reads the optstring's ordering flag */
	/* '+': the command's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+:rfp:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'f': {
			int want = c == 'r' ? ISO_SCHED_ISO_RR : ISO_SCHED_ISO_FIFO;

			if (policy && policy != want)
				return cli_usage_error("run", "--rr and --fifo exclude each other");
			policy = want;
			break;
		}
		case 'p':
			if ((r = cli_parse_prio("run", optarg, &prio)))
				return r;
			break;
		case OPT_LIMIT:
			if ((r = cli_parse_limit("run", optarg, &limit)))
				return r;
			break;
		case OPT_RESERVE:
			if ((r = cli_parse_reserve("run", optarg, &res)))
				return r;
			reserve = true;
			break;
		case OPT_PRELOAD:
			preload = true;
			break;
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket("run", optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help("run");
		default:
			return cli_getopt_error("run", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("run", "no command given");
	if (preload && (r = add_preload()))
		return r;

	if (reserve && (policy || limit))
		return cli_usage_error("run", "--reserve takes no --rr, --fifo or --limit");
	if (reserve) {
		/* a reservation: SCHED_DEADLINE, which execve keeps too */
		r = iso_set_reservation(0, res.runtime_ns, res.period_ns, res.deadline_ns, NULL);
		if (r < 0)
			return cli_lib_error(r, "run: reservation %" PRIu64 "/%" PRIu64 " ns",
					     res.runtime_ns, res.period_ns);
	} else {
		if (!policy)
			policy = ISO_SCHED_ISO_RR;
		r = iso_set_thread(0, policy, prio, limit, NULL);
		if (r < 0)
			return cli_lib_error(r, "run: %s priority %d",
					     iso_policy_name(policy), prio);
	}

	execvp(argv[optind], argv + optind);
	r = errno;
	fprintf(stderr, "isoctl run: %s: %s\n", argv[optind], strerror(r));
	/* Do not leave this (exiting) thread in ISO for isod to notice. */
	(void)iso_set_thread(0, ISO_SCHED_NORMAL, 0, 0, NULL);
	/* As env(1), nice(1), chrt(1): 127 not found, 126 not runnable. */
	return r == ENOENT ? 127 : 126;
}
