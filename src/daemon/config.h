/* config.h — isod's one configuration struct: defaults, the INI file
 * (inih) and validation. Command-line options are applied by isod.c on top
 * of the file, then everything is validated once.
 *
 * Return contract: 0 or a negative errno; messages go to the log. */
#ifndef ISOD_CONFIG_H
#define ISOD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "iso_band.h"
#include "iso_budget.h"
#include "iso_burst.h"
#include "iso_percpu.h"

/* The build sets it to SYSCONFDIR/isosched/isod.conf (src/daemon/meson.build),
 * so an installed isod reads the file meson install put there. */
#ifndef ISOD_DEFAULT_CONFIG
#define ISOD_DEFAULT_CONFIG "/etc/isosched/isod.conf"
#endif
#define ISOD_DEFAULT_STATE "/run/isosched/isod.state"
#define ISOD_MAX_IDS 64

struct isod_config {
	struct iso_tunables tun;
	struct iso_band band;
	int enforcer_prio;         /* 0: band.hi + 1 */
	unsigned sample_ms;        /* sampling interval, 1..1000 */
	unsigned burst_ms;         /* burst guard: most CPU without blocking; 0 off (iso_burst.h) */
	unsigned stall_ms;         /* stall cap: longest ISO use above iso_cpu; 0 off */
	/* global or per-cpu (iso_percpu.h); restart-only: every average
	 * starts together, and the per-CPU table is sized once */
	enum iso_scope scope;
	bool inherit;              /* adopt children of ISO threads */
	bool sweep_orphans;        /* police strays machine-wide: start-up sweep, audit (strays.h) */
	unsigned audit_interval;   /* seconds between stray audits; 0: none */
	unsigned max_threads_per_user;
	unsigned max_threads;      /* all users together */
	unsigned max_limit;        /* highest own limit a non-root task may set; 0: iso_cpu */
	unsigned user_cpu;         /* percent of iso_cpu one uid may hold; 0: off (iso_share.h) */
	unsigned reserve_cpu;      /* percent of all CPUs reservations may take; 0: none (iso_reserve.h) */
	unsigned reserve_user;     /* percent of reserve_cpu one uid may hold */
	unsigned rate_limit;       /* requests/s per non-root uid; 0: unlimited */
	unsigned rate_burst;       /* requests a uid may make at once */
	uid_t allow_users[ISOD_MAX_IDS];
	size_t n_allow_users;
	gid_t allow_groups[ISOD_MAX_IDS];
	size_t n_allow_groups;
	char socket_path[108];
	char state_path[256];
	int log_level;
	bool use_syslog;
	bool dry_run;
	int backend;               /* enum backend_kind (config_kind.h): auto, kernel-rt, scx */
	char scx_pin_dir[200];     /* where scx_iso pins its maps */
	int accounting;            /* enum accounting_kind (accounting_check.h): auto, bpf, proc */
	bool rtkit;                /* serve org.freedesktop.RealtimeKit1 (rtkit_bus.h) */
	bool polkit;               /* ... and ask polkit for rtkit's action ids too */
};

/* Where a configuration comes from: the file and the command line on top.
 * Kept by the daemon so SIGHUP can rebuild the same way. */
struct config_override {
	const char *key, *value;
};

struct config_source {
	const char *path;
	bool required; /* named with --config: must exist */
	struct config_override ov[64];
	size_t nov;
	bool use_syslog, dry_run;
};

void config_defaults(struct isod_config *c);
/* defaults + file + overrides, validated. On failure *c is untouched and
 * the reason has been logged. */
int config_build(struct isod_config *c, const struct config_source *src);
/* Parse an INI file ([isod] section). A missing file is fine only when
 * optional (the default path). */
int config_load_file(struct isod_config *c, const char *path, bool optional);
/* Set one key from a string, as the file would: used by the parser and by
 * command-line options. *why gets a static message on -EINVAL. */
int config_set(struct isod_config *c, const char *key, const char *value,
	       const char **why);
/* One configuration key (config.c's table). */
struct config_key {
	const char *key;    /* in isod.conf */
	const char *option; /* isod's --long-option taking its value; NULL: none */
	int type;           /* config.c's enum key_type */
	size_t off, size;   /* its field in struct isod_config */
	unsigned lo, hi;    /* range of a number */
	bool reloadable;    /* SIGHUP takes it over; else it needs a restart */
	const char *why;    /* the message for a bad value */
	const char *usage;  /* isod --help: the option as shown; NULL: not shown */
	const char *help;   /* ... and what it does ('\n': a continuation line) */
};
/* The table's i-th key, NULL past the end. */
const struct config_key *config_key_at(size_t i);
/* Copy every reloadable key from n into cur; list the restart-only keys
 * whose value differs (comma-separated, into restart_only) and return
 * how many. The caller applies the copied values (isod_reconfigure). */
size_t config_take_reloadable(struct isod_config *cur, const struct isod_config *n,
			      char *restart_only, size_t cap);
/* Cross-field checks after everything is set. */
int config_validate(const struct isod_config *c, const char **why);
int config_enforcer_prio(const struct isod_config *c);

#endif
