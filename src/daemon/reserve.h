/* reserve.h — declared reservations in isod (issue 32): a thread runs as
 * kernel SCHED_DEADLINE (runtime every period), admitted first by the
 * pure iso_reserve.h against reserve_cpu and the user's part of it, and
 * otherwise a tracked ISO thread like any other — charged to the ISO
 * budget, demoted while over it, forgotten (and its reservation given
 * back) when it leaves, exits or execs, recorded in the state file.
 * Where DEADLINE cannot serve it (its affinity does not span its root
 * domain, the kernel's own admission says EBUSY, the scx backend runs
 * ISO) it runs as band ISO_FIFO at its ISO priority instead, and its
 * status says why (ISO_THREAD_RESERVE_FALLBACK).
 *
 * Caller holds d->lock (but reserve_request, which only validates).
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_RESERVE_H
#define ISOD_RESERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "iso_proto.h"
#include "iso_reserve.h"
#include "isod.h"

/* The ISO priority a reservation runs at where DEADLINE cannot serve it,
 * when the request names none: DEADLINE runs ahead of every RT thread,
 * the top of the band is the nearest. */
#define RESERVE_FALLBACK_PRIO 99

int reserve_init(struct isod *d, const struct isod_config *cfg);
void reserve_free(struct isod *d);

/* A RESERVE request as the SET it is (ISO_FIFO at its priority) plus its
 * checked parameters. -EINVAL (rep filled) for parameters the kernel
 * would refuse or a flag not known. */
int reserve_request(const struct iso_req *req, struct iso_req *set, struct iso_reserve_params *p,
		    struct iso_reply *rep);
/* The text of a refusal over a cap: how much is left to the user. */
void reserve_refusal(const struct isod *d, const struct iso_reserve_params *p, uint64_t left,
		     char *buf, size_t n);
/* The text of a reply to an admitted (or fallen back) reservation. */
void reserve_describe(const struct isod *d, const struct tracked *e, char *buf, size_t n);

/* isod_grant's step: admit dl for e (-EBUSY over a cap, *left set), or
 * with dl NULL give back what e holds. e keeps what it had on failure. */
int reserve_take(struct isod *d, struct tracked *e, const struct iso_reserve_params *dl,
		 uint64_t *left);
/* e leaves the table: its reservation is given back. */
void reserve_drop(struct isod *d, struct tracked *e);
/* grants_apply's grant for a thread with a reservation (g has it): as
 * SCHED_DEADLINE, or where that cannot serve, as band ISO, said once. */
int reserve_grant(struct isod *d, struct tracked *e, const struct backend *b,
		  const struct backend_grant *g);
/* ISO_THREAD_RESERVED / _RESERVE_FALLBACK and its why, for e's status. */
uint32_t reserve_flags(const struct tracked *e);
/* The words for a fallback's why (ISO_RESERVE_WHY_*). */
const char *reserve_why_name(unsigned why);

#endif
