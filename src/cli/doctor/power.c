/* power.c — what costs wakeup latency outside the scheduler: the CPU
 * frequency governor, deep idle states, and swap with vm.swappiness (as
 * rtcqs reports them). */
#include "doctor.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define CPU_DIR "/sys/devices/system/cpu"

/* Calls fn for every cpuN directory (N in ascending readdir order). */
static unsigned each_cpu(const struct doc_ctx *c, void (*fn)(const struct doc_ctx *, int, void *),
			 void *arg)
{
	char path[4096];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (doc_path(c, CPU_DIR, path, sizeof(path)) < 0 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long cpu;

		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' || de->d_name[3] > '9')
			continue;
		cpu = strtol(de->d_name + 3, &end, 10);
		if (*end || cpu > 65535)
			continue;
		fn(c, (int)cpu, arg);
		n++;
	}
	closedir(d);
	return n;
}

struct governors {
	unsigned read, powersave, performance;
	char other[64];
};

static void one_governor(const struct doc_ctx *c, int cpu, void *arg)
{
	struct governors *g = arg;
	char rel[128], gov[64];

	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq/scaling_governor", cpu);
	if (doc_read(c, rel, gov, sizeof(gov)) < 0)
		return;
	gov[strcspn(gov, "\n")] = '\0';
	g->read++;
	if (!strcmp(gov, "powersave"))
		g->powersave++;
	else if (!strcmp(gov, "performance"))
		g->performance++;
	else
		snprintf(g->other, sizeof(g->other), "%s", gov);
}

static void check_governor(struct doc_report *r, const struct doc_ctx *c)
{
	struct governors g = { 0 };
	unsigned ncpus = each_cpu(c, one_governor, &g);

	if (!g.read)
		doc_add(r, "power", "governor", DOC_SKIP, NULL,
			"no cpufreq on %u CPUs (a VM, or a fixed frequency)", ncpus);
	else if (g.powersave)
		doc_add(r, "power", "governor", DOC_WARN,
			"cpupower frequency-set -g performance (package linux-cpupower), or "
			"echo performance | tee " CPU_DIR "/cpu*/cpufreq/scaling_governor",
			"governor powersave on %u of %u CPUs: the clock ramps up late, audio "
			"deadlines are missed at low load", g.powersave, g.read);
	else if (g.performance == g.read)
		doc_add(r, "power", "governor", DOC_OK, NULL, "governor performance on %u CPUs", g.read);
	else
		doc_add(r, "power", "governor", DOC_INFO,
			"cpupower frequency-set -g performance, if deadlines are missed at low load",
			"governor %s on %u of %u CPUs (performance on the others)", g.other,
			g.read - g.performance, g.read);
}

struct idle {
	long worst_us;   /* deepest enabled state's exit latency */
	char name[32];
	int cpu;
};

static void one_idle(const struct doc_ctx *c, int cpu, void *arg)
{
	struct idle *id = arg;
	char rel[160], name[32];
	long lat, disabled;

	for (int s = 0; s < 32; s++) {
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu, s);
		if (doc_read_long(c, rel, &lat) < 0)
			break;
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, s);
		if (doc_read_long(c, rel, &disabled) == 0 && disabled)
			continue;
		if (lat <= id->worst_us)
			continue;
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpuidle/state%d/name", cpu, s);
		if (doc_read(c, rel, name, sizeof(name)) < 0)
			snprintf(name, sizeof(name), "state%d", s);
		name[strcspn(name, "\n")] = '\0';
		id->worst_us = lat;
		id->cpu = cpu;
		snprintf(id->name, sizeof(id->name), "%s", name);
	}
}

static void check_idle(struct doc_report *r, const struct doc_ctx *c)
{
	struct idle id = { .worst_us = -1 };
	char driver[64] = "";

	if (doc_read(c, CPU_DIR "/cpuidle/current_driver", driver, sizeof(driver)) >= 0)
		driver[strcspn(driver, "\n")] = '\0';
	each_cpu(c, one_idle, &id);
	if (id.worst_us < 0)
		doc_add(r, "power", "idle", DOC_INFO, NULL, "no idle states to read (cpuidle driver %s)",
			driver[0] ? driver : "unknown");
	else if (id.worst_us > 100)
		doc_add(r, "power", "idle", DOC_WARN,
			"cpupower idle-set -D 100 (disables states slower than 100 us; or the kernel "
			"parameter processor.max_cstate=1)",
			"deepest idle state %s exits in %ld us (cpu%d, driver %s): a sleeping CPU "
			"wakes the audio thread that much later", id.name, id.worst_us, id.cpu,
			driver[0] ? driver : "?");
	else
		doc_add(r, "power", "idle", DOC_OK, NULL,
			"deepest enabled idle state %s exits in %ld us", id.name, id.worst_us);
}

static void check_swap(struct doc_report *r, const struct doc_ctx *c)
{
	char swaps[4096];
	unsigned areas = 0;
	long swappiness = -1;
	const char *p;

	if (doc_read(c, "/proc/swaps", swaps, sizeof(swaps)) < 0) {
		doc_add(r, "power", "swap", DOC_SKIP, NULL, "/proc/swaps not readable");
		return;
	}
	/* The first line is the header. */
	for (p = strchr(swaps, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		areas++;
	doc_read_long(c, "/proc/sys/vm/swappiness", &swappiness);
	if (!areas)
		doc_add(r, "power", "swap", DOC_OK, NULL, "no swap: nothing of an audio program is "
			"paged out (vm.swappiness %ld)", swappiness);
	else if (swappiness > 10)
		doc_add(r, "power", "swap", DOC_WARN,
			"sysctl -w vm.swappiness=10, and vm.swappiness = 10 in /etc/sysctl.d/90-audio.conf",
			"%u swap area%s and vm.swappiness %ld: memory of an idle audio program is paged "
			"out and faulted back in its audio path", areas, areas == 1 ? "" : "s", swappiness);
	else
		doc_add(r, "power", "swap", DOC_OK, NULL, "%u swap area%s, vm.swappiness %ld",
			areas, areas == 1 ? "" : "s", swappiness);
}

void doc_check_power(struct doc_report *r, const struct doc_ctx *c)
{
	check_governor(r, c);
	check_idle(r, c);
	check_swap(r, c);
}
