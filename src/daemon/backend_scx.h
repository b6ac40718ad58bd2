/* backend.h — which scheduler runs isod's ISO threads.
 *
 *  kernel-rt  kernel SCHED_FIFO/SCHED_RR inside the band (actuator.c).
 *  scx        the scx_iso sched_ext scheduler: the thread stays
 *             SCHED_NORMAL and isod marks it in scx_iso's pinned "tasks"
 *             map; scx_iso runs it ahead of the fair tasks and keeps the
 *             per-CPU budget itself (docs/scx.md).
 *  auto       scx while scx_iso is loaded, kernel-rt otherwise.
 *
 * scx_iso counts as loaded when /sys/kernel/sched_ext/state is "enabled",
 * root/ops is SCX_ISO_OPS_NAME and its maps are pinned. isod talks to the
 * maps with raw bpf(2), so it needs no libbpf. Thread-safe (own mutex): the
 * server and the enforcer both call in. The crash handler uses
 * backend_scx_clear_signal_safe, which takes no mutex on any backend.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_BACKEND_H
#define ISOD_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum backend_kind { BACKEND_AUTO, BACKEND_KERNEL_RT, BACKEND_SCX };

#define BACKEND_PIN_DIR_MAX 200

int backend_parse(const char *s, enum backend_kind *out);
const char *backend_kind_name(enum backend_kind k);

/* Set what to use and where scx_iso pins its maps (NULL: the default);
 * sysfs: the sched_ext sysfs directory (NULL: /sys/kernel/sched_ext; tests
 * may point elsewhere). Looks once: with BACKEND_SCX, -ENODEV when scx_iso
 * is not loaded. */
int backend_setup(enum backend_kind want, const char *pin_dir, const char *sysfs);
/* Is scx_iso running isod's threads now? */
bool backend_scx_active(void);
/* Look again (at most every 100 ms, by now_ns); true when the answer of
 * backend_scx_active() changed, or scx_iso was reloaded in between (new
 * maps): the caller must re-apply every thread. */
bool backend_poll(int64_t now_ns);
/* Release the map descriptors. */
void backend_close(void);

/* scx only: mark tid ISO (fifo or RR, ISO priority 1..99, own limit in
 * percent or 0). Any failure other than a bad argument means scx_iso is
 * gone: the backend turns inactive and the caller falls back. */
int backend_scx_set(pid_t tid, bool fifo, int prio, unsigned limit);
/* Unmark tid (0 also when it was not marked or scx is inactive). */
int backend_scx_clear(pid_t tid);
/* The same for the crash handler: no lock, no allocation, no logging (a
 * map descriptor closed under it makes the call fail harmlessly). */
int backend_scx_clear_signal_safe(pid_t tid);
/* The scheduler's view of tid: 0 with *prio and *demoted when marked,
 * -ENOENT when not. */
int backend_scx_query(pid_t tid, int *prio, bool *demoted);
/* Hand the budget tunables to scx_iso when they differ from what it has. */
void backend_scx_tune(unsigned iso_cpu, unsigned iso_period_s);

#endif
