/* config.c — isod.conf parsing (inih) and validation. */
#include "config.h"
#include "iso_share.h"

#include <errno.h>
#include <grp.h>
#include <ini.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "backend.h"
#include "log.h"

void config_defaults(struct isod_config *c)
{
	memset(c, 0, sizeof(*c));
	c->tun.iso_cpu = ISO_CPU_DEFAULT;
	c->tun.iso_period_s = ISO_PERIOD_DEFAULT;
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

int config_set(struct isod_config *c, const char *key, const char *v,
	       const char **why)
{
	unsigned u;
	int r = 0;

	*why = NULL;
	if (!strcmp(key, "iso_cpu")) {
		r = parse_uint(v, 1, ISO_CPU_MAX, &c->tun.iso_cpu);
		*why = "iso_cpu must be a percentage from 1 to 100";
	} else if (!strcmp(key, "iso_period")) {
		r = parse_uint(v, 1, ISO_PERIOD_MAX, &c->tun.iso_period_s);
		*why = "iso_period must be from 1 to 3600 seconds";
	} else if (!strcmp(key, "band_lo") || !strcmp(key, "band_hi")) {
		r = parse_uint(v, 1, 98, &u);
		if (r == 0)
			*(!strcmp(key, "band_lo") ? &c->band.lo : &c->band.hi) = (int)u;
		*why = "band limits must be kernel RT priorities from 1 to 98";
	} else if (!strcmp(key, "enforcer_prio")) {
		r = parse_uint(v, 0, 99, &u);
		c->enforcer_prio = (int)u;
		*why = "enforcer_prio must be from 2 to 99 (0: band_hi + 1)";
	} else if (!strcmp(key, "sample_ms")) {
		r = parse_uint(v, 1, 1000, &c->sample_ms);
		*why = "sample_ms must be from 1 to 1000";
	} else if (!strcmp(key, "burst_ms")) {
		r = parse_uint(v, 0, ISO_BURST_MS_MAX, &c->burst_ms);
		*why = "burst_ms must be from 0 (off) to 10000";
	} else if (!strcmp(key, "stall_ms")) {
		r = parse_uint(v, 0, ISO_BURST_MS_MAX, &c->stall_ms);
		*why = "stall_ms must be from 0 (off) to 10000";
	} else if (!strcmp(key, "inherit")) {
		r = parse_bool(v, &c->inherit);
		*why = "inherit must be yes or no";
	} else if (!strcmp(key, "sweep_orphans")) {
		r = parse_bool(v, &c->sweep_orphans);
		*why = "sweep_orphans must be yes or no";
	} else if (!strcmp(key, "audit_interval")) {
		r = parse_uint(v, 0, 3600, &c->audit_interval);
		*why = "audit_interval must be from 0 (off) to 3600 seconds";
	} else if (!strcmp(key, "max_threads_per_user")) {
		r = parse_uint(v, 1, 65536, &c->max_threads_per_user);
		*why = "max_threads_per_user must be from 1 to 65536";
	} else if (!strcmp(key, "max_threads")) {
		r = parse_uint(v, 1, 65536, &c->max_threads);
		*why = "max_threads must be from 1 to 65536";
	} else if (!strcmp(key, "max_limit")) {
		r = parse_uint(v, 0, 100, &c->max_limit);
		*why = "max_limit must be a percentage from 0 (iso_cpu) to 100";
	} else if (!strcmp(key, "user_cpu")) {
		r = parse_uint(v, 0, ISO_USER_CPU_MAX, &c->user_cpu);
		*why = "user_cpu must be a percentage of iso_cpu from 0 (off) to 100";
	} else if (!strcmp(key, "rate_limit")) {
		r = parse_uint(v, 0, 1000000, &c->rate_limit);
		*why = "rate_limit must be from 0 (unlimited) to 1000000 requests per second";
	} else if (!strcmp(key, "rate_burst")) {
		r = parse_uint(v, 1, 1000000, &c->rate_burst);
		*why = "rate_burst must be from 1 to 1000000 requests";
	} else if (!strcmp(key, "allow_users")) {
		r = parse_ids(v, false, c->allow_users, &c->n_allow_users);
		*why = "allow_users must list at most 64 known users";
	} else if (!strcmp(key, "allow_groups")) {
		r = parse_ids(v, true, c->allow_groups, &c->n_allow_groups);
		*why = "allow_groups must list at most 64 known groups";
	} else if (!strcmp(key, "socket")) {
		r = set_path(c->socket_path, sizeof(c->socket_path), v);
		*why = "socket must be an absolute path shorter than 108 bytes";
	} else if (!strcmp(key, "state_file")) {
		r = set_path(c->state_path, sizeof(c->state_path), v);
		*why = "state_file must be an absolute path";
	} else if (!strcmp(key, "log_level")) {
		c->log_level = log_level_from_string(v);
		r = c->log_level < 0 ? -EINVAL : 0;
		*why = "log_level must be error, warning, info or debug";
	} else if (!strcmp(key, "backend")) {
		enum backend_kind k;
		r = backend_parse(v, &k);
		if (r == 0)
			c->backend = (int)k;
		*why = "backend must be auto, kernel-rt or scx";
	} else if (!strcmp(key, "scx_pin_dir")) {
		r = set_path(c->scx_pin_dir, sizeof(c->scx_pin_dir), v);
		*why = "scx_pin_dir must be an absolute path";
	} else if (!strcmp(key, "rtkit")) {
		r = parse_bool(v, &c->rtkit);
		*why = "rtkit must be yes or no";
	} else if (!strcmp(key, "polkit")) {
		r = parse_bool(v, &c->polkit);
		*why = "polkit must be yes or no";
	} else if (!strcmp(key, "syslog")) {
		r = parse_bool(v, &c->use_syslog);
		*why = "syslog must be yes or no";
	} else {
		*why = "unknown key";
		return -ENOKEY;
	}
	if (r == 0)
		*why = NULL;
	return r < 0 ? -EINVAL : 0;
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
