/* config.c — isod.conf parsing (inih) and validation. */
#include "config.h"
#include "iso_reserve.h"
#include "iso_share.h"

#include <errno.h>
#include <stddef.h>
#include <grp.h>
#include <ini.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "accounting_check.h"
#include "config_kind.h"
#include "log.h"

void config_defaults(struct isod_config *c)
{
	memset(c, 0, sizeof(*c));
	c->tun.iso_cpu = ISO_CPU_DEFAULT;
	c->tun.iso_period_s = ISO_PERIOD_DEFAULT;
	c->reserve_cpu = ISO_RESERVE_CPU_DEFAULT;
	c->reserve_user = ISO_RESERVE_USER_DEFAULT;
	c->band.lo = ISO_BAND_DEFAULT_LO;
	c->band.hi = ISO_BAND_DEFAULT_HI;
	c->sample_ms = 10;
	c->burst_ms = ISO_BURST_MS_DEFAULT;
	c->stall_ms = ISO_STALL_MS_DEFAULT;
	c->inherit = true;
	c->sweep_orphans = true;
	c->audit_interval = 10;
	c->max_threads_per_user = 256;
	c->max_threads = 4096;
	c->rate_limit = 200;
	c->rate_burst = 400;
	snprintf(c->socket_path, sizeof(c->socket_path), "%s", "/run/isosched/isod.sock");
	snprintf(c->state_path, sizeof(c->state_path), "%s", ISOD_DEFAULT_STATE);
	c->log_level = LOG_INFO;
	c->backend = BACKEND_AUTO;
	snprintf(c->scx_pin_dir, sizeof(c->scx_pin_dir), "%s", "/sys/fs/bpf/isosched");
}

static int parse_uint(const char *v, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long n;

	if (!v || !*v || *v == '-' || *v == '+')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Comma-separated names or numeric ids. */
static int parse_ids(const char *v, bool groups, unsigned *ids, size_t *n)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(v) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, v);
	*n = 0;
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		unsigned id;

		if (*n >= ISOD_MAX_IDS)
			return -EINVAL;
		if (parse_uint(tok, 0, UINT_MAX - 1, &id) < 0) {
			if (groups) {
				struct group *g = getgrnam(tok);
				if (!g)
					return -ENOENT;
				id = g->gr_gid;
			} else {
				struct passwd *p = getpwnam(tok);
				if (!p)
					return -ENOENT;
				id = p->pw_uid;
			}
		}
		ids[(*n)++] = id;
	}
	return 0;
}

static int set_path(char *dst, size_t cap, const char *v)
{
	if (!*v || *v != '/' || strlen(v) >= cap)
		return -EINVAL;
	strcpy(dst, v);
	return 0;
}

/* Every configuration key, once: its type and range, the --long-option
 * that sets it from the command line (isod.c), whether SIGHUP takes it
 * over (isod_reconfigure) or it needs a restart, and the message for a bad
 * value. Defaults are config_defaults'. */
enum key_type {
	KEY_UINT,      /* unsigned, lo..hi */
	KEY_INT,       /* int field, lo..hi */
	KEY_BOOL,      /* yes/no, true/false, 1/0 */
	KEY_PATH,      /* absolute, shorter than the field */
	KEY_USERS,     /* allow_users and its count */
	KEY_GROUPS,    /* allow_groups and its count */
	KEY_LOG_LEVEL, /* error, warning, info, debug */
	KEY_BACKEND,   /* auto, kernel-rt, scx */
	KEY_ACCOUNTING, /* auto, bpf, proc */
	KEY_SCOPE,     /* global, per-cpu (iso_percpu.h) */
};

#define FIELD(f) offsetof(struct isod_config, f), sizeof(((struct isod_config *)0)->f)

static const struct config_key keys[] = {
	{ "socket", "socket", KEY_PATH, FIELD(socket_path), 0, 0, false,
	  "socket must be an absolute path shorter than 108 bytes",
	  "-s, --socket PATH", "listening socket (default /run/isosched/isod.sock)" },
	{ "state_file", "state-file", KEY_PATH, FIELD(state_path), 0, 0, false,
	  "state_file must be an absolute path",
	  "--state-file PATH", "where granted threads are recorded (default " ISOD_DEFAULT_STATE ")" },
	{ "iso_cpu", "iso-cpu", KEY_UINT, FIELD(tun.iso_cpu), 1, ISO_CPU_MAX, true,
	  "iso_cpu must be a percentage from 1 to 100",
	  "--iso-cpu PCT", "CPU budget of all ISO threads, 1..100 (default 70)" },
	{ "iso_period", "iso-period", KEY_UINT, FIELD(tun.iso_period_s), 1, ISO_PERIOD_MAX, true,
	  "iso_period must be from 1 to 3600 seconds",
	  "--iso-period SEC", "averaging period, 1..3600 (default 5)" },
	/* both set by --band LO:HI (isod.c) */
	{ "band_lo", NULL, KEY_INT, FIELD(band.lo), 1, 98, false,
	  "band limits must be kernel RT priorities from 1 to 98",
	  "--band LO:HI", "kernel RT priorities for ISO, 1..98 (default 10:40)" },
	{ "band_hi", NULL, KEY_INT, FIELD(band.hi), 1, 98, false,
	  "band limits must be kernel RT priorities from 1 to 98", NULL, NULL },
	{ "enforcer_prio", "enforcer-prio", KEY_INT, FIELD(enforcer_prio), 0, 99, false,
	  "enforcer_prio must be from 2 to 99 (0: band_hi + 1)",
	  "--enforcer-prio N", "SCHED_FIFO priority of the enforcer (default HI+1)" },
	{ "sample_ms", "sample-ms", KEY_UINT, FIELD(sample_ms), 1, 1000, false,
	  "sample_ms must be from 1 to 1000",
	  "--sample-ms MS", "least time between two checks, 1..1000 (default 10)" },
	{ "burst_ms", "burst-ms", KEY_UINT, FIELD(burst_ms), 0, ISO_BURST_MS_MAX, true,
	  "burst_ms must be from 0 (off) to 10000",
	  "--burst-ms MS", "burst guard: a thread that runs this long without\n"
	  "blocking loses ISO until it blocks, 0..10000, 0 off\n(default 200)" },
	{ "stall_ms", "stall-ms", KEY_UINT, FIELD(stall_ms), 0, ISO_BURST_MS_MAX, true,
	  "stall_ms must be from 0 (off) to 10000",
	  "--stall-ms MS", "stall cap: ISO above iso_cpu of the machine for at\n"
	  "most this long at a time, 0..10000, 0 off (default 200)" },
	{ "scope", "scope", KEY_SCOPE, FIELD(scope), 0, 0, false,
	  "scope must be global or per-cpu",
	  "--scope S", "the budget of all CPUs together (global, default)\n"
	  "or of each CPU on its own (per-cpu)" },
	{ "inherit", "inherit", KEY_BOOL, FIELD(inherit), 0, 0, true,
	  "inherit must be yes or no",
	  "--inherit yes|no", "adopt children of ISO threads (default yes)" },
	{ "max_threads_per_user", "max-threads-per-user", KEY_UINT, FIELD(max_threads_per_user),
	  1, 65536, true, "max_threads_per_user must be from 1 to 65536",
	  "--max-threads-per-user N", "(default 256)" },
	{ "max_threads", "max-threads", KEY_UINT, FIELD(max_threads), 1, 65536, false,
	  "max_threads must be from 1 to 65536",
	  "--max-threads N", "all users together (default 4096)" },
	{ "max_limit", "max-limit", KEY_UINT, FIELD(max_limit), 0, 100, true,
	  "max_limit must be a percentage from 0 (iso_cpu) to 100",
	  "--max-limit PCT", "highest own CPU limit a user may set (default iso_cpu)" },
	{ "user_cpu", "user-cpu", KEY_UINT, FIELD(user_cpu), 0, ISO_USER_CPU_MAX, true,
	  "user_cpu must be a percentage of iso_cpu from 0 (off) to 100",
	  "--user-cpu PCT", "share of iso_cpu one user may hold before its threads\n"
	  "alone are demoted, 0..100 (default 0: off)" },
	{ "reserve_cpu", "reserve-cpu", KEY_UINT, FIELD(reserve_cpu), 0, ISO_RESERVE_CPU_MAX, true,
	  "reserve_cpu must be a percentage of all CPUs from 0 (no reservations) to 90",
	  "--reserve-cpu PCT", "share of all CPUs declared reservations (SCHED_DEADLINE)\n"
	  "may take together, 0..90, 0 none (default 30)" },
	{ "reserve_user", "reserve-user", KEY_UINT, FIELD(reserve_user), 1, 100, true,
	  "reserve_user must be a percentage of reserve_cpu from 1 to 100",
	  "--reserve-user PCT", "share of reserve_cpu one user's reservations may\n"
	  "take, 1..100 (default 50)" },
	{ "rate_limit", "rate-limit", KEY_UINT, FIELD(rate_limit), 0, 1000000, true,
	  "rate_limit must be from 0 (unlimited) to 1000000 requests per second",
	  "--rate-limit N", "requests per second per user, root exempt; more\n"
	  "are refused with EAGAIN (default 200; 0: no limit)" },
	{ "rate_burst", "rate-burst", KEY_UINT, FIELD(rate_burst), 1, 1000000, true,
	  "rate_burst must be from 1 to 1000000 requests",
	  "--rate-burst N", "requests a user may make at once (default 400)" },
	{ "allow_users", "allow-users", KEY_USERS, FIELD(allow_users), 0, 0, true,
	  "allow_users must list at most 64 known users",
	  "--allow-users LIST", "only these users (names or uids, comma-separated)" },
	{ "allow_groups", "allow-groups", KEY_GROUPS, FIELD(allow_groups), 0, 0, true,
	  "allow_groups must list at most 64 known groups",
	  "--allow-groups LIST", "only members of these groups (e.g. audio)" },
	{ "sweep_orphans", "sweep-orphans", KEY_BOOL, FIELD(sweep_orphans), 0, 0, true,
	  "sweep_orphans must be yes or no",
	  "--sweep-orphans yes|no", "police strays machine-wide: demote users' threads\n"
	  "kernel RT at any priority (or DEADLINE) that isod\ndoes not track, at start-up and every audit\ninterval (default yes)" },
	{ "audit_interval", "audit-interval", KEY_UINT, FIELD(audit_interval), 0, 3600, true,
	  "audit_interval must be from 0 (off) to 3600 seconds",
	  "--audit-interval SEC", "seconds between audits for strays, 0..3600\n"
	  "(default 10; 0: only at start-up)" },
	{ "log_level", "log-level", KEY_LOG_LEVEL, FIELD(log_level), 0, 0, true,
	  "log_level must be error, warning, info or debug",
	  "--log-level LEVEL", "error, warning, info (default) or debug" },
	{ "backend", "backend", KEY_BACKEND, FIELD(backend), 0, 0, false,
	  "backend must be auto, kernel-rt or scx",
	  "--backend B", "auto (default), kernel-rt or scx (the scx_iso scheduler)" },
	{ "scx_pin_dir", "scx-pin-dir", KEY_PATH, FIELD(scx_pin_dir), 0, 0, false,
	  "scx_pin_dir must be an absolute path",
	  "--scx-pin-dir DIR", "where scx_iso pins its maps (default /sys/fs/bpf/isosched)" },
	{ "accounting", "accounting", KEY_ACCOUNTING, FIELD(accounting), 0, 0, false,
	  "accounting must be auto, bpf or proc",
	  "--accounting A", "where CPU time comes from: auto (default: bpf if\n"
	  "it loads, else proc), bpf or proc" },
	/* --rtkit and --syslog are flags (isod.c), not options with a value */
	{ "rtkit", NULL, KEY_BOOL, FIELD(rtkit), 0, 0, false, "rtkit must be yes or no",
	  "--rtkit", "also answer RealtimeKit1 (rtkit's D-Bus interface)\n"
	  "on the system bus (DBUS_SYSTEM_BUS_ADDRESS)" },
	{ "polkit", "polkit", KEY_BOOL, FIELD(polkit), 0, 0, false, "polkit must be yes or no",
	  "--polkit yes|no", "with --rtkit, also ask polkit for rtkit's action\nids (default no)" },
	{ "syslog", NULL, KEY_BOOL, FIELD(use_syslog), 0, 0, false, "syslog must be yes or no",
	  "--syslog", "log to syslog instead of stderr" },
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

const struct config_key *config_key_at(size_t i)
{
	return i < N_KEYS ? &keys[i] : NULL;
}

static const struct config_key *find_key(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcmp(keys[i].key, name))
			return &keys[i];
	return NULL;
}

static int set_value(struct isod_config *c, const struct config_key *k, const char *v)
{
	void *field = (char *)c + k->off;
	unsigned u;
	int r;

	switch (k->type) {
	case KEY_UINT:
		return parse_uint(v, k->lo, k->hi, field);
	case KEY_INT:
		r = parse_uint(v, k->lo, k->hi, &u);
		if (r == 0)
			*(int *)field = (int)u;
		return r;
	case KEY_BOOL:
		return parse_bool(v, field);
	case KEY_PATH:
		return set_path(field, k->size, v);
	case KEY_USERS:
		return parse_ids(v, false, c->allow_users, &c->n_allow_users);
	case KEY_GROUPS:
		return parse_ids(v, true, c->allow_groups, &c->n_allow_groups);
	case KEY_LOG_LEVEL:
		r = log_level_from_string(v);
		if (r < 0)
			return -EINVAL;
		c->log_level = r;
		return 0;
	case KEY_BACKEND: {
		enum backend_kind kind;

		r = backend_parse(v, &kind);
		if (r == 0)
			c->backend = (int)kind;
		return r;
	}
	case KEY_ACCOUNTING: {
		enum accounting_kind kind;

		r = accounting_parse(v, &kind);
		if (r == 0)
			c->accounting = (int)kind;
		return r;
	}
	case KEY_SCOPE:
		return iso_scope_parse(v, field);
	}
	return -EINVAL;
}

int config_set(struct isod_config *c, const char *key, const char *v,
	       const char **why)
{
	const struct config_key *k = find_key(key);

	if (!k) {
		*why = "unknown key";
		return -ENOKEY;
	}
	if (set_value(c, k, v) < 0) {
		*why = k->why;
		return -EINVAL;
	}
	*why = NULL;
	return 0;
}

/* The list's count travels with it. */
static void copy_key(struct isod_config *to, const struct isod_config *from,
		     const struct config_key *k)
{
	memcpy((char *)to + k->off, (const char *)from + k->off, k->size);
	if (k->type == KEY_USERS)
		to->n_allow_users = from->n_allow_users;
	else if (k->type == KEY_GROUPS)
		to->n_allow_groups = from->n_allow_groups;
}

static bool key_differs(const struct isod_config *a, const struct isod_config *b,
			const struct config_key *k)
{
	if (k->type == KEY_PATH)
		return strcmp((const char *)a + k->off, (const char *)b + k->off) != 0;
	if (k->type == KEY_USERS && a->n_allow_users != b->n_allow_users)
		return true;
	if (k->type == KEY_GROUPS && a->n_allow_groups != b->n_allow_groups)
		return true;
	return memcmp((const char *)a + k->off, (const char *)b + k->off, k->size) != 0;
}

size_t config_take_reloadable(struct isod_config *cur, const struct isod_config *n,
			      char *restart_only, size_t cap)
{
	size_t changed = 0, len = 0;

	if (cap)
		restart_only[0] = '\0';
	for (size_t i = 0; i < N_KEYS; i++) {
		const struct config_key *k = &keys[i];

		if (k->reloadable) {
			copy_key(cur, n, k);
		} else if (key_differs(cur, n, k)) {
			changed++;
			if (len < cap)
				len += (size_t)snprintf(restart_only + len, cap - len, "%s%s",
							len ? ", " : "", k->key);
		}
	}
	return changed;
}

struct load_ctx {
	struct isod_config *c;
	const char *path;
	int err;
};

static int on_ini_line(void *user, const char *section, const char *key,
		       const char *value)
{
	struct load_ctx *ctx = user;
	const char *why;

	if (strcmp(section, "isod")) {
		log_error("%s: unknown section [%s]", ctx->path, section);
		ctx->err = -EINVAL;
		return 0;
	}
	if (config_set(ctx->c, key, value, &why) < 0) {
		log_error("%s: %s = %s: %s", ctx->path, key, value, why);
		ctx->err = -EINVAL;
		return 0;
	}
	return 1;
}

int config_load_file(struct isod_config *c, const char *path, bool optional)
{
	struct isod_config tmp = *c;
	struct load_ctx ctx = { &tmp, path, 0 };
	FILE *f = fopen(path, "re");
	int line;

	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		return log_error_errno(-errno, "cannot open config %s", path);
	}
	line = ini_parse_file(f, on_ini_line, &ctx);
	fclose(f);
	if (line > 0 && ctx.err == 0) {
		log_error("%s:%d: syntax error", path, line);
		ctx.err = -EINVAL;
	} else if (line > 0) {
		log_error("%s:%d: invalid setting (see above)", path, line);
	}
	if (ctx.err < 0)
		return ctx.err; /* bad input changes nothing */
	*c = tmp;
	return 0;
}

int config_enforcer_prio(const struct isod_config *c)
{
	return c->enforcer_prio ? c->enforcer_prio : c->band.hi + 1;
}

int config_validate(const struct isod_config *c, const char **why)
{
	int r = iso_tunables_check(&c->tun, why);

	if (r < 0)
		return r;
	r = iso_band_check(&c->band, why);
	if (r < 0)
		return r;
	if (config_enforcer_prio(c) <= c->band.hi) {
		*why = "enforcer_prio must be above band_hi, or no runaway could be stopped";
		return -EINVAL;
	}
	if (c->max_threads_per_user > c->max_threads) {
		*why = "max_threads_per_user must not exceed max_threads";
		return -EINVAL;
	}
	*why = NULL;
	return 0;
}

int config_build(struct isod_config *out, const struct config_source *src)
{
	struct isod_config c;
	const char *why;

	config_defaults(&c);
	if (config_load_file(&c, src->path, !src->required) < 0)
		return -EINVAL;
	for (size_t i = 0; i < src->nov; i++) {
		if (config_set(&c, src->ov[i].key, src->ov[i].value, &why) < 0) {
			log_error("%s '%s': %s", src->ov[i].key, src->ov[i].value, why);
			return -EINVAL;
		}
	}
	c.use_syslog |= src->use_syslog;
	c.dry_run |= src->dry_run;
	if (config_validate(&c, &why) < 0) {
		log_error("invalid configuration: %s", why);
		return -EINVAL;
	}
	*out = c;
	return 0;
}
