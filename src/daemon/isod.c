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
#include "isod.h"
#include "log.h"
#include "revoke.h"
#ifdef ISOD_HAVE_RTKIT
#include "rtkit_bus.h"
#endif
#include "server.h"
#include "statefile.h"
#include "strays.h"

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
"                             a missing default file is fine)\n"
"  -s, --socket PATH          listening socket (default /run/isosched/isod.sock)\n"
"      --state-file PATH      where granted threads are recorded (default %s)\n"
"      --iso-cpu PCT          CPU budget of all ISO threads, 1..100 (default 70)\n"
"      --iso-period SEC       averaging period, 1..3600 (default 5)\n"
"      --band LO:HI           kernel RT priorities for ISO, 1..98 (default 10:40)\n"
"      --enforcer-prio N      SCHED_FIFO priority of the enforcer (default HI+1)\n"
"      --sample-ms MS         least time between two checks, 1..1000 (default 10)\n"
"      --burst-ms MS          burst guard: a thread that runs this long without\n"
"                             blocking loses ISO until it blocks, 0..10000, 0 off\n"
"                             (default 200)\n"
"      --stall-ms MS          stall cap: ISO above iso_cpu of the machine for at\n"
"                             most this long at a time, 0..10000, 0 off (default 200)\n"
"      --inherit yes|no       adopt children of ISO threads (default yes)\n"
"      --max-threads-per-user N  (default 256)\n"
"      --max-threads N        all users together (default 4096)\n"
"      --max-limit PCT        highest own CPU limit a user may set (default iso_cpu)\n"
"      --user-cpu PCT         share of iso_cpu one user may hold before its threads\n"
"                             alone are demoted, 0..100 (default 0: off)\n"
"      --rate-limit N         requests per second per user, root exempt; more\n"
"                             are refused with EAGAIN (default 200; 0: no limit)\n"
"      --rate-burst N         requests a user may make at once (default 400)\n"
"      --allow-users LIST     only these users (names or uids, comma-separated)\n"
"      --allow-groups LIST    only members of these groups (e.g. audio)\n"
"      --sweep-orphans yes|no police strays machine-wide: demote band threads\n"
"                             of users that isod does not track, at start-up\n"
"                             and every audit interval (default yes)\n"
"      --audit-interval SEC   seconds between audits of the band, 0..3600\n"
"                             (default 10; 0: only at start-up)\n"
"      --log-level LEVEL      error, warning, info (default) or debug\n"
"      --backend B            auto (default), kernel-rt or scx (the scx_iso scheduler)\n"
"      --scx-pin-dir DIR      where scx_iso pins its maps (default /sys/fs/bpf/isosched)\n"
"      --rtkit                also answer RealtimeKit1 (rtkit's D-Bus interface)\n"
"                             on the system bus (DBUS_SYSTEM_BUS_ADDRESS)\n"
"      --polkit yes|no        with --rtkit, also ask polkit for rtkit's action\n"
"                             ids (default no)\n"
"      --syslog               log to syslog instead of stderr\n"
"      --dry-run              decide and log, but change no thread\n"
"  -h, --help                 this help\n"
"  -V, --version              version\n"
"\n"
"Signals: SIGTERM/SIGINT demote every ISO thread to SCHED_OTHER and exit;\n"
"SIGHUP re-reads the configuration (a bad file changes nothing); threads of\n"
"users the new allow lists no longer admit return to SCHED_OTHER.\n"
"Exit status: 0 after a clean shutdown, 1 on a configuration or start-up\n"
"error. See isod.conf(5) (docs/configuration.md) and isoctl --help.\n",
		ISOD_DEFAULT_CONFIG, ISOD_DEFAULT_STATE);
}

/* Long options that map 1:1 onto configuration keys. */
static const struct { const char *opt, *key; } key_opts[] = {
	{ "socket", "socket" }, { "state-file", "state_file" },
	{ "iso-cpu", "iso_cpu" }, { "iso-period", "iso_period" },
	{ "enforcer-prio", "enforcer_prio" }, { "sample-ms", "sample_ms" },
	{ "inherit", "inherit" }, { "max-threads-per-user", "max_threads_per_user" },
	{ "max-threads", "max_threads" }, { "max-limit", "max_limit" },
	{ "user-cpu", "user_cpu" },
	{ "rate-limit", "rate_limit" }, { "rate-burst", "rate_burst" },
	{ "allow-users", "allow_users" }, { "allow-groups", "allow_groups" },
	{ "log-level", "log_level" }, { "sweep-orphans", "sweep_orphans" },
	{ "audit-interval", "audit_interval" },
	{ "backend", "backend" }, { "scx-pin-dir", "scx_pin_dir" },
	{ "burst-ms", "burst_ms" }, { "stall-ms", "stall_ms" },
	{ "polkit", "polkit" },
};
#define N_KEY_OPTS (sizeof(key_opts) / sizeof(key_opts[0]))

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
 * restarted isod re-grants them from the state file.
 * Process-wide by nature: the handler has no other way to reach isod. */
static struct isod *crash_d;

static void last_gasp(void)
{
	const struct task_table *tt = &crash_d->tasks;

	actuator_die();
	for (size_t i = 0; i < tt->end && i < tt->cap; i++)
		if (tt->t[i].used && tasks_alive(&tt->t[i]))
			(void)actuator_demote_signal_safe(tt->t[i].tid);
}

static void catch_crashes(struct isod *d)
{
	int r;

	crash_d = d;
	r = crash_catch(last_gasp);
	if (r < 0)
		log_warning_errno(r, "no alternate signal stack: a stack overflow would not demote");
}

/* Each tracked thread holds one fd (schedstat) and each client one:
 * take the hard limit (systemd's default soft limit is 1024), and say so
 * if even that cannot hold max_threads. */
static void raise_fd_limit(const struct isod_config *c)
{
	rlim_t need = (rlim_t)c->max_threads + SERVER_MAX_CONN + 64;
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
			    (unsigned long long)(rl.rlim_cur > SERVER_MAX_CONN + 64
						 ? rl.rlim_cur - SERVER_MAX_CONN - 64 : 0));
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
	struct option opts[N_KEY_OPTS + 9];
	size_t n = 0;
	int c, idx;

	for (size_t i = 0; i < N_KEY_OPTS; i++)
		opts[n++] = (struct option){ key_opts[i].opt, required_argument, NULL, 1000 + (int)i };
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
		case 'V': printf("isod 0.1.0\n"); exit(0);
		default:
			if (c >= 1000 && c < 1000 + (int)N_KEY_OPTS) {
				if (add_override(src, key_opts[c - 1000].key, optarg) < 0)
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
		 backend_scx_active() ? "scx_iso schedules ISO threads"
				      : "kernel SCHED_FIFO/RR in the band");
	/* no page faults in the enforcer's path */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		log_debug("mlockall failed; continuing");
	r = isod_init(&d, &cfg);
	if (r < 0) {
		log_error_errno(r, "initialisation failed");
		return 1;
	}
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
	/* whatever the record said: band threads it did not account for are
	 * lost grants (a missing, damaged or stale file) or other strays */
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
	r = serve(&d, lfd, sigfd, forkfd);
	if (r < 0)
		return 1;
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
