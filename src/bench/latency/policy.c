/* policy.c — the benchmark's policies: kernel ones (root) and iso ones
 * (through isod). */
#include <sched.h>
#include <string.h>

#include "latency.h"

static const char *const names[POL_COUNT] = {
	[POL_NORMAL] = "normal",   [POL_NORMAL_NICE20] = "normal-nice-20",
	[POL_FIFO] = "fifo",       [POL_RR] = "rr",
	[POL_ISO] = "iso",         [POL_ISO_RR] = "iso-rr",
	[POL_DL] = "dl",           [POL_ISO_DL] = "iso-dl",
};

const char *policy_name(enum bench_policy p)
{
	return (unsigned)p < POL_COUNT ? names[p] : "?";
}

int policy_parse(const char *name)
{
	for (int i = 0; i < POL_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

bool policy_needs_root(enum bench_policy p)
{
	return p == POL_NORMAL_NICE20 || p == POL_FIFO || p == POL_RR || p == POL_DL;
}

bool policy_is_iso(enum bench_policy p)
{
	return p == POL_ISO || p == POL_ISO_RR || p == POL_ISO_DL;
}

bool policy_is_deadline(enum bench_policy p)
{
	return p == POL_DL || p == POL_ISO_DL;
}

uint64_t policy_dl_runtime_ns(uint64_t period_ns, double work_pct)
{
	double rt = 1.5 * (double)period_ns * work_pct / 100.0 + 50000.0;
	double cap = 0.9 * (double)period_ns;

	return (uint64_t)(rt < cap ? rt : cap);
}

int policy_kernel(enum bench_policy p)
{
	switch (p) {
	case POL_FIFO:
	case POL_ISO:
		return SCHED_FIFO;
	case POL_RR:
	case POL_ISO_RR:
		return SCHED_RR;
	case POL_DL:
	case POL_ISO_DL:
		return 6; /* SCHED_DEADLINE, not in every libc's sched.h */
	default:
		return SCHED_OTHER;
	}
}
