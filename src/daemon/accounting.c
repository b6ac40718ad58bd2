/* accounting.c — which accounting isod uses (accounting_choose), and the
 * BPF accounting's stand-ins in a build without it. */
#include "accounting.h"

#include <errno.h>
#include <stdio.h>

#include "accounting_bpf.h"
#include "log.h"

#ifndef ISOD_HAVE_BPF
int acct_bpf_load(const struct isod_config *cfg, char *why, size_t cap)
{
	(void)cfg;
	snprintf(why, cap, "this isod was built without BPF accounting (meson -Dbpf=enabled needs libbpf-dev, bpftool and clang)");
	return -EOPNOTSUPP;
}

void acct_bpf_unload(void)
{
}

int acct_bpf_stray_fd(void)
{
	return -1;
}

int acct_bpf_take_reports(void (*fn)(void *ctx, const struct acct_stray *s),
			  void (*lineage)(void *ctx, const struct acct_lineage *l), void *ctx)
{
	(void)fn;
	(void)lineage;
	(void)ctx;
	return 0;
}

bool acct_bpf_follows_lineage(void)
{
	return false;
}

void acct_bpf_report_forks(bool on)
{
	(void)on;
}

bool acct_bpf_lineage_lost(void)
{
	return false;
}

void acct_bpf_report_strays(bool on)
{
	(void)on;
}

uint64_t acct_bpf_strays_lost(void)
{
	return 0;
}

void acct_bpf_quiet(pid_t tid, unsigned seconds)
{
	(void)tid;
	(void)seconds;
}

int acct_bpf_bind(const struct tracked *table, void (*fn)(void *ctx, const struct acct_event *ev),
		  void *ctx, int prio)
{
	(void)table;
	(void)fn;
	(void)ctx;
	(void)prio;
	return 0;
}

void acct_bpf_unbind(void)
{
}

bool acct_bpf_wake_overdue(int64_t now_ns)
{
	(void)now_ns;
	return false;
}

int64_t acct_bpf_woken_ns(void)
{
	return INT64_MAX;
}

int64_t acct_bpf_quiet_since(void)
{
	return INT64_MAX;
}

int acct_bpf_band_ns(uint64_t *ns)
{
	(void)ns;
	return -EOPNOTSUPP;
}
#endif

int accounting_choose(const struct isod_config *cfg, const struct accounting **out)
{
	char why[256];
	int r;

	*out = &accounting_proc;
	if (cfg->accounting == ACCOUNTING_PROC) {
		log_info("accounting proc: CPU time from /proc/PID/task/TID/schedstat");
		return 0;
	}
	r = acct_bpf_load(cfg, why, sizeof(why));
	if (r == 0) {
#ifdef ISOD_HAVE_BPF
		*out = &accounting_bpf;
#endif
		log_info("accounting bpf: run time and strays counted in the kernel (sched_switch)");
		return 0;
	}
	if (cfg->accounting == ACCOUNTING_BPF) {
		log_error("accounting = bpf, but the BPF accounting cannot load: %s", why);
		return r;
	}
	log_info("accounting auto: using proc, BPF not available: %s", why);
	return 0;
}

void accounting_close(void)
{
	acct_bpf_unload();
}
