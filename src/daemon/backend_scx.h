/* backend_scx.h — scx_iso's detection and map access, for backend.c and
 * backend_scx.c only (everything else goes through struct backend).
 *
 * scx_iso counts as loaded when /sys/kernel/sched_ext/state is "enabled",
 * root/ops is SCX_ISO_OPS_NAME and its maps are pinned. isod talks to the
 * maps with raw bpf(2), so it needs no libbpf. Own mutex.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_BACKEND_SCX_H
#define ISOD_BACKEND_SCX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"

int scx_setup(enum backend_kind want, const char *pin_dir, const char *sysfs);
/* Is scx_iso running isod's threads now? */
bool scx_active(void);
/* See backend_poll. */
bool scx_poll(int64_t now_ns);
/* backend_may_switch (backend.h) */
bool scx_may_switch(void);
/* Would scx_poll see a change (scx_iso loaded or gone, or a new instance
 * of it)? Reads sysfs and the pinned map's id; changes nothing. */
bool scx_probe(void);
void scx_close(void);
/* Unmark tid, for the crash handler: no lock, no allocation, no logging (a
 * map descriptor closed under it makes the call fail harmlessly). */
int scx_clear_signal_safe(pid_t tid);

#endif
