/* isod.c — the isosched daemon: options, configuration, wiring of the
 * server and enforcer threads, and an orderly exit that demotes every ISO
 * thread. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "actuator.h"
#include "backend.h"
#include "config.h"
#include "crash.h"
#include "enforcer.h"
#include "forkwatch.h"
#include "grants.h"
#include "isod.h"
#include "log.h"
#include "police.h"
#include "revoke.h"
#ifdef ISOD_HAVE_RTKIT
#include "rtkit_bus.h"
#endif
#include "server.h"
#include "statefile.h"
#include "strays.h"
#include "strays_tick.h"

#define HELP_COLUMN 29

/* One key's line of --help, from the configuration table: the option
 * left, what it does from HELP_COLUMN on, continuation lines indented. */
static void print_option(FILE *f, const struct config_key *k)
{
	int n;

	if (!k->usage)
		return;
	/* "-s, --socket": a short form is indented less, as getopt shows it */
	n = fprintf(f, "%s%s", k->usage[1] == '-' ? "      " : "  ", k->usage);
	fprintf(f, "%*s", n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (const char *p = k->help; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: isod [OPTION]...\n"
"\n"
"isod grants SCHED_ISO - unprivileged soft real-time scheduling - to the\n"
"threads of ordinary users. An ISO thread runs as kernel SCHED_FIFO or\n"
"SCHED_RR inside a priority band; while ISO threads together use more than\n"
"iso_cpu percent of all CPUs (an exponential average over iso_period\n"
"seconds) every ISO thread runs SCHED_OTHER, until use falls below 90 %% of\n"
"iso_cpu. Nobody is killed. Clients: isoctl, libisosched, the preload shim.\n"
"\n"
"Options (override the configuration file):\n"
"  -c, --config FILE          configuration file (default %s;\n"
"                             a missing default file is fine)\n",
		ISOD_DEFAULT_CONFIG);
	for (size_t i = 0; config_key_at(i); i++)
		print_option(f, config_key_at(i));
	fprintf(f,
"      --dry-run              decide and log, but change no thread\n"
"  -h, --help                 this help\n"
"  -V, --version              version\n"
"\n"
"Signals: SIGTERM/SIGINT demote every ISO thread to SCHED_OTHER and exit;\n"
"SIGHUP re-reads the configuration (a bad file changes nothing); threads of\n"
"users the new allow lists no longer admit return to SCHED_OTHER.\n"
"Exit status: 0 after a clean shutdown, 1 on a configuration or start-up\n"
"error. See isod.conf(5) (docs/configuration.md) and isoctl --help.\n");
}

/* Long options that map 1:1 onto configuration keys: the keys with an
 * option name in config.c's table. */
static size_t n_key_opts(void)
{
	size_t n = 0;

	while (config_key_at(n))
		n++;
	return n;
}
#define KEY_OPTS_MAX 64

static void tick(struct isod *d)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	isod_watchdog(d, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	strays_tick(d, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
	if (atomic_exchange(&d->reload, false)) {
		struct isod_config n;
		log_info("SIGHUP: reloading %s", d->src->path);
		if (config_build(&n, d->src) < 0) {
			log_error("new configuration refused; keeping the running one");
		} else {
			pthread_mutex_lock(&d->lock);
			isod_reconfigure(d, &n);
			/* a grant lasts only while its owner may hold one */
			(void)isod_revoke_disallowed(d);
			pthread_mutex_unlock(&d->lock);
		}
	}
}

/* A crash must not leave ISO threads kernel RT unpoliced until systemd
 * restarts isod: demote every tracked thread, then die of the signal
 * (crash.c: on an alternate stack, so a stack overflow gets here too).
 * Async-signal-safe only: actuator_die stops every promotion first (one
 * under way is waited for and undone), so no thread is made ISO again
 * after this started; the demotions take no lock on any backend. The
 * restarted isod re-grants them from the state file. */
static void last_gasp(void *ctx)
{
	const struct isod *d = ctx;
	const struct task_table *tt = &d->tasks;

	actuator_die();
	TASKS_FOREACH(tt, e)
		if (tasks_alive(e))
			(void)actuator_demote_signal_safe(e->tid);
}

static void catch_crashes(struct isod *d)
{
	int r;

	r = crash_catch(last_gasp, d);
	if (r < 0)
		log_warning_errno(r, "no alternate signal stack: a stack overflow would not demote");
}

/* Each tracked thread holds one fd (schedstat; two with scope per-cpu on
 * proc accounting: stat too) and each client one: take the hard limit
 * (systemd's default soft limit is 1024), and say so if even that cannot
 * hold max_threads. */
static void raise_fd_limit(const struct isod_config *c)
{
	rlim_t per_thread = c->scope == ISO_SCOPE_PER_CPU ? 2 : 1;
	rlim_t need = (rlim_t)c->max_threads * per_thread + 2 * SERVER_MAX_CONN + 64; /* a connection: its socket, its peer's pidfd */
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_warning("open file limit %llu is below the %llu that max_threads %u needs; grants past about %llu threads will fail with EAGAIN",
			    (unsigned long long)rl.rlim_cur, (unsigned long long)need,
			    c->max_threads,
			    (unsigned long long)(rl.rlim_cur > 2 * SERVER_MAX_CONN + 64
						 ? (rl.rlim_cur - 2 * SERVER_MAX_CONN - 64) / per_thread : 0));
}

/* One more command-line setting; the array is fixed (64), so past it the
 * command line is refused, never written past. */
static int add_override(struct config_source *src, const char *key, const char *value)
{
	size_t cap = sizeof(src->ov) / sizeof(src->ov[0]);

	if (src->nov >= cap) {
		fprintf(stderr, "isod: too many options (at most %zu settings; --band counts two)\n",
			cap);
		return -E2BIG;
	}
	src->ov[src->nov++] = (struct config_override){ key, value };
	return 0;
}

/* The server loop, with the rtkit D-Bus face when configured. */
static int serve(struct isod *d, int lfd, int sigfd, int forkfd)
{
#ifdef ISOD_HAVE_RTKIT
	struct server_source src;
	struct rtkit_bus *bus = NULL;
	int r;

	if (!d->cfg.rtkit)
		return server_run(d, lfd, sigfd, forkfd, tick);
	r = rtkit_bus_open(d, &bus);
	if (r < 0)
		return log_error_errno(r, "rtkit: cannot set up the D-Bus face");
	rtkit_bus_source(bus, &src);
	r = server_run_with(d, lfd, sigfd, forkfd, tick, &src);
	rtkit_bus_close(bus);
	return r;
#else
	if (d->cfg.rtkit) {
		log_error("rtkit = yes, but this isod was built without D-Bus support (meson -Drtkit=enabled needs libsystemd)");
		return -EOPNOTSUPP;
	}
	return server_run(d, lfd, sigfd, forkfd, tick);
#endif
}

static int parse_args(int argc, char **argv, struct config_source *src)
{
	struct option opts[KEY_OPTS_MAX + 9];
	size_t n = 0, nkeys = n_key_opts();
	int c, idx;

	if (nkeys > KEY_OPTS_MAX)
		return -E2BIG; /* cannot happen: the table is fixed */
	for (size_t i = 0; i < nkeys; i++) {
		const struct config_key *k = config_key_at(i);

		if (k->option) /* the value is the key's index */
			opts[n++] = (struct option){ k->option, required_argument, NULL, 1000 + (int)i };
	}
	opts[n++] = (struct option){ "config", required_argument, NULL, 'c' };
	opts[n++] = (struct option){ "band", required_argument, NULL, 'b' };
	opts[n++] = (struct option){ "syslog", no_argument, NULL, 'L' };
	opts[n++] = (struct option){ "rtkit", no_argument, NULL, 'R' };
	opts[n++] = (struct option){ "dry-run", no_argument, NULL, 'n' };
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	opts[n] = (struct option){ 0, 0, 0, 0 };
	src->nov = 0;
	while ((c = getopt_long(argc, argv, "c:s:hV", opts, &idx)) != -1) {
		switch (c) {
		case 'c': src->path = optarg; src->required = true; break;
		case 's':
			if (add_override(src, "socket", optarg) < 0)
				return -E2BIG;
			break;
		case 'b': {
			/* the last --band is the one that counts: one buffer will do */
			static char lo[16], hi[16];
			if (sscanf(optarg, "%15[0-9]:%15[0-9]", lo, hi) != 2) {
				fprintf(stderr, "isod: --band wants LO:HI, e.g. 10:40\n");
				return -EINVAL;
			}
			if (add_override(src, "band_lo", lo) < 0 ||
			    add_override(src, "band_hi", hi) < 0)
				return -E2BIG;
			break;
		}
		case 'L': src->use_syslog = true; break;
		case 'R':
			if (add_override(src, "rtkit", "yes") < 0)
				return -E2BIG;
			break;
		case 'n': src->dry_run = true; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("isod %s\n", ISOD_VERSION); exit(0);
		default:
			if (c >= 1000 && c < 1000 + (int)nkeys) {
				if (add_override(src, config_key_at((size_t)(c - 1000))->key, optarg) < 0)
					return -E2BIG;
				break;
			}
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "isod: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct isod d;
	static struct config_source src = { .path = ISOD_DEFAULT_CONFIG };
	struct isod_config cfg;
	sigset_t ss;
	pthread_t enf;
	int lfd, sigfd, forkfd, r;

	if (parse_args(argc, argv, &src) < 0)
		return 1;
	log_setup(LOG_INFO, false);
	if (config_build(&cfg, &src) < 0)
		return 1;
	log_setup(cfg.log_level, cfg.use_syslog);
	actuator_set_dry_run(cfg.dry_run);
	raise_fd_limit(&cfg);
	r = backend_setup((enum backend_kind)cfg.backend, cfg.scx_pin_dir, NULL);
	if (r < 0) {
		log_error_errno(r, "backend scx: scx_iso is not loaded (or its maps are not in %s)",
				cfg.scx_pin_dir);
		return 1;
	}
	log_info("backend %s: %s", backend_kind_name((enum backend_kind)cfg.backend),
		 backend_current()->owns_budget ? "scx_iso schedules ISO threads"
				      : "kernel SCHED_FIFO/RR in the band");
	/* no page faults in the enforcer's path */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		log_debug("mlockall failed; continuing");
	r = isod_init(&d, &cfg);
	if (r < 0) {
		log_error_errno(r, "initialisation failed");
		return 1;
	}
	/* as before, isod goes on without them */
	(void)isod_police_reports(&d);
	d.src = &src;
	catch_crashes(&d);
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ss, NULL); /* before any thread exists */
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &ss, SFD_CLOEXEC);
	lfd = server_listen(cfg.socket_path);
	if (lfd < 0 || sigfd < 0) {
		log_error("cannot listen on %s", cfg.socket_path);
		return 1;
	}
	pthread_mutex_lock(&d.lock);
	r = statefile_recover(&d);
	if (r < 0 && r != -ENOENT && r != -EBADMSG)
		log_warning_errno(r, "cannot read state file %s", cfg.state_path);
	pthread_mutex_unlock(&d.lock);
	/* whatever the record said: users' RT threads it did not account for
	 * are lost grants (a missing, damaged or stale file) or other strays */
	if (cfg.sweep_orphans && !cfg.dry_run)
		(void)strays_sweep(&d);
	atomic_store(&d.state_dirty, true);
	if (enforcer_start(&d, &enf) < 0)
		return 1;
	log_info("ready on %s: iso_cpu %u%% over %us, band %d..%d, enforcer SCHED_FIFO %d, checks when a decision can change, at least %u ms apart%s",
		 cfg.socket_path, cfg.tun.iso_cpu, cfg.tun.iso_period_s, cfg.band.lo,
		 cfg.band.hi, config_enforcer_prio(&cfg), cfg.sample_ms,
		 cfg.dry_run ? " (dry run)" : "");
	forkfd = forkwatch_open();
	if (forkfd < 0)
		log_warning_errno(forkfd, "no process connector: children of ISO threads stay SCHED_OTHER, and an exec from an ISO thread is seen only at the next sample");
	pthread_mutex_lock(&d.lock);
	d.forkfd = forkfd;
	d.forkwatch_on = forkfd >= 0; /* joined when it was opened */
	forkwatch_follow(&d, d.tasks.used > 0);
	pthread_mutex_unlock(&d.lock);
	r = serve(&d, lfd, sigfd, forkfd);
	if (r < 0)
		return 1;
	pthread_mutex_lock(&d.lock);
	d.forkfd = -1;
	pthread_mutex_unlock(&d.lock);
	if (forkfd >= 0)
		close(forkfd);
	atomic_store(&d.stop, true);
	pthread_mutex_lock(&d.lock);
	pthread_cond_signal(&d.wake); /* it may sleep with no check planned */
	pthread_mutex_unlock(&d.lock);
	pthread_join(enf, NULL);
	pthread_mutex_lock(&d.lock);
	/* Record what was granted, then demote: every thread leaves RT now,
	 * and an isod started again on the same record (systemctl restart, a
	 * package upgrade: the unit keeps /run/isosched over a restart and
	 * removes it on stop) grants them again — each pinned and checked for
	 * start time and owner, as after a crash. */
	statefile_snapshot(&d);
	isod_demote_all(&d);
	r = statefile_store(&d);
	pthread_mutex_unlock(&d.lock);
	/* threads found gone just now: nothing of their processes stays RT */
	strays_tick(&d, 0);
	if (r < 0)
		log_warning_errno(r, "cannot write state file %s", cfg.state_path);
	unlink(cfg.socket_path);
	close(lfd);
	close(sigfd);
	log_info("exit: every ISO thread returned to SCHED_OTHER; %llu checks, %.1f us each on average; the enforcer woke %llu times",
		 (unsigned long long)d.samples,
		 d.samples ? (double)d.sample_ns_total / (double)d.samples / 1000.0 : 0.0,
		 (unsigned long long)d.wakeups);
	isod_destroy(&d);
	backend_close();
	return 0;
}
