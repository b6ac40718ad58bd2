/* policy.c — the benchmark's policies: kernel ones (root) and iso ones
 * (through isod). */
#include <sched.h>
#include <string.h>

#include "latency.h"

static const char *const names[POL_COUNT] = {
	[POL_NORMAL] = "normal",   [POL_NORMAL_NICE20] = "normal-nice-20",
	[POL_FIFO] = "fifo",       [POL_RR] = "rr",
	[POL_ISO] = "iso",         [POL_ISO_RR] = "iso-rr",
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
	return p == POL_NORMAL_NICE20 || p == POL_FIFO || p == POL_RR;
}

bool policy_is_iso(enum bench_policy p)
{
	return p == POL_ISO || p == POL_ISO_RR;
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
	default:
		return SCHED_OTHER;
	}
}
