/* rtprotect.c — the kernel's own protection against RT tasks, and its
 * side effects on isod: RT throttling (sched_rt_runtime_us), RT group
 * scheduling (EPERM in cgroups without RT time) and, from 6.12, the fair
 * server that keeps CPU time for SCHED_OTHER per CPU. */
#include "doctor.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static void check_throttling(struct doc_report *r, const struct doc_ctx *c)
{
	long runtime, period;

	if (doc_read_long(c, "/proc/sys/kernel/sched_rt_runtime_us", &runtime) < 0 ||
	    doc_read_long(c, "/proc/sys/kernel/sched_rt_period_us", &period) < 0 || period <= 0) {
		doc_add(r, "kernel", "rt_throttle", DOC_SKIP, NULL,
			"/proc/sys/kernel/sched_rt_{runtime,period}_us not readable");
		return;
	}
	if (runtime < 0)
		doc_add(r, "kernel", "rt_throttle", DOC_WARN,
			"sysctl -w kernel.sched_rt_runtime_us=950000 (persist in /etc/sysctl.d/)",
			"RT throttling off (sched_rt_runtime_us -1): a runaway privileged RT "
			"thread can take a CPU for good; isod's band is still policed");
	else
		doc_add(r, "kernel", "rt_throttle", DOC_OK, NULL,
			"RT throttling: %ld of every %ld us (%.0f %%) for RT tasks, the backstop "
			"under isod's budget", runtime, period, 100.0 * (double)runtime / (double)period);
}

/* The calling process's cgroup for the cpu controller: v1 "N:...cpu...:/x"
 * or v2 "0::/x". Returns true with path filled, and *v1 set for v1. */
static bool own_cpu_cgroup(const struct doc_ctx *c, char *path, size_t cap, bool *v1)
{
	char buf[2048], *line, *save = NULL;
	bool found = false;

	if (doc_read(c, "/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctrl = strchr(line, ':'), *p;

		if (!ctrl || !(p = strchr(ctrl + 1, ':')))
			continue;
		*p = '\0';
		ctrl++;
		if (!strcmp(ctrl, "cpu") || !strncmp(ctrl, "cpu,", 4) || strstr(ctrl, ",cpu,") ||
		    (strlen(ctrl) > 4 && !strcmp(ctrl + strlen(ctrl) - 4, ",cpu"))) {
			snprintf(path, cap, "%s", p + 1);
			*v1 = true;
			return true;
		}
		if (!ctrl[0] && !found) { /* v2: keep looking for a v1 cpu line */
			snprintf(path, cap, "%s", p + 1);
			*v1 = false;
			found = true;
		}
	}
	return found;
}

#define RTGROUP_FIX \
	"give the cgroups RT time (cgroup v1: echo 950000 > " \
	"/sys/fs/cgroup/cpu/user.slice/cpu.rt_runtime_us, and below), or on 6.16+ " \
	"boot with rt_group_sched=0"

static void check_rt_group(struct doc_report *r, const struct doc_ctx *c)
{
	char v[8], cg[512], rel[700];
	bool v1 = false, known;
	long rt;

	if (!c->kconfig) {
		doc_add(r, "kernel", "rt_group", DOC_SKIP, NULL, "kernel configuration not readable");
		return;
	}
	if (!doc_kconfig(c->kconfig, "CONFIG_RT_GROUP_SCHED", v, sizeof(v)) || strcmp(v, "y")) {
		doc_add(r, "kernel", "rt_group", DOC_OK, NULL,
			"no RT_GROUP_SCHED: RT works in every cgroup");
		return;
	}
	if (doc_cmdline_has(c->cmdline, "rt_group_sched", v, sizeof(v)) ? !strcmp(v, "0")
	    : doc_kconfig(c->kconfig, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED", v, sizeof(v)) != NULL) {
		doc_add(r, "kernel", "rt_group", DOC_OK, NULL,
			"RT_GROUP_SCHED built in but switched off (rt_group_sched=0)");
		return;
	}
	known = own_cpu_cgroup(c, cg, sizeof(cg), &v1);
	if (known && v1 && strcmp(cg, "/")) {
		snprintf(rel, sizeof(rel), "/sys/fs/cgroup/cpu%s/cpu.rt_runtime_us", cg);
		if (doc_read_long(c, rel, &rt) < 0) {
			snprintf(rel, sizeof(rel), "/sys/fs/cgroup/cpu,cpuacct%s/cpu.rt_runtime_us", cg);
			if (doc_read_long(c, rel, &rt) < 0)
				rt = -2;
		}
		if (rt == 0) {
			doc_add(r, "kernel", "rt_group", DOC_FAIL, RTGROUP_FIX,
				"RT_GROUP_SCHED: this session's cgroup %s has cpu.rt_runtime_us 0, so "
				"every RT grant to its threads fails with EPERM, isod's too", cg);
			return;
		}
		if (rt > 0) {
			doc_add(r, "kernel", "rt_group", DOC_WARN, RTGROUP_FIX,
				"RT_GROUP_SCHED: this session's cgroup %s has %ld us of RT time per "
				"period; other cgroups without it get EPERM for RT", cg, rt);
			return;
		}
	}
	doc_add(r, "kernel", "rt_group", DOC_WARN, RTGROUP_FIX,
		"RT_GROUP_SCHED: RT in a cgroup other than the root fails with EPERM unless "
		"its cpu.rt_runtime_us is set (this process: %s%s)",
		known ? "cpu cgroup " : "cgroup unknown", known ? cg : "");
}

static int cpu_number(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9')
		return -1;
	n = strtol(name + 3, &end, 10);
	return *end || n > 65535 ? -1 : (int)n;
}

static void check_fair_server(struct doc_report *r, const struct doc_ctx *c)
{
	char path[4096], rel[128], off[256] = "";
	long rt, per, rt0 = -1, per0 = -1;
	bool uniform = true;
	unsigned ncpus = 0, nzero = 0;
	struct dirent *de;
	DIR *d;

	if (c->kmajor && (c->kmajor < 6 || (c->kmajor == 6 && c->kminor < 12))) {
		doc_add(r, "kernel", "fair_server", DOC_INFO, NULL,
			"kernel before 6.12: no fair server; RT throttling is what keeps "
			"time for SCHED_OTHER");
		return;
	}
	if (doc_path(c, "/sys/kernel/debug/sched/fair_server", path, sizeof(path)) < 0 ||
	    !(d = opendir(path))) {
		doc_add(r, "kernel", "fair_server", DOC_SKIP,
			"as root: mount -t debugfs none /sys/kernel/debug, then run doctor again",
			"/sys/kernel/debug/sched/fair_server not readable (needs root and debugfs)");
		return;
	}
	while ((de = readdir(d))) {
		int cpu = cpu_number(de->d_name);

		if (cpu < 0)
			continue;
		snprintf(rel, sizeof(rel), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
		if (doc_read_long(c, rel, &rt) < 0)
			continue;
		snprintf(rel, sizeof(rel), "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
		if (doc_read_long(c, rel, &per) < 0 || per <= 0)
			continue;
		if (ncpus++ == 0) {
			rt0 = rt;
			per0 = per;
		} else if (rt != rt0 || per != per0) {
			uniform = false;
		}
		if (rt == 0 && nzero++ < 8) {
			size_t l = strlen(off);

			snprintf(off + l, sizeof(off) - l, "%scpu%d", l ? "," : "", cpu);
		}
	}
	closedir(d);
	if (!ncpus)
		doc_add(r, "kernel", "fair_server", DOC_SKIP, NULL,
			"no readable cpuN/{runtime,period} under /sys/kernel/debug/sched/fair_server");
	else if (nzero)
		doc_add(r, "kernel", "fair_server", DOC_WARN,
			"echo 50000000 > /sys/kernel/debug/sched/fair_server/cpuN/runtime",
			"fair server off on %u of %u CPUs (%s%s): nothing keeps time for "
			"SCHED_OTHER there against RT tasks", nzero, ncpus, off, nzero > 8 ? ",..." : "");
	else
		doc_add(r, "kernel", "fair_server", DOC_OK, NULL,
			"fair server on %u CPUs: %s%.1f ms of every %.1f ms kept for SCHED_OTHER",
			ncpus, uniform ? "" : "e.g. ", (double)rt0 / 1e6, (double)per0 / 1e6);
}

void doc_check_rt_protection(struct doc_report *r, const struct doc_ctx *c)
{
	check_throttling(r, c);
	check_rt_group(r, c);
	check_fair_server(r, c);
}
