/* daemon.c — isod: does it answer at the socket, with which budget and
 * band, which backend it runs, and how it is configured (its command line
 * in /proc and its configuration file, as far as they are readable). */
#include "doctor.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_CONF "/etc/isosched/isod.conf"
/* isod's default band (docs/configuration.md), when isod cannot be asked. */
#define DEFAULT_BAND_LO 10
#define DEFAULT_BAND_HI 40

void doc_query_isod(struct doc_isod_reply *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->socket, sizeof(out->socket), "%s", iso_socket_path());
	out->err = iso_status(&out->st, NULL, 0);
	if (out->err > 0)
		out->err = 0;
	if (out->err < 0)
		snprintf(out->message, sizeof(out->message), "%s%s%s", strerror(-out->err),
			 iso_last_error()[0] ? ": " : "", iso_last_error());
}

static void set_key(struct doc_isod_conf *o, const char *key, const char *val)
{
	if (!strcmp(key, "socket"))
		snprintf(o->socket, sizeof(o->socket), "%s", val);
	else if (!strcmp(key, "backend"))
		snprintf(o->backend, sizeof(o->backend), "%s", val);
	else if (!strcmp(key, "accounting"))
		snprintf(o->accounting, sizeof(o->accounting), "%s", val);
	else if (!strcmp(key, "scope"))
		snprintf(o->scope, sizeof(o->scope), "%s", val);
	else if (!strcmp(key, "allow_users"))
		snprintf(o->allow_users, sizeof(o->allow_users), "%s", val);
	else if (!strcmp(key, "allow_groups"))
		snprintf(o->allow_groups, sizeof(o->allow_groups), "%s", val);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The keys doctor needs from an isod.conf (INI, section [isod]). Returns
 * 0, or a negative errno if the file cannot be read. */
static int read_conf(const struct doc_ctx *c, const char *path, struct doc_isod_conf *o)
{
	char buf[16384], *line, *save = NULL;
	bool in_isod = false;
	int r = doc_read(c, path, buf, sizeof(buf));

	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *s = trim(line), *eq;

		if (*s == ';' || *s == '#' || !*s)
			continue;
		if (*s == '[') {
			in_isod = !strncmp(s, "[isod]", 6);
			continue;
		}
		if (!in_isod || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		set_key(o, trim(s), trim(eq + 1));
	}
	return 0;
}

/* Options of isod that matter here; "--opt=value" or "--opt value". */
static void parse_cmdline(const char *args, size_t len, char *conf, size_t conf_cap,
			  struct doc_isod_conf *over)
{
	static const struct { const char *opt, *key; } map[] = {
		{ "--socket", "socket" }, { "-s", "socket" }, { "--backend", "backend" },
		{ "--accounting", "accounting" }, { "--scope", "scope" },
		{ "--allow-users", "allow_users" }, { "--allow-groups", "allow_groups" },
		{ "--config", "config" }, { "-c", "config" },
	};
	const char *a = args, *end = args + len;

	while (a < end) {
		const char *next = a + strlen(a) + 1;

		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
			size_t n = strlen(map[i].opt);
			const char *val = NULL;

			if (!strncmp(a, map[i].opt, n) && a[n] == '=')
				val = a + n + 1;
			else if (!strcmp(a, map[i].opt) && next < end)
				val = next;
			if (!val)
				continue;
			if (!strcmp(map[i].key, "config"))
				snprintf(conf, conf_cap, "%s", val);
			else
				set_key(over, map[i].key, val);
		}
		a = next;
	}
}

/* Command-line settings win over the file's. */
static void merge(struct doc_isod_conf *o, const struct doc_isod_conf *over,
		  bool *users, bool *groups)
{
	if (over->socket[0])
		memcpy(o->socket, over->socket, sizeof(o->socket));
	if (over->backend[0])
		memcpy(o->backend, over->backend, sizeof(o->backend));
	if (over->accounting[0])
		memcpy(o->accounting, over->accounting, sizeof(o->accounting));
	if (over->scope[0])
		memcpy(o->scope, over->scope, sizeof(o->scope));
	if ((*users = over->allow_users[0] != '\0'))
		memcpy(o->allow_users, over->allow_users, sizeof(o->allow_users));
	if ((*groups = over->allow_groups[0] != '\0'))
		memcpy(o->allow_groups, over->allow_groups, sizeof(o->allow_groups));
}

/* Read one isod's configuration: its command line (args, len) and file. */
static void load_conf(const struct doc_ctx *c, const char *args, size_t len,
		      struct doc_isod_conf *o)
{
	struct doc_isod_conf over = { 0 };
	bool users, groups;
	int r;

	snprintf(o->conf_path, sizeof(o->conf_path), DEFAULT_CONF);
	parse_cmdline(args, len, o->conf_path, sizeof(o->conf_path), &over);
	r = o->conf_path[0] == '/' ? read_conf(c, o->conf_path, o) : -EINVAL;
	o->conf_read = r == 0;
	merge(o, &over, &users, &groups);
	/* A missing default file means the built-in defaults: everybody. */
	o->allow_known = o->conf_read || (r == -ENOENT && !strcmp(o->conf_path, DEFAULT_CONF)) ||
			 (users && groups);
	if (!o->socket[0])
		snprintf(o->socket, sizeof(o->socket), ISO_DEFAULT_SOCKET);
	if (!o->backend[0])
		snprintf(o->backend, sizeof(o->backend), "auto");
	if (!o->accounting[0])
		snprintf(o->accounting, sizeof(o->accounting), "auto");
	if (!o->scope[0])
		snprintf(o->scope, sizeof(o->scope), "global");
}

void doc_find_isod(const struct doc_ctx *c, const char *socket, struct doc_isod_conf *out)
{
	char path[4096], rel[64], buf[8192];
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof(*out));
	if (doc_path(c, "/proc", path, sizeof(path)) == 0 && (d = opendir(path))) {
		while ((de = readdir(d))) {
			struct doc_isod_conf o = { 0 };
			int n;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			snprintf(rel, sizeof(rel), "/proc/%.20s/comm", de->d_name);
			if (doc_read(c, rel, buf, sizeof(buf)) < 0 || strcmp(buf, "isod\n"))
				continue;
			snprintf(rel, sizeof(rel), "/proc/%.20s/cmdline", de->d_name);
			if ((n = doc_read(c, rel, buf, sizeof(buf))) <= 0)
				continue;
			load_conf(c, buf, (size_t)n, &o);
			if (strcmp(o.socket, socket))
				continue; /* another isod (a test's, a second instance) */
			*out = o;
			out->pid = (pid_t)atoi(de->d_name);
			break;
		}
		closedir(d);
	}
	if (!out->pid)
		load_conf(c, "", 0, out); /* what an isod started now would use */
}

static bool scx_iso_loaded(const struct doc_ctx *c)
{
	char state[32], ops[32];

	return doc_read(c, "/sys/kernel/sched_ext/state", state, sizeof(state)) > 0 &&
	       !strncmp(state, "enabled", 7) &&
	       doc_read(c, "/sys/kernel/sched_ext/root/ops", ops, sizeof(ops)) > 0 &&
	       !strncmp(ops, "iso\n", 4);
}

static void check_backend(struct doc_report *r, const struct doc_ctx *c)
{
	const struct doc_isod_conf *o = &c->conf;
	bool scx = strcmp(o->backend, "kernel-rt") && scx_iso_loaded(c);

	doc_add(r, "isod", "backend", DOC_INFO, NULL,
		"%s (backend = %s%s): %s; inferred from isod's configuration and "
		"/sys/kernel/sched_ext, the status reply does not name it",
		scx ? "scx" : "kernel-rt", o->backend, o->conf_read || o->pid ? "" : "?",
		scx ? "scx_iso schedules ISO threads, budget accounted per CPU"
		: strcasecmp(o->scope, "per-cpu")
			? "ISO threads run as kernel SCHED_FIFO/RR in the band, budget a share of all CPUs"
			: "ISO threads run as kernel SCHED_FIFO/RR in the band, budget per CPU (scope = per-cpu)");
}

/* Where isod's CPU figures come from (accounting, docs/configuration.md):
 * what it is set to, and whether this kernel can give BPF its types. */
static void check_accounting(struct doc_report *r, const struct doc_ctx *c)
{
	const char *a = c->conf.accounting;
	char path[512];
	bool btf = doc_path(c, "/sys/kernel/btf/vmlinux", path, sizeof(path)) == 0 &&
		   access(path, F_OK) == 0;

	if (!strcmp(a, "proc"))
		doc_add(r, "isod", "accounting", DOC_INFO, NULL,
			"proc (accounting = proc): CPU time from /proc schedstat; strays in the band "
			"are found by exec events and the periodic audit");
	else if (!btf)
		doc_add(r, "isod", "accounting", !strcmp(a, "bpf") ? DOC_FAIL : DOC_INFO,
			!strcmp(a, "bpf") ? "set accounting = auto (or proc) in isod.conf: this kernel "
					    "has no BTF (/sys/kernel/btf/vmlinux)" : NULL,
			"%s (accounting = %s): this kernel has no BTF, so BPF accounting cannot load%s",
			!strcmp(a, "bpf") ? "none" : "proc", a,
			!strcmp(a, "bpf") ? ": isod refuses to start" : "; isod uses /proc");
	else
		doc_add(r, "isod", "accounting", DOC_INFO, NULL,
			"%s (accounting = %s): the kernel has BTF; with CAP_BPF and CAP_PERFMON isod "
			"counts run time in the kernel and is told of strays in the band at once%s",
			!strcmp(a, "bpf") ? "bpf" : "bpf where it loads", a,
			!strcmp(a, "bpf") ? "" : " (isod logs at start which one it uses)");
}

void doc_check_isod(struct doc_report *r, struct doc_ctx *c)
{
	const struct doc_isod_reply *q = &c->isod;
	const struct iso_status_info *st = &q->st;
	char fix[256], pid[32] = "";

	if (c->conf.pid)
		snprintf(pid, sizeof(pid), " (pid %d)", (int)c->conf.pid);
	c->band_lo = DEFAULT_BAND_LO;
	c->band_hi = DEFAULT_BAND_HI;
	c->band_from_isod = false;
	if (q->err) {
		if (!strcmp(q->socket, ISO_DEFAULT_SOCKET))
			snprintf(fix, sizeof(fix), "systemctl enable --now isod (as root)");
		else
			snprintf(fix, sizeof(fix), "start isod --socket %s, or set ISOSCHED_SOCKET "
				 "to the socket of the isod that runs", q->socket);
		doc_add(r, "isod", "isod", DOC_FAIL, fix,
			"isod does not answer at %s: %s%s%s", q->socket, q->message,
			c->conf.pid ? "; an isod process runs" : "; no isod process with that socket in /proc",
			pid);
	} else {
		c->band_lo = st->band_lo;
		c->band_hi = st->band_hi;
		c->band_from_isod = true;
		doc_add(r, "isod", "isod", DOC_OK, NULL,
			"isod%s answers at %s: band %d..%d, iso_cpu %u %% over %u s, "
			"ISO use now %.1f %%, %u ISO threads, checks at least %.1f ms apart, %u CPUs",
			pid, q->socket, st->band_lo, st->band_hi, st->iso_cpu, st->iso_period_s,
			st->usage_milli / 1000.0, st->total, st->sample_us / 1000.0, st->ncpus);
		doc_add(r, "isod", "budget", st->refractory ? DOC_WARN : DOC_OK,
			st->refractory ? "find the runaway with isoctl status; it gets ISO back "
					 "once use falls below 90 % of iso_cpu" : NULL,
			st->refractory ? "refractory now: ISO use %.1f %% is over iso_cpu %u %%, every "
					 "ISO thread runs SCHED_OTHER"
				       : "within budget: ISO use %.1f %% of iso_cpu %u %%",
			st->usage_milli / 1000.0, st->iso_cpu);
		check_backend(r, c);
		check_accounting(r, c);
	}
	if (!c->conf.conf_read && !c->conf.allow_known)
		doc_add(r, "isod", "config", DOC_SKIP, NULL, "%s not readable", c->conf.conf_path);
	else if (!c->conf.allow_users[0] && !c->conf.allow_groups[0])
		doc_add(r, "isod", "config", DOC_INFO, NULL, "%s%s: every user may enter ISO",
			c->conf.conf_path, c->conf.conf_read ? "" : " (none: built-in defaults)");
	else
		doc_add(r, "isod", "config", DOC_INFO, NULL,
			"%s%s: only root, allow_users %s and allow_groups %s may enter ISO",
			c->conf.conf_path,
			c->conf.conf_read ? "" : " (file not read; lists from isod's command line)",
			c->conf.allow_users[0] ? c->conf.allow_users : "-",
			c->conf.allow_groups[0] ? c->conf.allow_groups : "-");
	doc_add(r, "isod", "version", DOC_INFO, NULL,
		"isoctl %s, wire protocol 1; isod's own version is not in its status reply",
		c->isoctl_version ? c->isoctl_version : "?");
}
