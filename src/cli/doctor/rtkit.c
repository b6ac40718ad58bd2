/* rtkit.c — who answers programs that ask org.freedesktop.RealtimeKit1
 * for real time (PipeWire, PulseAudio, WebKit, ...): rtkit-daemon, which
 * hands out SCHED_RR outside isod's budget, isosched's D-Bus face, or
 * nobody. The bus is asked through busctl(1); tests inject the answer
 * (doc_ctx.bus_owner) and never touch the machine's D-Bus. */
#include "doctor.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RTKIT_NAME "org.freedesktop.RealtimeKit1"
#define RTKIT_FIX \
	"systemctl mask --now rtkit-daemon, once isosched's D-Bus face (or " \
	"isoctl run --preload) serves the audio programs"

pid_t doc_find_comm(const struct doc_ctx *c, const char *comm)
{
	char path[4096], rel[64], buf[64];
	struct dirent *de;
	pid_t pid = 0;
	DIR *d;

	if (doc_path(c, "/proc", path, sizeof(path)) < 0 || !(d = opendir(path)))
		return 0;
	while (!pid && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "/proc/%.20s/comm", de->d_name);
		if (doc_read(c, rel, buf, sizeof(buf)) < 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (!strcmp(buf, comm))
			pid = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return pid;
}

/* One busctl call on the system bus; its first output line into out.
 * Returns 0, or -ENOTCONN when busctl failed (no bus, no busctl). */
static int busctl(const char *method, const char *name, char *out, size_t cap)
{
	char cmd[512];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "busctl --system --no-pager --timeout=2 call org.freedesktop.DBus "
		 "/org/freedesktop/DBus org.freedesktop.DBus %s s %s 2>/dev/null", method, name);
	if (!(p = popen(cmd, "r")))
		return -errno;
	if (!fgets(out, (int)cap, p))
		out[0] = '\0';
	st = pclose(p);
	return st == 0 && out[0] ? 0 : -ENOTCONN;
}

int doc_bus_owner_busctl(const char *name)
{
	char line[128];
	long pid;
	int r;

	/* The name goes into a shell command: only a bus name's characters. */
	for (const char *s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return -EINVAL;
	if ((r = busctl("NameHasOwner", name, line, sizeof(line))) < 0)
		return r;
	if (strncmp(line, "b true", 6))
		return -ENOENT;
	if ((r = busctl("GetConnectionUnixProcessID", name, line, sizeof(line))) < 0)
		return r;
	if (strncmp(line, "u ", 2) || (pid = strtol(line + 2, NULL, 10)) <= 0)
		return -EBADMSG;
	return (int)pid;
}

void doc_check_rtkit(struct doc_report *r, const struct doc_ctx *c)
{
	pid_t rtkit = doc_find_comm(c, "rtkit-daemon");
	char rel[64], comm[64] = "?";
	int owner;

	if (!c->bus_owner) {
		if (rtkit)
			doc_add(r, "isod", "rtkit", DOC_WARN, RTKIT_FIX,
				"system bus not asked; rtkit-daemon runs (pid %d): it likely owns "
				RTKIT_NAME " and hands out SCHED_RR outside isod's budget", (int)rtkit);
		else
			doc_add(r, "isod", "rtkit", DOC_SKIP, NULL,
				"system bus not asked; no rtkit-daemon process");
		return;
	}
	owner = c->bus_owner(RTKIT_NAME);
	if (owner == -ENOENT) {
		doc_add(r, "isod", "rtkit", DOC_INFO, NULL,
			"nobody owns " RTKIT_NAME " on the system bus: programs that ask rtkit for "
			"RT get an error (run them with isoctl run --preload)%s",
			rtkit ? "; yet rtkit-daemon runs" : "");
		return;
	}
	if (owner < 0) {
		doc_add(r, "isod", "rtkit", DOC_SKIP, NULL,
			"cannot ask the system bus (%s)%s", owner == -ENOTCONN ?
			"busctl failed: no system bus, or no busctl" : strerror(-owner),
			rtkit ? "; rtkit-daemon runs" : "");
		return;
	}
	snprintf(rel, sizeof(rel), "/proc/%d/comm", owner);
	if (doc_read(c, rel, comm, sizeof(comm)) >= 0)
		comm[strcspn(comm, "\n")] = '\0';
	if (!strcmp(comm, "rtkit-daemon"))
		doc_add(r, "isod", "rtkit", DOC_WARN, RTKIT_FIX,
			RTKIT_NAME " is owned by rtkit-daemon (pid %d): programs asking over D-Bus "
			"(PipeWire, PulseAudio) get rtkit's SCHED_RR outside isod's budget", owner);
	else if (strstr(comm, "iso"))
		doc_add(r, "isod", "rtkit", DOC_OK, NULL,
			RTKIT_NAME " is owned by %s (pid %d): D-Bus requests for RT become ISO",
			comm, owner);
	else
		doc_add(r, "isod", "rtkit", DOC_INFO, NULL, RTKIT_NAME " is owned by %s (pid %d)",
			comm, owner);
}
