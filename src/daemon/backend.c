/* backend.c — which backend acts: the one place that chooses. */
#include "backend.h"

#include <errno.h>
#include <stdatomic.h>

#include "backend_scx.h"

/* Set once at start-up, before any thread; read by every system call
 * the backends make (process-wide like the kernel state they change). */
static atomic_bool dry_run;

void backend_set_dry_run(bool dry)
{
	atomic_store(&dry_run, dry);
}

bool backend_dry_run(void)
{
	return atomic_load(&dry_run);
}

const struct backend *backend_current(void)
{
	/* a dry run changes nothing, so it never marks scx_iso's map */
	return !backend_dry_run() && scx_active() ? &backend_scx : &backend_kernel_rt;
}

int backend_setup(enum backend_kind want, const char *pin_dir, const char *sysfs)
{
	return scx_setup(want, pin_dir, sysfs);
}

bool backend_poll(int64_t now_ns)
{
	return scx_poll(now_ns);
}

bool backend_probe(void)
{
	return scx_probe();
}

bool backend_may_switch(void)
{
	return scx_may_switch();
}

void backend_close(void)
{
	scx_close();
}
