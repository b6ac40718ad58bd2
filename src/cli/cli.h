/* cli.h — what the parts of isoctl share: exit codes, the verb signature,
 * argument parsing, error reporting, output formatting and help texts. */
#ifndef ISOCTL_CLI_H
#define ISOCTL_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "isosched.h"

/* Exit status of isoctl (see `isoctl --help`). */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILED = 1,      /* isod refused or the request failed */
	CLI_EXIT_USAGE = 2,       /* bad command line; nothing was sent */
	CLI_EXIT_UNREACHABLE = 3, /* isod could not be reached */
};

#define CLI_DEFAULT_PRIO 10

/* getopt_long values of the long-only options every verb takes. */
enum {
	CLI_OPT_SOCKET = 0x100, /* --socket PATH */
	CLI_OPT_FIRST_VERB_OPT, /* verbs number their own from here */
};

/* A verb: argv[0] is the verb's name, the rest its arguments. Returns the
 * exit status. */
typedef int (*cli_verb_fn)(int argc, char **argv);

struct cli_verb {
	const char *name;
	cli_verb_fn fn;
	const char *summary; /* one line, for the overview */
};

const struct cli_verb *cli_find_verb(const char *name);
extern const struct cli_verb cli_verbs[];

/* The verbs (cmd_*.c). */
int cmd_run(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* cli_parse.c — strict argument parsing. Each returns 0 or, after printing
 * a message naming verb and what, CLI_EXIT_USAGE. */
int cli_parse_int(const char *verb, const char *what, const char *s,
		  long min, long max, long *out);
int cli_parse_prio(const char *verb, const char *s, int *out);
int cli_parse_limit(const char *verb, const char *s, int *out);
int cli_parse_tid(const char *verb, const char *s, int *out);
/* cli_reserve.c: --reserve RUNTIME/PERIOD[/DEADLINE] (units ns, us, ms, s) */
struct cli_reserve {
	uint64_t runtime_ns, period_ns, deadline_ns; /* deadline 0: the period */
};
int cli_parse_reserve(const char *verb, const char *s, struct cli_reserve *out);
/* ",reserved", ",fallback(WHY)" or "" for a thread's state */
const char *cli_reserve_state(const struct iso_thread_info *t);
/* --socket PATH: checks it and sets ISOSCHED_SOCKET for the library. */
int cli_set_socket(const char *verb, const char *path);
/* The options of the read-only verbs (status, get): --json, --socket,
 * --help. Returns CLI_PARSE_OK with optind at the first operand, or the
 * exit status to return (help shown, or a usage error). */
#define CLI_PARSE_OK (-1)
int cli_parse_query_opts(const char *verb, int argc, char **argv, bool *json);

/* cli_error.c — messages and exit codes. */
/* "isoctl[ VERB]: <fmt>\nTry 'isoctl[ VERB] --help' ...", returns
 * CLI_EXIT_USAGE. verb may be NULL. */
int cli_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A getopt failure ('?' or ':'), reported for verb; returns
 * CLI_EXIT_USAGE. */
int cli_getopt_error(const char *verb, int c, char **argv);
/* A failed library call r (negative errno):
 * "isoctl: <what>: <strerror>: <iso_last_error()>", returns the exit
 * status it maps to (CLI_EXIT_UNREACHABLE or CLI_EXIT_FAILED). */
int cli_lib_error(int r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Whether error r of the last call means isod was not reached. */
bool cli_unreachable(int r);
/* Flush stdout; CLI_EXIT_FAILED with a message if writing failed. */
int cli_finish_output(int status);

/* cli_format.c — how states are shown. */
const char *cli_kernel_policy_name(int kernel_policy);
int cli_user_prio(const struct iso_thread_info *t);
void cli_print_thread_line(FILE *f, const struct iso_thread_info *t);
void cli_print_thread_json(FILE *f, const struct iso_thread_info *t);
void cli_print_status_text(FILE *f, const struct iso_status_info *st,
			   const struct iso_thread_info *t, size_t n);
/* Per-user shares (nothing when they are off); us may be NULL in JSON. */
void cli_print_users_text(FILE *f, const struct iso_users_info *us,
			  const struct iso_user_info *u, size_t n);
void cli_print_status_json(FILE *f, const struct iso_status_info *st,
			   const struct iso_thread_info *t, size_t n,
			   const struct iso_users_info *us,
			   const struct iso_user_info *u, size_t nu,
			   const struct iso_strays_info *sy); /* sy NULL: no "strays" key */
/* The stray auditor's line (iso_strays). */
void cli_print_strays_text(FILE *f, const struct iso_strays_info *sy);
void cli_print_tunables(FILE *f, const struct iso_status_info *st);

/* cli_help.c — the help texts. */
/* Print a verb's help (or the main help for NULL) to stdout; returns
 * CLI_EXIT_OK. */
int cli_print_help(const char *verb);

#endif
