/* kernel.c — doctor's kernel checks: version, preemption model, timer
 * tick and high-resolution timers, sched_ext. */
#include "doctor.h"

#include <string.h>

#define FIX_CMDLINE(arg) \
	"add " arg " to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, " \
	"run update-grub and reboot"

static bool kconfig_y(const struct doc_ctx *c, const char *opt)
{
	char v[8];

	return c->kconfig && doc_kconfig(c->kconfig, opt, v, sizeof(v)) && !strcmp(v, "y");
}

static void check_version(struct doc_report *r, const struct doc_ctx *c)
{
	if (!c->release[0]) {
		doc_add(r, "kernel", "version", DOC_SKIP, NULL,
			"/proc/sys/kernel/osrelease not readable");
		return;
	}
	doc_add(r, "kernel", "version", DOC_INFO, NULL, "Linux %s%s%s", c->release,
		c->kconfig ? ", configuration from " : ", configuration not readable",
		c->kconfig ? c->kconfig_src : " (no /proc/config.gz or /boot/config-RELEASE)");
}

/* The model in force: from debugfs ("none (voluntary) full lazy": the one
 * in parentheses), else from the configuration and, for a
 * PREEMPT_DYNAMIC kernel, preempt= on the command line. */
static const char *preempt_model(const struct doc_ctx *c, char *buf, size_t cap,
				 const char **source)
{
	char deb[256], *open, *close;

	if (doc_read(c, "/sys/kernel/debug/sched/preempt", deb, sizeof(deb)) > 0 &&
	    (open = strchr(deb, '(')) && (close = strchr(open, ')'))) {
		*close = '\0';
		snprintf(buf, cap, "%s", open + 1);
		*source = "/sys/kernel/debug/sched/preempt";
		return buf;
	}
	if (!c->kconfig)
		return NULL;
	*source = c->kconfig_src;
	if (kconfig_y(c, "CONFIG_PREEMPT_RT"))
		return "rt";
	if (kconfig_y(c, "CONFIG_PREEMPT_DYNAMIC") &&
	    doc_cmdline_has(c->cmdline, "preempt", buf, cap) && buf[0]) {
		*source = "preempt= on the kernel command line";
		return buf;
	}
	if (kconfig_y(c, "CONFIG_PREEMPT_LAZY"))
		return "lazy";
	if (kconfig_y(c, "CONFIG_PREEMPT"))
		return "full";
	if (kconfig_y(c, "CONFIG_PREEMPT_VOLUNTARY"))
		return "voluntary";
	if (kconfig_y(c, "CONFIG_PREEMPT_NONE"))
		return "none";
	return NULL;
}

static void check_preempt(struct doc_report *r, const struct doc_ctx *c)
{
	char buf[64];
	const char *source = "", *m = preempt_model(c, buf, sizeof(buf), &source);
	bool dynamic = kconfig_y(c, "CONFIG_PREEMPT_DYNAMIC");

	if (!m) {
		doc_add(r, "kernel", "preempt", DOC_SKIP, NULL,
			"preemption model unknown: neither debugfs nor the kernel configuration readable");
		return;
	}
	if (!strcmp(m, "rt")) {
		doc_add(r, "kernel", "preempt", DOC_OK, NULL,
			"PREEMPT_RT: fully preemptible kernel, IRQs threaded (%s)", source);
	} else if (!strcmp(m, "full") || !strcmp(m, "lazy")) {
		doc_add(r, "kernel", "preempt", DOC_OK, NULL,
			"%s preemption%s: a waking RT thread preempts kernel code at once (%s)",
			m, dynamic ? " (PREEMPT_DYNAMIC)" : "", source);
	} else if (!strcmp(m, "none") || !strcmp(m, "voluntary")) {
		doc_add(r, "kernel", "preempt", DOC_WARN,
			dynamic ? FIX_CMDLINE("preempt=full")
				: "install a kernel built with CONFIG_PREEMPT or PREEMPT_RT "
				  "(Debian: apt install linux-image-rt-amd64)",
			"%s preemption%s: an RT thread waits until kernel code reaches a "
			"preemption point, milliseconds at worst (%s)",
			m, dynamic ? " (PREEMPT_DYNAMIC, switchable at boot)" : "", source);
	} else {
		doc_add(r, "kernel", "preempt", DOC_INFO, NULL,
			"preemption model '%s' (%s)", m, source);
	}
}

static void check_hz(struct doc_report *r, const struct doc_ctx *c)
{
	char hz[16];

	if (!c->kconfig) {
		doc_add(r, "kernel", "hz", DOC_SKIP, NULL, "kernel configuration not readable");
		return;
	}
	if (!doc_kconfig(c->kconfig, "CONFIG_HZ", hz, sizeof(hz)))
		snprintf(hz, sizeof(hz), "?");
	if (!kconfig_y(c, "CONFIG_HIGH_RES_TIMERS"))
		doc_add(r, "kernel", "hz", DOC_WARN,
			"install a kernel with CONFIG_HIGH_RES_TIMERS=y (every distribution kernel has it)",
			"HZ=%s without high-resolution timers: sleeps end on the tick, "
			"%s ms granularity", hz, hz[0] != '?' ? "1000/HZ" : "tick");
	else
		doc_add(r, "kernel", "hz", DOC_OK, NULL,
			"HZ=%s, high-resolution timers on: sleeps end on time, not on the tick", hz);
}

static void check_sched_ext(struct doc_report *r, const struct doc_ctx *c)
{
	char state[64], ops[64];

	if (doc_read(c, "/sys/kernel/sched_ext/state", state, sizeof(state)) < 0) {
		doc_add(r, "kernel", "sched_ext", DOC_INFO, NULL,
			"not available (no /sys/kernel/sched_ext: kernel before 6.12 or "
			"without CONFIG_SCHED_CLASS_EXT): isod uses kernel SCHED_FIFO/RR");
		return;
	}
	state[strcspn(state, "\n")] = '\0';
	if (doc_read(c, "/sys/kernel/sched_ext/root/ops", ops, sizeof(ops)) < 0)
		ops[0] = '\0';
	ops[strcspn(ops, "\n")] = '\0';
	if (strcmp(state, "enabled") || !ops[0])
		doc_add(r, "kernel", "sched_ext", DOC_OK, NULL,
			"available, state %s, no scheduler loaded: isod uses kernel SCHED_FIFO/RR "
			"(scx_iso would make ISO a scheduling class: docs/scx.md)", state);
	else if (!strcmp(ops, "iso"))
		doc_add(r, "kernel", "sched_ext", DOC_OK, NULL,
			"scx_iso loaded: isod's scx backend can schedule ISO threads");
	else
		doc_add(r, "kernel", "sched_ext", DOC_INFO, NULL,
			"sched_ext scheduler '%s' loaded (not scx_iso): ISO threads run as "
			"kernel SCHED_FIFO/RR, above it", ops);
}

void doc_check_kernel(struct doc_report *r, const struct doc_ctx *c)
{
	check_version(r, c);
	check_preempt(r, c);
	check_hz(r, c);
	check_sched_ext(r, c);
}
