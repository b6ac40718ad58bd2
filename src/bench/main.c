/* isobench — wakeup latency and deadline misses of periodic threads under
 * load, per scheduling policy, side by side: normal, normal-nice-20, fifo,
 * rr (kernel policies, root) and iso, iso-rr (unprivileged, through isod).
 *
 *   isobench --policy P[,P...] [--threads N] [--period-us U] [--work-pct W]
 *            [--duration S] [--load cpu|cpu+vm|none] [--json]
 *            [--socket PATH] [--isod PATH] [--histogram FILE]
 *
 * main.c: the command line, the order of things (calibrate, isod, load,
 * one run per policy, report) and the guarantees that nothing is left
 * behind: every child is killed at exit, on a signal and at a hard time
 * bound (alarm); the children also die with us (PR_SET_PDEATHSIG).
 *
 * Exit: 0 all requested policies ran or were skipped (not root, no isod);
 * 1 a policy failed; 2 bad arguments. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static pid_t main_pid;
static volatile pid_t run_pid;

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    isobench - latency, enforcement and overhead benchmarks of isosched\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    isobench --policy P[,P...] [--threads N] [--period-us U] [--work-pct W]\n"
	      "             [--duration S] [--rounds R] [--rt-prio N] [--load KIND] [--json]\n"
	      "             [--socket PATH] [--isod PATH] [--histogram FILE] [--plot FILE.svg]\n"
	      "    isobench --enforcement [--trials N] [--iso-cpu LIST] [--iso-period S]\n"
	      "             [--window S] [--json] [--isod PATH]\n"
	      "    isobench --daemon-cost [--threads-list LIST] [--window S]\n"
	      "             [--requests N] [--json] [--isod PATH]\n"
	      "    isobench --stall [--window S] [--json] [--isod PATH]\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Latency mode (--policy). N periodic threads sleep to absolute deadlines\n"
	      "    (CLOCK_MONOTONIC), record the wakeup latency (wakeup - deadline) and do\n"
	      "    W % of a period of calibrated busy work. A cycle whose work ends after the\n"
	      "    next deadline is a miss (an xrun); periods skipped over count as misses\n"
	      "    too. Each policy runs in turn in its own process, against the same load.\n"
	      "    The iso policies run as user nobody and get ISO from isod through\n"
	      "    libisosched; without --socket a private isod is started (root).\n"
	      "\n"
	      "    Enforcement mode (--enforcement, root). For each iso_cpu in LIST, with a\n"
	      "    private isod using that iso_cpu and iso_period S:\n"
	      "      reaction: N trials, each against a fresh isod (no budget history): a\n"
	      "        process of user nobody runs one ISO_FIFO spinner per online CPU; each\n"
	      "        polls its kernel policy and its own CPU time while it spins. The\n"
	      "        crossing is the first 1 ms step at which libisocore's average\n"
	      "        (iso_budget_feed, the engine's code) of the CPU time the spinners got\n"
	      "        exceeds iso_cpu; reaction = the first demotion a spinner sees minus\n"
	      "        the crossing, in ms and in isod sample intervals;\n"
	      "      CPU share: the spinners run on, past their first demotion, against one\n"
	      "        SCHED_OTHER process (nice 0). Over a window of --window seconds:\n"
	      "        the competitor's CPU time (/proc/PID/schedstat), and the spinners'\n"
	      "        CPU time while SCHED_FIFO and while demoted; 100 % minus their\n"
	      "        SCHED_FIFO share is what the kernel left to SCHED_OTHER tasks.\n"
	      "\n"
	      "    Stall mode (--stall, root; src/bench/stall.c). A SCHED_OTHER probe sleeps\n"
	      "    1 ms in a loop and records its longest gap and the total of its gaps\n"
	      "    over 50 ms while one spinner per CPU runs --window seconds (12): ISO\n"
	      "    under a private isod with the burst guard and stall cap, with the cap\n"
	      "    alone, with neither (the patch); kernel SCHED_FIFO as root; SCHED_FIFO\n"
	      "    with RLIMIT_RTTIME 200 ms (killed, as rtkit's clients). Then periodic\n"
	      "    ISO threads (1.33 ms at 20/50/80 %, 170 ms at 80 %) for 10 s, counting\n"
	      "    the demotions each sees (iso_cpu 95: any is the burst guard's).\n"
	      "\n"
	      "    Daemon-cost mode (--daemon-cost, root). For each thread count in LIST, a\n"
	      "    private isod (default sampling interval, thread caps raised, request rate\n"
	      "    limit off where isod has --rate-limit) polices that many threads of user\n"
	      "    nobody, granted ISO_FIFO and then asleep. isod's own CPU time over\n"
	      "    --window seconds (sum of its threads' schedstat; /proc/PID/stat\n"
	      "    utime+stime as a cross-check) is its cost in % of one CPU; a straight\n"
	      "    line through the points gives the cost per thread. Then N requests\n"
	      "    iso_set_thread(0, ISO_FIFO, 50) are timed from call to return, the\n"
	      "    kernel policy is checked (SCHED_FIFO) after each, and each is followed\n"
	      "    by a release to SCHED_OTHER (timed separately).\n"
	      "\n"
	      "LATENCY OPTIONS\n"
	      "    --policy LIST    normal, normal-nice-20, fifo, rr, iso, iso-rr, run in\n"
	      "                     turn (normal-nice-20, fifo, rr need root; fifo and rr run\n"
	      "                     at --rt-prio (50), iso and iso-rr at ISO priority 50)\n"
	      "    --rt-prio N      kernel priority of fifo and rr, 1..99 (default 50; isod\n"
	      "                     runs iso and iso-rr 50 at 25 with the default band, so\n"
	      "                     --rt-prio 25 compares them at the same kernel level)\n"
	      "    --threads N      periodic measuring threads, 1..64 (default 1)\n"
	      "    --period-us U    period in microseconds, 50..1000000 (default 1333)\n"
	      "    --work-pct W     busy work per period, percent of the period, 0..95\n"
	      "                     (default 20)\n"
	      "    --duration S     seconds per policy, 0.1..3600 (default 10)\n"
	      "    --rounds R       split each policy's duration into R turns, 1..1000\n"
	      "                     (default 1): the policies take turns, so that a noisy\n"
	      "                     stretch of a shared machine hits all of them alike\n"
	      "    --load KIND      cpu: a SCHED_OTHER hog per CPU; cpu+vm: plus a memory\n"
	      "                     toucher; none (default cpu)\n"
	      "    --socket PATH    use the isod at PATH (else a private one is started)\n"
	      "    --histogram FILE write the latency histograms to FILE, lines\n"
	      "                     \"policy lower_us upper_us count\"\n"
	      "    --plot FILE      write an SVG plot of the latency curves to FILE: latency\n"
	      "                     (log axis) against percentile (0 %, 90 %, 99 %, 99.9 %...)\n"
	      "\n"
	      "ENFORCEMENT OPTIONS\n"
	      "    --trials N       reaction trials per iso_cpu, 1..1000 (default 20)\n"
	      "    --iso-cpu LIST   comma-separated iso_cpu values, 1..99 (default\n"
	      "                     30,50,70,90); at most 16\n"
	      "    --iso-period S   the private isod's iso_period, 1..60 s (default 1, so\n"
	      "                     that many trials fit; the reaction does not depend on it)\n"
	      "    --window S       CPU-share window, 0..600 s; 0 skips the CPU-share run\n"
	      "                     (default 5)\n"
	      "\n"
	      "DAEMON-COST OPTIONS\n"
	      "    --threads-list LIST  comma-separated ISO thread counts, 0..2000 (default\n"
	      "                     16,256,1024); at most 16\n"
	      "    --window S       measurement window per count, 0.5..600 s (default 10)\n"
	      "    --requests N     timed requests per count, 0..1000000 (default 10000)\n"
	      "\n"
	      "COMMON OPTIONS\n"
	      "    --json           one JSON object on stdout instead of the table; notes\n"
	      "                     and skipped runs go to stderr\n"
	      "    --isod PATH      the isod binary for the private daemon (default: $ISOD,\n"
	      "                     next to isobench, ../daemon/isod, PATH)\n"
	      "    -h, --help       this help\n"
	      "\n"
	      "ENVIRONMENT\n"
	      "    ISOD             the isod binary, if --isod is not given\n"
	      "    ISOSCHED_SOCKET  set by isobench for its clients (--socket, or the\n"
	      "                     private isod's socket)\n"
	      "    TMPDIR           where the private isod's directory is made (/tmp)\n"
	      "    ISOBENCH_DEBUG   with --enforcement: follow isod's enforcer thread and\n"
	      "                     explain each reaction above 20 ms or below -5 ms on\n"
	      "                     stderr\n"
	      "\n"
	      "BOUNDS\n"
	      "    Every spinning or measuring process is bounded in time (alarm,\n"
	      "    RLIMIT_RTTIME, PR_SET_PDEATHSIG) and killed at exit, on SIGINT/SIGTERM\n"
	      "    and at a hard time bound, as are the load and the private isod.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0  all runs done (latency mode: or skipped, not root / no isod)\n"
	      "    1  a run failed\n"
	      "    2  bad arguments\n"
	      "    3  the hard time bound was reached\n"
	      "\n"
	      "EXAMPLES\n"
	      "    isobench --policy normal,fifo,iso --duration 10 --load cpu --plot lat.svg\n"
	      "    isobench --enforcement --trials 30 --iso-cpu 30,50,70,90\n"
	      "    isobench --daemon-cost --threads-list 16,256,1024 --json\n"
	      "\n"
	      "SEE ALSO\n"
	      "    docs/benchmarks.md, isod(8) --help, isoctl(1) --help\n",
	      f);
}

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
		fprintf(stderr,
			"isobench: %s: '%s' is not an integer in %ld..%ld\n",
			opt, s, lo, hi);
		fprintf(stderr, "Try 'isobench --help'.\n");
		exit(2);
	}
	return v;
}

static double parse_double(const char *opt, const char *s, double lo,
			   double hi)
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

static int parse_int_list(const char *opt, const char *arg, long lo, long hi,
			  int *out)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int n = 0;

	if (!copy)
		exit(1);
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' ||
	    strstr(arg, ",,"))
		bad("empty value in list '%s'", arg);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n >= MODE_MAX_LIST)
			bad("more than 16 values in '%s'", arg);
		out[n++] = (int)parse_long(opt, tok, lo, hi);
	}
	free(copy);
	return n;
}

static int parse_policies(const char *arg, enum bench_policy *out)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int n = 0;
	bool seen[POL_COUNT] = { false };

	if (!copy)
		exit(1);
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' ||
	    strstr(arg, ",,"))
		bad("--policy: empty policy name in '%s'", arg);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int p = policy_parse(tok);

		if (p < 0)
			bad("--policy: unknown policy '%s' (normal, normal-nice-20,"
			    " fifo, rr, iso, iso-rr)", tok);
		if (seen[p])
			bad("--policy: '%s' given twice", tok);
		seen[p] = true;
		out[n++] = (enum bench_policy)p;
	}
	free(copy);
	return n;
}

/* ---- cleanup: at exit, on signals, at the hard bound -------------------- */

static void kill_everything(void)
{
	pid_t p = run_pid;

	if (p > 0)
		kill(p, SIGKILL);
	load_kill_all();
	isod_kill_private();
}

static void on_exit_cleanup(void)
{
	if (getpid() != main_pid)
		return;
	kill_everything();
	load_stop();
	isod_stop_private();
}

static void on_signal(int sig)
{
	static const char msg[] =
		"isobench: hard time bound reached, stopping everything\n";

	if (getpid() != main_pid)
		_exit(128 + sig);
	if (sig == SIGALRM)
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	kill_everything();
	/* reap what was killed (bounded: 0.5 s), so no zombie lingers */
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { 0, 10 * 1000000L };

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nanosleep(&ts, NULL);
	}
	_exit(sig == SIGALRM ? 3 : 128 + sig);
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };

	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(on_exit_cleanup);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
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
		{ "trials", required_argument, NULL, 'T' },
		{ "iso-cpu", required_argument, NULL, 'I' },
		{ "iso-period", required_argument, NULL, 'R' },
		{ "window", required_argument, NULL, 'W' },
		{ "threads-list", required_argument, NULL, 'L' },
		{ "requests", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_config cfg = {
		.threads = 1, .period_ns = 1333000, .work_pct = 20.0,
		.duration_s = 10.0, .rounds = 1, .rt_prio = BENCH_PRIO,
	};
	enum bench_policy pols[BENCH_MAX_POLICIES];
	struct bench_result results[BENCH_MAX_POLICIES];
	struct hist *hists;
	enum load_kind load = LOAD_CPU;
	const char *socket_arg = NULL, *isod_arg = NULL, *hist_file = NULL;
	const char *plot_file = NULL;
	int rounds = 1;
	struct mode_opts mo = {
		.trials = 20, .iso_cpu = { 30, 50, 70, 90 }, .n_iso_cpu = 4,
		.iso_period_s = 1, .window_s = -1,
		.nthreads = { 16, 256, 1024 }, .n_nthreads = 3,
		.requests = 10000,
	};
	enum { M_LATENCY, M_ENFORCE, M_COST, M_STALL } mode = M_LATENCY;
	bool latency_only = false, enforce_only = false, cost_only = false;
	bool json = false, want_iso = false, root, iso_ok = false;
	char iso_why[512] = "";
	int npol = 0, c, hogs = 0, rc = 0;
	unsigned bound;
	double rate;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			npol = parse_policies(optarg, pols);
			break;
		case 't':
			cfg.threads = (int)parse_long("--threads", optarg, 1,
						      BENCH_MAX_THREADS);
			break;
		case 'u':
			cfg.period_ns = (uint64_t)parse_long("--period-us", optarg,
							     50, 1000000) * 1000;
			break;
		case 'w':
			cfg.work_pct = parse_double("--work-pct", optarg, 0, 95);
			break;
		case 'd':
			cfg.duration_s = parse_double("--duration", optarg, 0.1,
						      3600);
			break;
		case 'l':
			if (!strcmp(optarg, "cpu"))
				load = LOAD_CPU;
			else if (!strcmp(optarg, "cpu+vm"))
				load = LOAD_CPU_VM;
			else if (!strcmp(optarg, "none"))
				load = LOAD_NONE;
			else
				bad("--load: '%s' is not cpu, cpu+vm or none",
				    optarg);
			break;
		case 'j':
			json = true;
			break;
		case 's':
			if (!*optarg ||
			    strlen(optarg) >= sizeof(((struct sockaddr_un *)0)->sun_path))
				bad("--socket: '%s' is empty or too long for a"
				    " socket path", optarg);
			socket_arg = optarg;
			break;
		case 'i':
			if (access(optarg, X_OK) != 0)
				bad("--isod: '%s' is not an executable file",
				    optarg);
			isod_arg = optarg;
			break;
		case 'H':
			if (!*optarg)
				bad("--histogram: empty file name%s", "");
			hist_file = optarg;
			break;
		case 'O':
			cfg.rt_prio = (int)parse_long("--rt-prio", optarg, 1, 99);
			latency_only = true;
			break;
		case 'N':
			rounds = (int)parse_long("--rounds", optarg, 1, 1000);
			cfg.rounds = rounds;
			latency_only = true;
			break;
		case 'P':
			if (!*optarg)
				bad("--plot: empty file name%s", "");
			plot_file = optarg;
			latency_only = true;
			break;
		case 'S':
			if (mode != M_LATENCY && mode != M_STALL)
				bad("--enforcement, --daemon-cost and --stall exclude"
				    " each other%s", "");
			mode = M_STALL;
			break;
		case 'E':
			if (mode == M_COST || mode == M_STALL)
				bad("--enforcement and --daemon-cost exclude each"
				    " other%s", "");
			mode = M_ENFORCE;
			break;
		case 'C':
			if (mode == M_ENFORCE || mode == M_STALL)
				bad("--enforcement and --daemon-cost exclude each"
				    " other%s", "");
			mode = M_COST;
			break;
		case 'T':
			mo.trials = (int)parse_long("--trials", optarg, 1, 1000);
			enforce_only = true;
			break;
		case 'I':
			mo.n_iso_cpu = parse_int_list("--iso-cpu", optarg, 1, 99,
						      mo.iso_cpu);
			enforce_only = true;
			break;
		case 'R':
			mo.iso_period_s = (int)parse_long("--iso-period", optarg,
							  1, 60);
			enforce_only = true;
			break;
		case 'W':
			mo.window_s = parse_double("--window", optarg, 0, 600);
			break;
		case 'L':
			mo.n_nthreads = parse_int_list("--threads-list", optarg,
						       0, 2000, mo.nthreads);
			cost_only = true;
			break;
		case 'Q':
			mo.requests = (int)parse_long("--requests", optarg, 0,
						      1000000);
			cost_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'isobench --help'.\n");
			return 2;
		}
	}
	if (optind < argc)
		bad("unexpected argument '%s'", argv[optind]);
	if (mode != M_LATENCY) {
		const char *m = mode == M_ENFORCE ? "--enforcement"
				: mode == M_COST ? "--daemon-cost" : "--stall";
		unsigned mbound;

		if (npol || latency_only || socket_arg || hist_file)
			bad("%s takes none of --policy, --socket, --histogram,"
			    " --plot", m);
		if ((mode == M_ENFORCE && cost_only) ||
		    (mode == M_COST && enforce_only) ||
		    (mode == M_STALL && (enforce_only || cost_only)))
			bad("an option given does not apply to %s", m);
		if (mode == M_ENFORCE && mo.window_s < 0)
			mo.window_s = 5;
		if (mode == M_STALL && mo.window_s < 0)
			mo.window_s = 12;
		if (mode == M_STALL && (mo.window_s < 1 || mo.window_s > 120))
			bad("--window: 1 to 120 s for %s", m);
		if (mode == M_COST && mo.window_s < 0)
			mo.window_s = 10;
		if (mode == M_COST && mo.window_s < 0.5)
			bad("--window: at least 0.5 s for %s", m);
		if (geteuid() != 0) {
			fprintf(stderr, "isobench: %s needs root (a private isod,"
					" clients as user nobody)\n", m);
			return 1;
		}
		mo.isod_arg = isod_arg;
		mo.json = json;
		main_pid = getpid();
		install_handlers();
		if (mode == M_ENFORCE)
			mbound = (unsigned)(mo.n_iso_cpu *
					    (mo.trials * (mo.iso_period_s * 6.0 + 6.0) +
					     mo.window_s + mo.iso_period_s * 9.0 + 30.0)) + 60;
		else if (mode == M_STALL)
			mbound = (unsigned)(5 * (mo.window_s + 25.0)) + 120;
		else
			mbound = (unsigned)(mo.n_nthreads *
					    (mo.window_s + 90.0 + mo.requests / 500.0)) + 60;
		alarm(mbound);
		c = mode == M_ENFORCE ? enforcement_main(&mo, &run_pid)
		    : mode == M_COST  ? daemon_cost_main(&mo, &run_pid)
				      : stall_main(&mo, &run_pid);
		alarm(0);
		fflush(stdout);
		return c;
	}
	if (enforce_only || cost_only || mo.window_s >= 0)
		bad("--trials, --iso-cpu, --iso-period, --window, --threads-list and"
		    " --requests need --enforcement or --daemon-cost%s", "");
	if (!npol)
		bad("--policy is required (e.g. --policy normal,fifo,iso)%s", "");

	main_pid = getpid();
	root = geteuid() == 0;
	for (int i = 0; i < npol; i++)
		want_iso |= policy_is_iso(pols[i]);
	install_handlers();
	/* The hard bound: every run, the daemon start and some slack. */
	if (cfg.duration_s / rounds < 0.1)
		bad("--rounds: at least 0.1 s per round and policy (--duration"
		    " / --rounds)%s", "");
	bound = (unsigned)(npol * (cfg.duration_s + 20.0 * rounds)) + 40;
	alarm(bound);

	hists = calloc((size_t)npol, sizeof(*hists));
	if (!hists) {
		fprintf(stderr, "isobench: out of memory\n");
		return 1;
	}

	/* Calibrate before any load, on this thread's CPU time. */
	rate = calibrate_loops_per_ns();
	cfg.work_loops = (uint64_t)(rate * (double)cfg.period_ns *
				    cfg.work_pct / 100.0);

	if (want_iso) {
		if (socket_arg) {
			setenv("ISOSCHED_SOCKET", socket_arg, 1);
			if (isod_answers())
				iso_ok = true;
			else
				snprintf(iso_why, sizeof(iso_why),
					 "isod at %s does not answer", socket_arg);
		} else if (!root) {
			snprintf(iso_why, sizeof(iso_why),
				 "a private isod needs root; give --socket of a"
				 " running isod");
		} else {
			char *path = isod_find(isod_arg);

			if (!path) {
				snprintf(iso_why, sizeof(iso_why),
					 "no isod binary found (--isod, $ISOD,"
					 " next to isobench, PATH)");
			} else {
				if (isod_start_private(path, iso_why,
						       sizeof(iso_why)) == 0)
					iso_ok = true;
				free(path);
			}
		}
	}

	hogs = load_start(load, bound + 5);
	if (hogs < 0)
		return 1;
	if (hogs > 0)
		sleep_s(0.5); /* let the hogs spread over the CPUs */

	for (int i = 0; i < npol; i++) {
		struct bench_result *r = &results[i];

		memset(r, 0, sizeof(*r));
		r->policy = pols[i];
		r->hist = &hists[i];
		hist_init(r->hist);
		r->state = RUN_OK;
		if (policy_needs_root(pols[i]) && !root) {
			r->state = RUN_SKIPPED;
			snprintf(r->note, sizeof(r->note), "needs root");
			continue;
		}
		if (policy_is_iso(pols[i]) && !iso_ok) {
			/* no daemon to be had is a skip; a daemon we were
			 * told about or started that fails is a failure */
			bool skip = !root && !socket_arg;

			skip |= strstr(iso_why, "no isod binary") != NULL;
			r->state = skip ? RUN_SKIPPED : RUN_FAILED;
			snprintf(r->note, sizeof(r->note), "%s", iso_why);
			continue;
		}
	}
	/* --rounds: the policies take turns, duration/rounds at a time, so
	 * that a noisy stretch of the machine hits all of them alike */
	{
		struct bench_config one = cfg;
		struct hist *tmp = malloc(sizeof(*tmp));

		if (!tmp) {
			fprintf(stderr, "isobench: out of memory\n");
			return 1;
		}
		one.duration_s = cfg.duration_s / rounds;
		for (int k = 0; k < rounds; k++) {
			for (int i = 0; i < npol; i++) {
				struct bench_result *r = &results[i], x;

				if (r->state != RUN_OK)
					continue;
				memset(&x, 0, sizeof(x));
				x.hist = tmp;
				run_policy(&one, pols[i], &x, &run_pid);
				if (x.state != RUN_OK) {
					r->state = x.state;
					snprintf(r->note, sizeof(r->note), "%s", x.note);
					continue;
				}
				r->samples += x.samples;
				r->misses += x.misses;
				r->policy_lost += x.policy_lost;
				r->kernel_policy = x.kernel_policy;
				r->kernel_prio = x.kernel_prio;
				r->iso_band_lo = x.iso_band_lo;
				r->iso_band_hi = x.iso_band_hi;
				hist_merge(r->hist, tmp);
			}
		}
		free(tmp);
	}

	load_stop();
	isod_stop_private();
	alarm(0);

	{
		struct bench_report rep = {
			.cfg = &cfg, .load = load, .hogs = hogs,
			.results = results, .nresults = npol,
		};

		if (json)
			output_json(&rep);
		else
			output_table(&rep);
	}
	fflush(stdout);
	for (int i = 0; i < npol; i++) {
		if (results[i].state == RUN_FAILED)
			rc = 1;
		if (json && results[i].state != RUN_OK)
			fprintf(stderr, "isobench: %s %s: %s\n",
				policy_name(results[i].policy),
				results[i].state == RUN_SKIPPED ? "skipped"
								: "failed",
				results[i].note);
	}
	if (hist_file) {
		FILE *f = fopen(hist_file, "w");

		if (!f) {
			fprintf(stderr, "isobench: %s: %s\n", hist_file,
				strerror(errno));
			rc = 1;
		} else {
			fprintf(f, "# policy lower_us upper_us count\n");
			for (int i = 0; i < npol; i++)
				if (results[i].state == RUN_OK)
					hist_write(results[i].hist,
						   policy_name(results[i].policy), f);
			if (fclose(f) != 0)
				rc = 1;
		}
	}
	if (plot_file) {
		struct bench_report rep = {
			.cfg = &cfg, .load = load, .hogs = hogs,
			.results = results, .nresults = npol,
		};

		if (output_svg(&rep, plot_file) < 0) {
			fprintf(stderr, "isobench: %s: %s\n", plot_file,
				strerror(errno));
			rc = 1;
		}
	}
	free(hists);
	return rc;
}
