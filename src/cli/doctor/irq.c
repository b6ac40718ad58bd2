/* irq.c — threaded interrupts: `threadirqs` on the command line, and the
 * IRQ threads' (comm "irq/NN-name") SCHED_FIFO priorities against isod's
 * band. An ISO thread above a sound card's IRQ thread can keep the card's
 * interrupt from being handled: the audio it waits for never comes. */
#include "doctor.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

struct irq_thread {
	pid_t pid;
	char comm[64];
	int policy, prio;
};

/* comm, policy (field 41) and rt_priority (field 40) of /proc/PID/stat
 * text. Returns 0 or -1. */
static int parse_stat(const char *buf, struct irq_thread *t)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')'), *p;
	size_t n;
	int field = 2;

	if (!open || !close || close < open)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';
	t->policy = t->prio = -1;
	for (p = close + 1; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field++;
		if (field == 40)
			t->prio = atoi(p);
		else if (field == 41) {
			t->policy = atoi(p);
			return t->prio < 0 ? -1 : 0;
		}
		p += strcspn(p, " ");
	}
	return -1;
}

bool doc_irq_is_audio(const char *comm)
{
	static const char *const marks[] = { "snd", "hda", "audio", "xhci", "ehci",
					     "ohci", "uhci", "usb" };
	char low[64];
	size_t i;

	for (i = 0; comm[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)comm[i]);
	low[i] = '\0';
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(low, marks[i]))
			return true;
	return false;
}

static const char *policy_name(int p)
{
	return p == 1 ? "SCHED_FIFO" : p == 2 ? "SCHED_RR" : p == 0 ? "SCHED_OTHER" : "policy ?";
}

static void check_threadirqs(struct doc_report *r, const struct doc_ctx *c, unsigned nthreads)
{
	char v[8];

	if (c->kconfig && doc_kconfig(c->kconfig, "CONFIG_PREEMPT_RT", v, sizeof(v)))
		doc_add(r, "irq", "threadirqs", DOC_OK, NULL,
			"PREEMPT_RT: every interrupt handler runs as a thread (%u IRQ threads)", nthreads);
	else if (doc_cmdline_has(c->cmdline, "threadirqs", NULL, 0))
		doc_add(r, "irq", "threadirqs", DOC_OK, NULL,
			"threadirqs on the kernel command line (%u IRQ threads)", nthreads);
	else if (!c->cmdline[0])
		doc_add(r, "irq", "threadirqs", DOC_SKIP, NULL, "/proc/cmdline not readable");
	else
		doc_add(r, "irq", "threadirqs", DOC_WARN,
			"add threadirqs to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, "
			"run update-grub and reboot",
			"threadirqs not on the kernel command line: only %u interrupt handlers run "
			"as threads; the sound card's priority cannot be raised above the audio "
			"threads (rtirq needs threaded IRQs)", nthreads);
}

void doc_check_irqs(struct doc_report *r, const struct doc_ctx *c)
{
	char path[4096], rel[64], buf[1024];
	unsigned n = 0, naudio = 0, nlow = 0;
	int lo = 100, hi = -1;
	struct dirent *de;
	DIR *d;

	if (doc_path(c, "/proc", path, sizeof(path)) < 0 || !(d = opendir(path))) {
		doc_add(r, "irq", "irq_threads", DOC_SKIP, NULL, "/proc not readable");
		return;
	}
	while ((de = readdir(d))) {
		struct irq_thread t;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "/proc/%.20s/stat", de->d_name);
		if (doc_read(c, rel, buf, sizeof(buf)) < 0 || parse_stat(buf, &t) < 0 ||
		    strncmp(t.comm, "irq/", 4))
			continue;
		t.pid = (pid_t)atoi(de->d_name);
		n++;
		if (t.prio < lo)
			lo = t.prio;
		if (t.prio > hi)
			hi = t.prio;
		if ((t.policy != 1 && t.policy != 2) || t.prio <= c->band_hi)
			nlow++;
		if (!doc_irq_is_audio(t.comm))
			continue;
		naudio++;
		if ((t.policy == 1 || t.policy == 2) && t.prio > c->band_hi) {
			doc_add(r, "irq", "audio_irq", DOC_OK, NULL,
				"%s (pid %d) %s %d, above isod's band %d..%d", t.comm, (int)t.pid,
				policy_name(t.policy), t.prio, c->band_lo, c->band_hi);
		} else {
			char fix[128];

			snprintf(fix, sizeof(fix),
				 "chrt -f -p 90 %d (or apt install rtirq-init to do it at every boot)",
				 (int)t.pid);
			doc_add(r, "irq", "audio_irq", DOC_FAIL, fix,
				"%s (pid %d) %s %d, at or below isod's band %d..%d%s: an ISO thread "
				"can keep the sound card's interrupt from being handled", t.comm,
				(int)t.pid, policy_name(t.policy), t.prio, c->band_lo, c->band_hi,
				c->band_from_isod ? "" : " (isod's default band)");
		}
	}
	closedir(d);
	check_threadirqs(r, c, n);
	if (!n)
		doc_add(r, "irq", "irq_threads", DOC_INFO, NULL, "no IRQ threads");
	else
		doc_add(r, "irq", "irq_threads", nlow ? DOC_INFO : DOC_OK, NULL,
			"%u IRQ threads at priorities %d..%d, %u at or below isod's band top %d; "
			"%u look like audio (snd, hda, usb, xhci)", n, lo, hi, nlow, c->band_hi, naudio);
	if (n && !naudio)
		doc_add(r, "irq", "audio_irq", DOC_INFO, NULL,
			"no sound card IRQ thread found (no card, or its interrupt is not threaded)");
}
