/* accounting_bpf.h — the BPF accounting's loader. Built with meson -Dbpf
 * (ISOD_HAVE_BPF); without it acct_bpf_load says so (-EOPNOTSUPP,
 * accounting.c). What it does beyond struct accounting's required members
 * (the kernel's stray reports of users' RT threads at any priority, forks
 * and execs of tracked threads, the kernel's wakes, the band's time) are
 * that struct's optional members: the daemon calls them only through that
 * door (accounting_stray_fd and so on, accounting.h).
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_ACCOUNTING_BPF_H
#define ISOD_ACCOUNTING_BPF_H

#include <stddef.h>

#include "accounting.h"

/* Load and attach the program for cfg's band and max_threads. *out: its
 * accounting, with state of its own (struct acct_bpf), which
 * accounting_close unloads and frees. On failure *out is left as it was
 * and why (cap bytes) says what is missing. */
int acct_bpf_load(const struct isod_config *cfg, const struct accounting **out, char *why,
		  size_t cap);

#endif
