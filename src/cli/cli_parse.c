/* cli_parse.c — strict parsing of isoctl's arguments: whole decimal
 * numbers in range, nothing else; a bad argument sends nothing. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

int cli_parse_int(const char *verb, const char *what, const char *s,
		  long min, long max, long *out)
{
	char *end;
	long v;

	/* strtol would skip leading blanks and take a '+': not here. */
	if (!s || !*s || !(isdigit((unsigned char)s[0]) ||
			   (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return cli_usage_error(verb, "invalid %s '%s': not a number",
				       what, s ? s : "");
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0')
		return cli_usage_error(verb, "invalid %s '%s': not a number",
				       what, s);
	if (errno == ERANGE || v < min || v > max)
		return cli_usage_error(verb, "invalid %s '%s': must be %ld..%ld",
				       what, s, min, max);
	*out = v;
	return 0;
}

int cli_parse_prio(const char *verb, const char *s, int *out)
{
	long v;
	int r = cli_parse_int(verb, "priority", s, 1, 99, &v);

	if (r == 0)
		*out = (int)v;
	return r;
}

int cli_parse_limit(const char *verb, const char *s, int *out)
{
	long v;
	int r;

	/* "60%" is accepted as well as "60". */
	if (s && *s && s[strlen(s) - 1] == '%') {
		char buf[32];
		size_t n = strlen(s) - 1;

		if (n >= sizeof(buf))
			return cli_usage_error(verb, "invalid limit '%s': must be 1..100", s);
		memcpy(buf, s, n);
		buf[n] = '\0';
		r = cli_parse_int(verb, "limit", buf, 1, 100, &v);
	} else {
		r = cli_parse_int(verb, "limit", s, 1, 100, &v);
	}
	if (r == 0)
		*out = (int)v;
	return r;
}

int cli_parse_tid(const char *verb, const char *s, int *out)
{
	long v;
	/* Linux's PID_MAX_LIMIT is 4194304; accept any positive pid_t. */
	int r = cli_parse_int(verb, "thread id", s, 1, 2147483647L, &v);

	if (r == 0)
		*out = (int)v;
	return r;
}

int cli_set_socket(const char *verb, const char *path)
{
	struct sockaddr_un sa;

	if (!path || !*path)
		return cli_usage_error(verb, "--socket: empty path");
	if (strlen(path) >= sizeof(sa.sun_path))
		return cli_usage_error(verb, "--socket: path too long (at most %zu bytes)",
				       sizeof(sa.sun_path) - 1);
	if (setenv("ISOSCHED_SOCKET", path, 1) < 0) {
		fprintf(stderr, "isoctl: --socket: %s\n", strerror(errno));
		return CLI_EXIT_FAILED;
	}
	return 0;
}

int cli_parse_query_opts(const char *verb, int argc, char **argv, bool *json)
{
	enum { OPT_JSON = CLI_OPT_FIRST_VERB_OPT };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, r;

	*json = false;
	opterr = 0;
	optind = 0; /* glibc: 0 re-reads the optstring's ordering flag */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			*json = true;
			break;
		case CLI_OPT_SOCKET:
			if ((r = cli_set_socket(verb, optarg)))
				return r;
			break;
		case 'h':
			return cli_print_help(verb);
		default:
			return cli_getopt_error(verb, c, argv);
		}
	}
	return CLI_PARSE_OK;
}
