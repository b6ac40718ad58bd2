/* backend.c — which backend acts: the one place that chooses. */
#include "backend.h"

#include <errno.h>

#include "backend_scx.h"

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

/* Here, where both backends are known: the kernel's policy back to normal,
 * and scx_iso's mark cleared, whichever was in use. */
int backend_demote_signal_safe(pid_t tid)
{
	int saved = errno, r = backend_kernel_rt.demote(tid);

	if (!backend_dry_run())
		(void)scx_clear_signal_safe(tid);
	errno = saved;
	return r;
}
