/* accounting.c — which accounting isod uses (accounting_choose), and the
 * BPF loader's stand-in in a build without it. */
#include "accounting.h"

#include <errno.h>
#include <stdio.h>

#include "accounting_bpf.h"
#include "log.h"

#ifndef ISOD_HAVE_BPF
int acct_bpf_load(const struct isod_config *cfg, const struct accounting **out, char *why,
		  size_t cap)
{
	(void)cfg;
	(void)out;
	snprintf(why, cap, "this isod was built without BPF accounting (meson -Dbpf=enabled needs libbpf-dev, bpftool and clang)");
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
	r = acct_bpf_load(cfg, out, why, sizeof(why));
	if (r == 0) {
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

void accounting_close(const struct accounting *a)
{
	if (a && a->close)
		a->close(a);
}
