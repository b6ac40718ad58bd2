/* backend.h — the scheduler that runs isod's ISO threads, as one set of
 * operations. Two implementations:
 *
 *  kernel-rt  kernel SCHED_FIFO/SCHED_RR inside the band (backend_rt.c);
 *             isod's engine keeps the budget and demotes to SCHED_OTHER.
 *  scx        the scx_iso sched_ext scheduler (backend_scx.c): the thread
 *             stays SCHED_NORMAL, marked in scx_iso's pinned "tasks" map;
 *             scx_iso runs it ahead of the fair tasks and keeps the budget
 *             itself, per CPU (docs/scx.md).
 *
 * Which one acts is decided in one place, backend_current(): scx while
 * scx_iso is loaded and wanted (the backend= setting: auto, scx,
 * kernel-rt), kernel-rt otherwise. A caller reads it once per decision and
 * uses that backend throughout, so the answer cannot change under it. The
 * ops are thread-safe (the server and the enforcer both call in); the
 * crash handler uses demote_signal_safe, which takes no lock.
 *
 * Return contract: 0 or a negative errno (-ESRCH: thread gone). */
#ifndef ISOD_BACKEND_H
#define ISOD_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config_kind.h"

/* What a grant asks of the scheduler. */
struct backend_grant {
	bool fifo;      /* ISO_FIFO, else ISO_RR */
	int kprio;      /* kernel RT priority in the band (kernel-rt) */
	int prio;       /* ISO priority 1..99 (scx) */
	unsigned limit; /* own CPU limit in percent, 0: none (scx) */
	/* a declared reservation (reserve.h): dl_runtime not 0 asks for
	 * kernel SCHED_DEADLINE instead of the band (kernel-rt only) */
	uint64_t dl_runtime, dl_deadline, dl_period;
};

/* What the scheduler runs a thread as now. */
struct backend_thread {
	int policy; /* the kernel's (ISO_KSCHED_*); ISO_KSCHED_EXT while scx_iso runs it as ISO */
	int prio;   /* the kernel RT priority; the ISO priority under scx_iso */
	int nice;
	bool iso;   /* it runs as ISO right now */
};

struct backend {
	const char *name; /* "kernel-rt", "scx" */
	/* The backend keeps each thread's budget itself (scx_iso, per CPU):
	 * the engine's demotions are not applied, and whether a thread runs
	 * as ISO at a given moment is the scheduler's answer, not isod's. */
	bool owns_budget;
	/* Make tid ISO; SCHED_FLAG_RESET_ON_FORK always, so no child starts
	 * as kernel RT unpoliced. */
	int (*grant)(pid_t tid, const struct backend_grant *g);
	/* Back to SCHED_OTHER at the thread's own nice level. */
	int (*demote)(pid_t tid);
	int (*query)(pid_t tid, struct backend_thread *out);
	/* Is tid where isod put it — granted g, or demoted? An owner may
	 * lower its RT thread's priority or drop it to SCHED_OTHER (the
	 * kernel lets it). *now gets what it runs as. true too when it
	 * cannot be read (gone: the sampler finds out). */
	bool (*placed)(pid_t tid, const struct backend_grant *g, bool demoted,
		       struct backend_thread *now);
	/* Optional: would a thread the kernel runs with policy and prio
	 * (seen without asking it: accounting's seen_policy) be as placed()
	 * wants? NULL: only placed() can tell. */
	bool (*placed_as)(const struct backend_grant *g, bool demoted, int policy, int prio);
	/* Hand the budget tunables to a backend that owns the budget. */
	void (*tune)(unsigned iso_cpu, unsigned iso_period_s);
};

extern const struct backend backend_kernel_rt; /* backend_rt.c */
extern const struct backend backend_scx;       /* backend_scx.c */

#define BACKEND_PIN_DIR_MAX 200

/* The backend in use now. */
const struct backend *backend_current(void);
/* Set what to use and where scx_iso pins its maps (NULL: the default);
 * sysfs: the sched_ext sysfs directory (NULL: /sys/kernel/sched_ext; tests
 * may point elsewhere). Looks once: with BACKEND_SCX, -ENODEV when scx_iso
 * is not loaded. */
int backend_setup(enum backend_kind want, const char *pin_dir, const char *sysfs);
/* Look again (at most every 100 ms, by now_ns); true when
 * backend_current() changed, or scx_iso was reloaded in between (new
 * maps): the caller must re-apply every thread. */
bool backend_poll(int64_t now_ns);
/* Can the backend change under isod (scx_iso may load, unload or restart:
 * the setting is not kernel RT and this kernel has sched_ext)? Then
 * someone must look even when no decision can change: nothing tells isod
 * of a new scx_iso instance. The server thread does, once a second while
 * a thread is tracked (backend_probe, in its policy check's wake-up), and
 * makes the enforcer's next check due when backend_poll would see a
 * change — no wake-up of the enforcer of its own for it. */
bool backend_may_switch(void);
/* Would backend_poll see a change now? Changes nothing (server thread). */
bool backend_probe(void);
/* Release what the backends hold (map descriptors). */
void backend_close(void);
/* No system call changes anything; every grant and demotion succeeds
 * (the flag is backend_rt.c's, whose system calls read it)
 * for tests without privilege. Kernel RT is used throughout. */
void backend_set_dry_run(bool dry);
bool backend_dry_run(void);

/* For the crash handler: demote on every backend with system calls only —
 * no lock, no allocation, no logging; errno is left as found. */
int backend_demote_signal_safe(pid_t tid);
/* Does the thread carry SCHED_RESET_ON_FORK (as every grant does)?
 * 1 yes, 0 no, or a negative errno. */
int backend_reset_on_fork(pid_t tid);

#endif
