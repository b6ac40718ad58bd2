/* doctor.h — `isoctl doctor`: the checks of a machine that decide whether
 * an unprivileged audio thread gets real time, each giving a verdict (OK,
 * INFO, SKIP, WARN, FAIL), what it found and the one command or config
 * line that fixes it.
 *
 * Every check reads files under ctx->root ("" for this machine, a fixture
 * tree in the unit tests: ROOT/proc, ROOT/sys, ROOT/boot, ROOT/etc) and
 * adds items to a report; none writes anything. What cannot be read from
 * files (isod's status reply, the D-Bus owner of RealtimeKit1) is handed
 * in through the context, so tests inject it.
 *
 * Return contract: functions returning int give 0 (or a count) on success
 * and a negative errno on failure. */
#ifndef ISOCTL_DOCTOR_H
#define ISOCTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "isosched.h"

/* In order of severity: the report's worst verdict decides the exit. */
enum doc_verdict { DOC_OK, DOC_INFO, DOC_SKIP, DOC_WARN, DOC_FAIL };

#define DOC_TEXT_MAX 384

struct doc_item {
	const char *group; /* "isod", "kernel", "irq", "limits", "power", "test" */
	const char *name;  /* the check, e.g. "preempt" */
	enum doc_verdict verdict;
	char found[DOC_TEXT_MAX];
	char fix[DOC_TEXT_MAX]; /* "" when there is nothing to fix */
};

/* Wakeup latency of one self-test thread, in microseconds. */
struct doc_latency {
	bool valid;
	unsigned samples;
	long p50_us, p99_us, max_us;
};

struct doc_report {
	struct doc_item *items;
	size_t n, cap;
	bool selftest_run;
	struct doc_latency iso, other;
};

/* What isod answered to a status request (filled by doc_query_isod, or by
 * hand in tests). */
struct doc_isod_reply {
	int err;                 /* 0: it answered; else iso_status's error */
	char message[256];       /* isod's or the library's explanation */
	char socket[108];        /* where it was asked */
	struct iso_status_info st;
};

/* isod's process and configuration as far as they can be read: its
 * command line (/proc/PID/cmdline) and its configuration file. */
struct doc_isod_conf {
	pid_t pid;               /* 0: no isod process found */
	bool conf_read;          /* the configuration file was read */
	char conf_path[256];
	char socket[108];        /* "" unless set on its command line or file */
	char backend[16];        /* "auto" unless set */
	char accounting[16];     /* "auto" unless set */
	char scope[16];          /* "global" unless set */
	char allow_users[256], allow_groups[256]; /* "" = everybody */
	bool allow_known;        /* the two above are known to be right */
};

/* Who owns a D-Bus name: >0 the owner's pid, -ENOENT no owner, another
 * negative errno when the bus could not be asked. */
typedef int (*doc_bus_owner_fn)(const char *name);

struct doc_ctx {
	const char *root;        /* "" for the machine */
	/* Loaded by doc_ctx_load from the root: */
	char release[128];       /* /proc/sys/kernel/osrelease, "" unknown */
	int kmajor, kminor;      /* from release; 0 unknown */
	char cmdline[4096];      /* /proc/cmdline, "" unknown */
	char *kconfig;           /* the kernel configuration text, or NULL */
	char kconfig_src[300];   /* where it came from */
	/* Handed in: */
	struct doc_isod_reply isod;
	struct doc_isod_conf conf;
	doc_bus_owner_fn bus_owner; /* NULL: the bus is not asked (tests) */
	uid_t uid;               /* the user the checks are about */
	const char *isoctl_version;
	/* Set by doc_check_isod: the band IRQ threads are held against. */
	int band_lo, band_hi;
	bool band_from_isod;
};

/* fsread.c — reading under the root. */
/* Read ROOT/rel (rel starts with '/') into buf, NUL-terminated. Returns
 * the length or a negative errno. */
int doc_read(const struct doc_ctx *c, const char *rel, char *buf, size_t cap);
/* The same, then one integer (leading blanks allowed, one trailing
 * newline). */
int doc_read_long(const struct doc_ctx *c, const char *rel, long *out);
/* ROOT + rel into path. Returns 0 or -ENAMETOOLONG. */
int doc_path(const struct doc_ctx *c, const char *rel, char *path, size_t cap);
/* Fill release, version, cmdline and kernel config from the root; with no
 * root given, c->root becomes "". Free with doc_ctx_free. */
void doc_ctx_load(struct doc_ctx *c, const char *root);
void doc_ctx_free(struct doc_ctx *c);
/* A CONFIG_ option's value in text ("y", "250"), or NULL if not set. */
const char *doc_kconfig(const char *text, const char *opt, char *val, size_t cap);
/* Whether word appears as a whole word in the kernel command line; with
 * val, the value of word=VALUE. */
bool doc_cmdline_has(const char *cmdline, const char *word, char *val, size_t cap);

/* report.c */
/* Add an item; found is a printf format. Returns 0 or -ENOMEM. */
int doc_add(struct doc_report *r, const char *group, const char *name,
	    enum doc_verdict v, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
const struct doc_item *doc_find(const struct doc_report *r, const char *group,
				const char *name);
enum doc_verdict doc_worst(const struct doc_report *r);
const char *doc_verdict_name(enum doc_verdict v);
void doc_print_text(FILE *f, const struct doc_report *r);
void doc_print_json(FILE *f, const struct doc_report *r, const char *version);
void doc_report_free(struct doc_report *r);

/* daemon.c — isod. */
/* Ask isod (through libisosched) for its status. */
void doc_query_isod(struct doc_isod_reply *out);
/* Find isod's process under the root and read its configuration. */
void doc_find_isod(const struct doc_ctx *c, const char *socket,
		   struct doc_isod_conf *out);
void doc_check_isod(struct doc_report *r, struct doc_ctx *c);

/* rtkit.c — org.freedesktop.RealtimeKit1 and rtkit-daemon. */
int doc_bus_owner_busctl(const char *name); /* asks the system bus */
void doc_check_rtkit(struct doc_report *r, const struct doc_ctx *c);
/* The first process under ROOT/proc whose comm is comm: its pid, or 0. */
pid_t doc_find_comm(const struct doc_ctx *c, const char *comm);

/* kernel.c — version, preemption model, HZ, sched_ext. */
void doc_check_kernel(struct doc_report *r, const struct doc_ctx *c);
/* rtprotect.c — RT throttling, RT_GROUP_SCHED, fair server. */
void doc_check_rt_protection(struct doc_report *r, const struct doc_ctx *c);
/* irq.c — threadirqs and IRQ thread priorities against the band. */
void doc_check_irqs(struct doc_report *r, const struct doc_ctx *c);
/* Whether an IRQ thread's name looks like a sound card's (or the USB
 * host controller a USB audio interface sits on). */
bool doc_irq_is_audio(const char *comm);
/* limits.c — the user's rlimits and group membership. */
void doc_check_limits(struct doc_report *r, const struct doc_ctx *c);
/* power.c — CPU frequency governor, idle states, swap. */
void doc_check_power(struct doc_report *r, const struct doc_ctx *c);
/* selftest.c — --test: ISO against SCHED_OTHER wakeup latency. */
void doc_selftest(struct doc_report *r, const struct doc_ctx *c, unsigned seconds);
/* Percentile p (0..100) of n sorted values. */
long doc_percentile(const long *sorted, size_t n, unsigned p);

#endif
