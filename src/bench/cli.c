/* cli.c — isobench's command line: one getopt table; each option fills
 * the options of the mode it belongs to and is refused with another. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"

static _Noreturn void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "isobench: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'isobench --help'.\n");
	exit(2);
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "isobench: %s: '%s' is not an integer in %ld..%ld\n",
			opt, s, lo, hi);
		fprintf(stderr, "Try 'isobench --help'.\n");
		exit(2);
	}
	return v;
}

static double parse_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "isobench: %s: '%s' is not a number in %g..%g\n",
			opt, s, lo, hi);
		fprintf(stderr, "Try 'isobench --help'.\n");
		exit(2);
	}
	return v;
}

/* A comma-separated list of at most MODE_MAX_LIST items, each checked by
 * item(opt, token, i, ctx): their number. */
static int parse_list(const char *opt, const char *arg, const char *what,
		      void (*item)(const char *, const char *, int, void *), void *ctx)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int n = 0;

	if (!copy)
		exit(1);
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		bad(what, arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= MODE_MAX_LIST)
			bad("more than 16 values in '%s'", arg);
		item(opt, tok, n++, ctx);
	}
	free(copy);
	return n;
}

struct int_list {
	long lo, hi;
	int *out;
};

static void int_item(const char *opt, const char *tok, int i, void *ctx)
{
	struct int_list *l = ctx;

	l->out[i] = (int)parse_long(opt, tok, l->lo, l->hi);
}

static int parse_int_list(const char *opt, const char *arg, long lo, long hi, int *out)
{
	struct int_list l = { lo, hi, out };

	return parse_list(opt, arg, "empty value in list '%s'", int_item, &l);
}

static void policy_item(const char *opt, const char *tok, int i, void *ctx)
{
	enum bench_policy *out = ctx;
	int p = policy_parse(tok);

	(void)opt;
	if (p < 0)
		bad("--policy: unknown policy '%s' (normal, normal-nice-20,"
		    " fifo, rr, iso, iso-rr, dl, iso-dl)", tok);
	for (int k = 0; k < i; k++)
		if (out[k] == (enum bench_policy)p)
			bad("--policy: '%s' given twice", tok);
	out[i] = (enum bench_policy)p;
}

const char *cli_mode_name(enum bench_mode m)
{
	return m == MODE_ENFORCE ? "--enforcement" : m == MODE_COST ? "--daemon-cost"
	       : m == MODE_STALL ? "--stall" : m == MODE_ISOLATION ? "--isolation"
	       : m == MODE_AUDIO ? "--audio" : "--policy";
}

/* which mode's options were given */
struct given {
	bool latency, enforce, cost, audio;
	double window_s; /* -1: not given */
};

static void set_mode(struct cli *c, enum bench_mode m)
{
	if ((m == MODE_AUDIO) != (c->mode == MODE_AUDIO) && c->mode != MODE_LATENCY)
		bad("--audio excludes the other modes%s", "");
	if ((m == MODE_ISOLATION) != (c->mode == MODE_ISOLATION) && c->mode != MODE_LATENCY)
		bad("--isolation excludes --enforcement, --daemon-cost and --stall%s", "");
	if (m == MODE_STALL && c->mode != MODE_LATENCY && c->mode != MODE_STALL)
		bad("--enforcement, --daemon-cost and --stall exclude each other%s", "");
	if ((m == MODE_ENFORCE && (c->mode == MODE_COST || c->mode == MODE_STALL)) ||
	    (m == MODE_COST && (c->mode == MODE_ENFORCE || c->mode == MODE_STALL)))
		bad("--enforcement and --daemon-cost exclude each other%s", "");
	c->mode = m;
}

static void defaults(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->latency.cfg = (struct bench_config){
		.threads = 1, .period_ns = 1333000, .work_pct = 20.0,
		.duration_s = 10.0, .rounds = 1, .rt_prio = BENCH_PRIO,
	};
	c->latency.load = LOAD_CPU;
	c->enforce = (struct enforce_opts){
		.trials = 20, .iso_cpu = { 30, 50, 70, 90 }, .n_iso_cpu = 4,
		.iso_period_s = 1,
	};
	c->cost = (struct cost_opts){
		.nthreads = { 16, 256, 1024 }, .n_nthreads = 3, .requests = 10000,
	};
	c->audio = (struct audio_opts){ .seconds = 10, .work_pct = 30, .warmup_s = 1 };
}

static void parse_load(const char *arg, enum load_kind *out)
{
	if (!strcmp(arg, "cpu"))
		*out = LOAD_CPU;
	else if (!strcmp(arg, "cpu+vm"))
		*out = LOAD_CPU_VM;
	else if (!strcmp(arg, "none"))
		*out = LOAD_NONE;
	else
		bad("--load: '%s' is not cpu, cpu+vm or none", arg);
}

/* One option of the latency mode (true), or not one of them (false). */
static bool latency_option(int opt, const char *arg, struct cli *c, struct given *g)
{
	struct latency_opts *l = &c->latency;

	switch (opt) {
	case 'p':
		l->npol = parse_list("--policy", arg, "--policy: empty policy name in '%s'",
				     policy_item, l->pols);
		return true;
	case 't':
		l->cfg.threads = (int)parse_long("--threads", arg, 1, BENCH_MAX_THREADS);
		return true;
	case 'u':
		l->cfg.period_ns = (uint64_t)parse_long("--period-us", arg, 50, 1000000) * 1000;
		return true;
	case 'w':
		l->cfg.work_pct = parse_double("--work-pct", arg, 0, 95);
		return true;
	case 'd':
		l->cfg.duration_s = parse_double("--duration", arg, 0.1, 3600);
		return true;
	case 'l':
		parse_load(arg, &l->load);
		return true;
	case 's':
		if (!*arg || strlen(arg) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			bad("--socket: '%s' is empty or too long for a socket path", arg);
		l->socket = arg;
		return true;
	case 'H':
		if (!*arg)
			bad("--histogram: empty file name%s", "");
		c->hist_file = arg;
		return true;
	case 'O':
		l->cfg.rt_prio = (int)parse_long("--rt-prio", arg, 1, 99);
		g->latency = true;
		return true;
	case 'N':
		l->cfg.rounds = (int)parse_long("--rounds", arg, 1, 1000);
		g->latency = true;
		return true;
	case 'P':
		if (!*arg)
			bad("--plot: empty file name%s", "");
		c->plot_file = arg;
		g->latency = true;
		return true;
	}
	return false;
}

/* One option of the other modes (true), or not one of them (false). */
static bool mode_option(int opt, const char *arg, struct cli *c, struct given *g)
{
	switch (opt) {
	case 'S':
		set_mode(c, MODE_STALL);
		return true;
	case 'X':
		set_mode(c, MODE_ISOLATION);
		return true;
	case 'E':
		set_mode(c, MODE_ENFORCE);
		return true;
	case 'C':
		set_mode(c, MODE_COST);
		return true;
	case 'T':
		c->enforce.trials = (int)parse_long("--trials", arg, 1, 1000);
		g->enforce = true;
		return true;
	case 'I':
		c->enforce.n_iso_cpu = parse_int_list("--iso-cpu", arg, 1, 99,
						      c->enforce.iso_cpu);
		g->enforce = true;
		return true;
	case 'R':
		c->enforce.iso_period_s = (int)parse_long("--iso-period", arg, 1, 60);
		g->enforce = true;
		return true;
	case 'W':
		g->window_s = parse_double("--window", arg, 0, 600);
		return true;
	case 'L':
		c->cost.n_nthreads = parse_int_list("--threads-list", arg, 0, COST_MAX_THREADS,
						    c->cost.nthreads);
		g->cost = true;
		return true;
	case 'Q':
		c->cost.requests = (int)parse_long("--requests", arg, 0, 1000000);
		g->cost = true;
		return true;
	case 'G':
		c->cost.iso_load_pct = parse_double("--iso-load", arg, 0, 90);
		g->cost = true;
		return true;
	case 'A':
		if (strcmp(arg, "auto") && strcmp(arg, "bpf") && strcmp(arg, "proc"))
			bad("--accounting: auto, bpf or proc, not '%s'", arg);
		c->cost.accounting = arg;
		g->cost = true;
		return true;
	}
	return false;
}

/* One option of the audio mode (true), or not one of them (false). */
static bool audio_option(int opt, const char *arg, struct cli *c, struct given *g)
{
	switch (opt) {
	case 'a':
		if (!strcmp(arg, "pipewire"))
			c->audio.server = AUDIO_PIPEWIRE;
		else if (!strcmp(arg, "jack"))
			c->audio.server = AUDIO_JACK;
		else
			bad("--audio: '%s' is not pipewire or jack", arg);
		set_mode(c, MODE_AUDIO);
		return true;
	case 'k':
		c->audio.seconds = parse_double("--seconds", arg, 1, 3600);
		break;
	case 'K':
		/* 100: the client never finishes in time, on purpose */
		c->audio.work_pct = parse_double("--work", arg, 0, 100);
		break;
	case 'q':
		c->audio.quantum = (unsigned)parse_long("--quantum", arg, 16, 8192);
		break;
	case 'U':
		c->audio.warmup_s = parse_double("--warmup", arg, 0, 60);
		break;
	default:
		return false;
	}
	g->audio = true;
	return true;
}

/* --audio's options given without it, or not for its server */
static void check_audio(const struct cli *c, const struct given *g)
{
	if (c->mode != MODE_AUDIO) {
		if (g->audio)
			bad("--seconds, --work, --quantum and --warmup need --audio%s", "");
		return;
	}
	if (c->audio.server == AUDIO_JACK && c->audio.quantum)
		bad("--quantum is for --audio pipewire (jackd's own -p sets its period)%s", "");
}

/* --audio, its arguments good: exit 2 with the reason when this build
 * lacks the server's library */
static void check_audio_built(const struct cli *c)
{
	const char *missing = audio_missing(c->audio.server);

	if (missing) {
		fprintf(stderr, "isobench: --audio %s: %s\n", audio_server_name(c->audio.server),
			missing);
		exit(2);
	}
}

/* --window: its default and its range depend on the mode */
static double mode_window(enum bench_mode m, double given)
{
	const char *name = cli_mode_name(m);

	if (m == MODE_ENFORCE)
		return given < 0 ? 5 : given;
	if (m == MODE_ISOLATION) {
		given = given < 0 ? 4 : given;
		if (given < 1 || given > 60)
			bad("--window: 1 to 60 s for %s", name);
		return given;
	}
	if (m == MODE_STALL) {
		given = given < 0 ? 12 : given;
		if (given < 1 || given > 120)
			bad("--window: 1 to 120 s for %s", name);
		return given;
	}
	given = given < 0 ? 10 : given;
	if (given < 0.5)
		bad("--window: at least 0.5 s for %s", name);
	return given;
}

static void check_mode(struct cli *c, const struct given *g)
{
	const char *m = cli_mode_name(c->mode);
	const struct latency_opts *l = &c->latency;

	check_audio(c, g);
	if (c->mode == MODE_LATENCY) {
		if (g->enforce || g->cost || g->window_s >= 0)
			bad("--trials, --iso-cpu, --iso-period, --window, --threads-list,"
			    " --requests, --accounting and --iso-load need --enforcement or --daemon-cost%s", "");
		if (!l->npol)
			bad("--policy is required (e.g. --policy normal,fifo,iso)%s", "");
		if (l->cfg.duration_s / l->cfg.rounds < 0.1)
			bad("--rounds: at least 0.1 s per round and policy (--duration"
			    " / --rounds)%s", "");
		return;
	}
	if (l->npol || g->latency || l->socket || c->hist_file)
		bad("%s takes none of --policy, --socket, --histogram, --plot", m);
	if (c->mode == MODE_AUDIO) {
		if (g->enforce || g->cost || g->window_s >= 0)
			bad("an option given does not apply to %s", m);
		check_audio_built(c);
		return;
	}
	if ((c->mode == MODE_ENFORCE && g->cost) || (c->mode == MODE_COST && g->enforce) ||
	    ((c->mode == MODE_STALL || c->mode == MODE_ISOLATION) && (g->enforce || g->cost)))
		bad("an option given does not apply to %s", m);
	c->enforce.window_s = c->cost.window_s = c->stall.window_s = c->isolation.window_s =
		mode_window(c->mode, g->window_s);
}

void cli_parse(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "period-us", required_argument, NULL, 'u' },
		{ "work-pct", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "load", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "isod", required_argument, NULL, 'i' },
		{ "histogram", required_argument, NULL, 'H' },
		{ "plot", required_argument, NULL, 'P' },
		{ "rounds", required_argument, NULL, 'N' },
		{ "rt-prio", required_argument, NULL, 'O' },
		{ "enforcement", no_argument, NULL, 'E' },
		{ "daemon-cost", no_argument, NULL, 'C' },
		{ "stall", no_argument, NULL, 'S' },
		{ "isolation", no_argument, NULL, 'X' },
		{ "trials", required_argument, NULL, 'T' },
		{ "iso-cpu", required_argument, NULL, 'I' },
		{ "iso-period", required_argument, NULL, 'R' },
		{ "window", required_argument, NULL, 'W' },
		{ "threads-list", required_argument, NULL, 'L' },
		{ "requests", required_argument, NULL, 'Q' },
		{ "accounting", required_argument, NULL, 'A' },
		{ "iso-load", required_argument, NULL, 'G' },
		{ "audio", required_argument, NULL, 'a' },
		{ "seconds", required_argument, NULL, 'k' },
		{ "work", required_argument, NULL, 'K' },
		{ "quantum", required_argument, NULL, 'q' },
		{ "warmup", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct given g = { .window_s = -1 };
	const char *isod = NULL;
	int opt;

	defaults(c);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (latency_option(opt, optarg, c, &g) || mode_option(opt, optarg, c, &g) ||
		    audio_option(opt, optarg, c, &g))
			continue;
		switch (opt) {
		case 'j':
			c->json = true;
			break;
		case 'i':
			if (access(optarg, X_OK) != 0)
				bad("--isod: '%s' is not an executable file", optarg);
			isod = optarg;
			break;
		case 'h':
			c->help = true;
			return;
		default:
			fprintf(stderr, "Try 'isobench --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		bad("unexpected argument '%s'", argv[optind]);
	check_mode(c, &g);
	c->latency.isod = c->enforce.isod = c->cost.isod = c->stall.isod = c->isolation.isod = isod;
	c->enforce.debug = getenv("ISOBENCH_DEBUG") != NULL;
	c->stall.progress = c->isolation.progress = !c->json;
}
