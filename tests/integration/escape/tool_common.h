/* tool_common.h — what the escape suite's client programs (escapetool,
 * rttool) share: sched_setattr's argument, one-write report lines, a
 * monotonic clock and a thread that runs but leaves the CPU. */
#ifndef ESCAPE_TOOL_COMMON_H
#define ESCAPE_TOOL_COMMON_H

#include <stdint.h>

#define FLAG_RESET_ON_FORK 0x01
#define FLAG_UTIL_CLAMP_MIN 0x20
#define FLAG_UTIL_CLAMP_MAX 0x40

/* struct sched_attr of linux/sched/types.h (glibc 2.36 has none) */
struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

/* One line in one write(2), no stdio: a CLONE_VM child shares the
 * parent's memory and thread pointer, so stdio's buffer and its lock would
 * be shared unguarded and two reports could mix ("clone-vmclone-vm pid"). */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now_s(void);
/* 1 ms of CPU in every 10 until the deadline (now_s): runs, but leaves
 * the CPU, so it switches in and out. */
void idle_until(double end);

#endif
