/* config_kind.c — the backend setting's names (config_kind.h). */
#include "config_kind.h"

#include <errno.h>
#include <strings.h>

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
