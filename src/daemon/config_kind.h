/* config_kind.h — the backend setting's values and their names: config
 * parses a backend's name (config.c), what it chooses is backend.c's
 * (backend_setup).
 *
 * Return contract: backend_parse 0, or -EINVAL for an unknown name. */
#ifndef ISOD_CONFIG_KIND_H
#define ISOD_CONFIG_KIND_H

enum backend_kind { BACKEND_AUTO, BACKEND_KERNEL_RT, BACKEND_SCX };

/* "auto", "kernel-rt", "scx", in any case. */
int backend_parse(const char *s, enum backend_kind *out);
const char *backend_kind_name(enum backend_kind k);

#endif
