/* backend.c — which backend acts: the one place that chooses. */
#include "backend.h"

#include <errno.h>
#include <stdatomic.h>
#include <strings.h>

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

int backend_parse(const char *s, enum backend_kind *out)
{
	if (!strcasecmp(s, "auto"))
		*out = BACKEND_AUTO;
	else if (!strcasecmp(s, "kernel-rt"))
		*out = BACKEND_KERNEL_RT;
	else if (!strcasecmp(s, "scx"))
		*out = BACKEND_SCX;
	else
		return -EINVAL;
	return 0;
}

const char *backend_kind_name(enum backend_kind k)
{
	return k == BACKEND_AUTO ? "auto" : k == BACKEND_SCX ? "scx" : "kernel-rt";
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
