/* cmd_thread.c — `isoctl set` and `isoctl get`: one thread's ISO state. */
#include "cli.h"

#include <getopt.h>

#include "iso_policy.h"

enum { OPT_NORMAL = CLI_OPT_FIRST_VERB_OPT, OPT_LIMIT, OPT_JSON, OPT_RESERVE };

static int print_thread(const struct iso_thread_info *t, bool json)
{
	if (json) {
		cli_print_thread_json(stdout, t);
		putchar('\n');
	} else {
		cli_print_thread_line(stdout, t);
	}
	return cli_finish_output(CLI_EXIT_OK);
}

int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rr", no_argument, NULL, 'r' },
		{ "fifo", no_argument, NULL, 'f' },
		{ "normal", no_argument, NULL, OPT_NORMAL },
		{ "prio", required_argument, NULL, 'p' },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "reserve", required_argument, NULL, OPT_RESERVE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct iso_thread_info info;
	int policy = -1, prio = 0, limit = 0, tid, c, r;
	bool have_prio = false, have_limit = false, json = false, reserve = false;
	struct cli_reserve res;

	opterr = 0;
	optind = 0; /* glibc: 0 re-reads the optstring's ordering flag */
	while ((c = getopt_long(argc, argv, ":rfp:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'f':
		case OPT_NORMAL: {
			int want = c == 'r' ? ISO_SCHED_ISO_RR :
				   c == 'f' ? ISO_SCHED_ISO_FIFO : ISO_SCHED_NORMAL;

			if (policy >= 0 && policy != want)
				return cli_usage_error("set", "--rr, --fifo and --normal exclude each other");
			policy = want;
			break;
		}
		case 'p':
			if ((r = cli_parse_prio("set", optarg, &prio)))
				return r;
			have_prio = true;
			break;
		case OPT_LIMIT:
			if ((r = cli_parse_limit("set", optarg, &limit)))
				return r;
			have_limit = true;
			break;
		case OPT_RESERVE:
			if ((r = cli_parse_reserve("set", optarg, &res)))
				return r;
			reserve = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket("set", optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help("set");
		default:
			return cli_getopt_error("set", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("set", "no thread id given");
	if (argc - optind > 1)
		return cli_usage_error("set", "one thread id only ('%s' is extra)",
				       argv[optind + 1]);
	if ((r = cli_parse_tid("set", argv[optind], &tid)))
		return r;
	if (reserve) {
		if (policy >= 0 || have_prio || have_limit)
			return cli_usage_error("set", "--reserve takes no policy, --prio or --limit");
		r = iso_set_reservation(tid, res.runtime_ns, res.period_ns, res.deadline_ns, &info);
		if (r < 0)
			return cli_lib_error(r, "reserve for thread %d", tid);
		return print_thread(&info, json);
	}
	if (policy < 0)
		policy = ISO_SCHED_ISO_RR;
	if (policy == ISO_SCHED_NORMAL) {
		if (have_prio)
			return cli_usage_error("set", "--normal takes no priority");
		if (have_limit)
			return cli_usage_error("set", "--normal takes no limit");
	} else if (!have_prio) {
		prio = CLI_DEFAULT_PRIO;
	}

	r = iso_set_thread(tid, policy, prio, limit, &info);
	if (r < 0) {
		if (policy == ISO_SCHED_NORMAL)
			return cli_lib_error(r, "set thread %d to SCHED_OTHER", tid);
		return cli_lib_error(r, "set thread %d to %s priority %d", tid,
				     iso_policy_name(policy), prio);
	}
	return print_thread(&info, json);
}

int cmd_get(int argc, char **argv)
{
	struct iso_thread_info info;
	bool json;
	int tid, r;

	if ((r = cli_parse_query_opts("get", argc, argv, &json)) != CLI_PARSE_OK)
		return r;
	if (optind >= argc)
		return cli_usage_error("get", "no thread id given");
	if (argc - optind > 1)
		return cli_usage_error("get", "one thread id only ('%s' is extra)",
				       argv[optind + 1]);
	if ((r = cli_parse_tid("get", argv[optind], &tid)))
		return r;

	r = iso_get_thread(tid, &info);
	if (r < 0)
		return cli_lib_error(r, "get thread %d", tid);
	return print_thread(&info, json);
}
