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
/* Whether the test that started this tool still runs: the environment's
 * ESC_WHILE_PID (elib.sh exports the test shell's PID) still has a /proc
 * entry. /proc, not kill(2): inside a PID namespace (pidns.sh) kill cannot
 * see the shell, but /proc is still the host's. Unset: always true. So a
 * tool and everything it starts live until the test is over (its checks
 * done, however slow the machine), not a guessed number of seconds; the
 * SECONDS cap and alarm stay as the bound of last resort. */
int test_still_runs(void);
/* 1 ms of CPU in every 10 until the deadline (now_s) or the test's end:
 * runs, but leaves the CPU, so it switches in and out. */
void idle_until(double end);
/* The CPU without a break until the deadline or the test's end. */
void spin_until(double end);
/* The largest SECONDS a tool takes (the lifetime cap) */
#define TOOL_MAX_SECONDS 120

#endif
