/* cli_error.c — isoctl's error messages and the exit status they map to. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fputs(verb ? "isoctl " : "isoctl", stderr);
	if (verb)
		fputs(verb, stderr);
	fputs(": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'isoctl%s%s --help' for more information.\n",
		verb ? " " : "", verb ? verb : "");
	return CLI_EXIT_USAGE;
}

int cli_getopt_error(const char *verb, int c, char **argv)
{
	extern int optind, optopt;
	const char *arg = argv[optind - 1];

	if (c == ':')
		return cli_usage_error(verb, "option '%s' needs an argument", arg);
	/* "-5" where a number was meant: say so, not "unknown option". */
	if (arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9')
		return cli_usage_error(verb, "invalid argument '%s': must be positive", arg);
	if (optopt)
		return cli_usage_error(verb, "unknown option '-%c'", optopt);
	return cli_usage_error(verb, "unknown option '%s'", arg);
}

bool cli_unreachable(int r)
{
	switch (-r) {
	case ECONNREFUSED: /* nobody listening */
	case ENOENT:       /* no socket */
	case ENOTDIR:
	case ENAMETOOLONG:
	case ENOTSOCK:
	case EPROTOTYPE:   /* not a SEQPACKET socket */
	case ECONNRESET:
	case EPIPE:
	case ENOTCONN:
	case ETIMEDOUT:
		return true;
	case EACCES:  /* connect(2) to a socket we may not write */
	case EAGAIN:  /* the library's receive timeout */
		/* Also what isod may answer, so ask who said it */
		return iso_last_error_source() != ISO_ERROR_DAEMON;
	default:
		return false;
	}
}

int cli_lib_error(int r, const char *fmt, ...)
{
	const char *msg = iso_last_error();
	bool unreachable = cli_unreachable(r);
	va_list ap;

	fputs("isoctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", strerror(-r));
	if (msg && *msg)
		fprintf(stderr, ": %s", msg);
	else if (unreachable)
		fputs(": cannot reach isod", stderr);
	if (unreachable)
		fprintf(stderr, " (socket %s)", iso_socket_path());
	fputc('\n', stderr);
	return unreachable ? CLI_EXIT_UNREACHABLE : CLI_EXIT_FAILED;
}

int cli_finish_output(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "isoctl: writing output: %s\n", strerror(errno));
		return status == CLI_EXIT_OK ? CLI_EXIT_FAILED : status;
	}
	return status;
}
