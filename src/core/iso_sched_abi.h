/* iso_sched_abi.h — the kernel's scheduling numbers and struct sched_attr,
 * defined once for every part of isosched (core, client, preload shim,
 * daemon, CLI). Macros and one struct only: no code, no libc or kernel
 * header, so any translation unit can include it (glibc 2.36 names neither
 * SCHED_EXT nor sched_setattr, and <linux/sched/types.h> clashes with
 * libc's struct sched_param). The public isosched.h keeps its own
 * ISO_SCHED_* names for programs; src/client asserts they agree. */
#ifndef ISO_SCHED_ABI_H
#define ISO_SCHED_ABI_H

#include <stdint.h>

/* Policy numbers as the kernel (and sched_setscheduler) knows them. */
#define ISO_KSCHED_OTHER 0
#define ISO_KSCHED_FIFO 1
#define ISO_KSCHED_RR 2
#define ISO_KSCHED_BATCH 3
/* 4: the SCHED_ISO patch's SCHED_ISO_RR, still unused by Linux */
#define ISO_KSCHED_ISO_RR 4
/* 5: the patch's SCHED_ISO_FIFO, but SCHED_IDLE on every current kernel */
#define ISO_KSCHED_IDLE 5
#define ISO_KSCHED_DEADLINE 6
/* 7: a task of a loaded sched_ext scheduler (scx_iso runs ISO this way) */
#define ISO_KSCHED_EXT 7

/* ORed into a policy by sched_setscheduler's callers */
#define ISO_KSCHED_RESET_ON_FORK 0x40000000

/* Kernel RT priorities (sched_get_priority_min/max of FIFO and RR) */
#define ISO_KPRIO_MIN 1
#define ISO_KPRIO_MAX 99

/* struct sched_attr.sched_flags */
#define ISO_KSCHED_FLAG_RESET_ON_FORK 0x01u
#define ISO_KSCHED_FLAG_KEEP_POLICY 0x08u
#define ISO_KSCHED_FLAG_KEEP_PARAMS 0x10u /* since 5.3 */

/* The kernel's struct sched_attr, first published size (VER0). */
struct iso_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};
#define ISO_SCHED_ATTR_SIZE_VER0 48u
_Static_assert(sizeof(struct iso_sched_attr) == ISO_SCHED_ATTR_SIZE_VER0,
	       "struct sched_attr VER0 layout");

#endif
