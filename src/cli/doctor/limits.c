/* limits.c — the user's side: resource limits (/proc/self/limits: a
 * RLIMIT_RTPRIO lets the user take RT without isod, RLIMIT_RTTIME kills
 * a busy RT thread, RLIMIT_MEMLOCK keeps audio buffers from being locked)
 * and membership in isod's allow_users / allow_groups. */
#include "doctor.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Soft and hard value of one "Max ..." line; -1 for unlimited. */
static int limit_of(const char *buf, const char *name, long long *soft, long long *hard)
{
	const char *p = strstr(buf, name);
	char *end;

	if (!p)
		return -1;
	p += strlen(name);
	for (int i = 0; i < 2; i++) {
		long long *out = i ? hard : soft;

		while (*p == ' ')
			p++;
		if (!strncmp(p, "unlimited", 9)) {
			*out = -1;
			p += 9;
			continue;
		}
		*out = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	return 0;
}

/* Lines of limits.conf and limits.d/ that grant rtprio, "FILE: LINE; ..."
 * into out (empty if none). */
static void find_rtprio_lines(const struct doc_ctx *c, char *out, size_t cap)
{
	char files[32][300], path[4096], buf[16384];
	size_t nfiles = 0, len = 0;
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	snprintf(files[nfiles++], sizeof(files[0]), "/etc/security/limits.conf");
	if (doc_path(c, "/etc/security/limits.d", path, sizeof(path)) == 0 && (d = opendir(path))) {
		while ((de = readdir(d)) && nfiles < 32) {
			size_t n = strlen(de->d_name);

			if (n > 5 && !strcmp(de->d_name + n - 5, ".conf"))
				snprintf(files[nfiles++], sizeof(files[0]),
					 "/etc/security/limits.d/%.200s", de->d_name);
		}
		closedir(d);
	}
	for (size_t i = 0; i < nfiles; i++) {
		char *line, *save = NULL;

		if (doc_read(c, files[i], buf, sizeof(buf)) < 0)
			continue;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char dom[64], type[16], item[32], val[32];

			if (sscanf(line, " %63s %15s %31s %31s", dom, type, item, val) != 4 ||
			    dom[0] == '#' || strcmp(item, "rtprio"))
				continue;
			if (len < cap)
				len += (size_t)snprintf(out + len, cap - len, "%s%s: %s %s rtprio %s",
							len ? "; " : "", files[i], dom, type, val);
		}
	}
}

static void check_rlimits(struct doc_report *r, const struct doc_ctx *c)
{
	char buf[4096], lines[512];
	long long soft, hard;

	if (doc_read(c, "/proc/self/limits", buf, sizeof(buf)) < 0) {
		doc_add(r, "limits", "rtprio", DOC_SKIP, NULL, "/proc/self/limits not readable");
		return;
	}
	if (limit_of(buf, "Max realtime priority", &soft, &hard) < 0) {
		doc_add(r, "limits", "rtprio", DOC_SKIP, NULL, "no RLIMIT_RTPRIO line in /proc/self/limits");
	} else if (c->uid == 0) {
		doc_add(r, "limits", "rtprio", DOC_INFO, NULL,
			"root: may take any RT priority directly (CAP_SYS_NICE), outside isod's budget");
	} else if (soft != 0 || hard != 0) {
		find_rtprio_lines(c, lines, sizeof(lines));
		doc_add(r, "limits", "rtprio", DOC_WARN,
			"remove the rtprio line (e.g. '@audio - rtprio 95') from /etc/security/limits.conf "
			"or limits.d and log in again: isod then grants RT under its budget",
			"RLIMIT_RTPRIO %lld (hard %lld): this user may take SCHED_FIFO/RR up to that "
			"priority directly, bypassing isod's budget entirely%s%s",
			soft < 0 ? 99 : soft, hard < 0 ? 99 : hard, lines[0] ? "; from " : "", lines);
	} else {
		doc_add(r, "limits", "rtprio", DOC_OK, NULL,
			"RLIMIT_RTPRIO 0: RT only through isod, under its budget");
	}
	if (limit_of(buf, "Max realtime timeout", &soft, &hard) < 0)
		doc_add(r, "limits", "rttime", DOC_SKIP, NULL, "no RLIMIT_RTTIME line");
	else if (soft >= 0)
		doc_add(r, "limits", "rttime", DOC_WARN,
			"drop the RLIMIT_RTTIME setting (limits.conf 'rttime', or the program's setrlimit)",
			"RLIMIT_RTTIME %lld us: an ISO thread that runs that long without blocking "
			"gets SIGXCPU%s, where isod would only demote it", soft,
			hard >= 0 ? ", then SIGKILL at the hard limit" : "");
	else
		doc_add(r, "limits", "rttime", DOC_OK, NULL,
			"RLIMIT_RTTIME unlimited: a busy ISO thread is demoted by isod, never killed");
	if (limit_of(buf, "Max locked memory", &soft, &hard) < 0)
		doc_add(r, "limits", "memlock", DOC_SKIP, NULL, "no RLIMIT_MEMLOCK line");
	else if (soft >= 0 && soft < (64ll << 20))
		doc_add(r, "limits", "memlock", DOC_WARN,
			"'@audio - memlock unlimited' in /etc/security/limits.d/audio.conf, log in again",
			"RLIMIT_MEMLOCK %lld KiB: audio programs that lock their memory (JACK, "
			"mlockall) may fail or page-fault in the audio path", soft / 1024);
	else
		doc_add(r, "limits", "memlock", DOC_OK, NULL, "RLIMIT_MEMLOCK %s%lld%s",
			soft < 0 ? "unlimited" : "", soft < 0 ? 0 : soft / (1 << 20),
			soft < 0 ? "" : " MiB");
}

/* The gid of group name (or a number), from ROOT/etc/group; -1 if none. */
static long group_gid(const char *name, const char *etc_group)
{
	char *end, pat[80];
	const char *p;
	long g = strtol(name, &end, 10);

	if (!*end && end != name)
		return g;
	snprintf(pat, sizeof(pat), "%s:", name);
	for (p = etc_group; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, pat, strlen(pat))) {
			const char *q = strchr(p + strlen(pat), ':');

			return q ? strtol(q + 1, NULL, 10) : -1;
		}
	}
	return -1;
}

/* Whether the list ("a,b c") names the user by name or uid. */
static bool list_has_user(const char *list, const char *user, uid_t uid)
{
	char copy[256], *tok, *save = NULL, num[16];

	snprintf(copy, sizeof(copy), "%s", list);
	snprintf(num, sizeof(num), "%u", (unsigned)uid);
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save))
		if (!strcmp(tok, num) || (user[0] && !strcmp(tok, user)))
			return true;
	return false;
}

static void user_name(const struct doc_ctx *c, uid_t uid, char *out, size_t cap)
{
	char buf[65536], *line, *save = NULL;

	out[0] = '\0';
	if (doc_read(c, "/etc/passwd", buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *u = colon ? strchr(colon + 1, ':') : NULL;

		if (colon && u && strtoul(u + 1, NULL, 10) == uid) {
			*colon = '\0';
			snprintf(out, cap, "%s", line);
			return;
		}
	}
}

static void check_groups(struct doc_report *r, const struct doc_ctx *c)
{
	const struct doc_isod_conf *cf = &c->conf;
	char status[4096], etc_group[65536], user[64], copy[256], fix[160], *tok, *save = NULL;
	const char *g;
	long gids[66];
	size_t ngids = 0;

	if (!cf->allow_known) {
		doc_add(r, "limits", "allowed", DOC_SKIP, NULL,
			"isod's allow_users / allow_groups unknown (its configuration is not readable)");
		return;
	}
	if (!cf->allow_users[0] && !cf->allow_groups[0]) {
		doc_add(r, "limits", "allowed", DOC_OK, NULL, "isod lets every user enter ISO");
		return;
	}
	user_name(c, c->uid, user, sizeof(user));
	if (c->uid == 0 || list_has_user(cf->allow_users, user, c->uid)) {
		doc_add(r, "limits", "allowed", DOC_OK, NULL, "%s%s is allowed by isod (%s)",
			c->uid == 0 ? "root" : "user ", c->uid == 0 ? "" : user,
			c->uid == 0 ? "always" : "allow_users");
		return;
	}
	if (doc_read(c, "/proc/self/status", status, sizeof(status)) >= 0) {
		if ((g = strstr(status, "\nGid:")))
			gids[ngids++] = strtol(g + 5, NULL, 10);
		if ((g = strstr(status, "\nGroups:"))) {
			const char *eol = strchr(g + 1, '\n');
			char *end;

			for (g += 8; ngids < 66; g = end) {
				long v = strtol(g, &end, 10);

				if (end == g || (eol && end > eol)) /* not past the line */
					break;
				gids[ngids++] = v;
			}
		}
	}
	if (doc_read(c, "/etc/group", etc_group, sizeof(etc_group)) < 0)
		etc_group[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", cf->allow_groups);
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		long gid = group_gid(tok, etc_group);

		for (size_t i = 0; gid >= 0 && i < ngids; i++)
			if (gids[i] == gid) {
				doc_add(r, "limits", "allowed", DOC_OK, NULL,
					"member of group %s, allowed by isod's allow_groups", tok);
				return;
			}
	}
	snprintf(copy, sizeof(copy), "%s", cf->allow_groups);
	tok = strtok_r(copy, ", \t", &save);
	snprintf(fix, sizeof(fix), "usermod -aG %s %s, then log in again",
		 tok ? tok : "GROUP", user[0] ? user : "USER");
	doc_add(r, "limits", "allowed", DOC_FAIL, tok ? fix : "add the user to isod's allow_users",
		"uid %u%s%s is in neither allow_users (%s) nor allow_groups (%s): isod refuses "
		"ISO with EPERM", (unsigned)c->uid, user[0] ? " " : "", user,
		cf->allow_users[0] ? cf->allow_users : "-", cf->allow_groups[0] ? cf->allow_groups : "-");
}

void doc_check_limits(struct doc_report *r, const struct doc_ctx *c)
{
	check_rlimits(r, c);
	check_groups(r, c);
}
