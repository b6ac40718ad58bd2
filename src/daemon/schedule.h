/* schedule.h — when the enforcer checks next (schedule.c, iso_plan.h).
 *
 * isod_schedule_init: 0 or a negative errno. isod_replan: something the
 * plan depends on changed (a tracked thread's limit, an exit the kernel
 * reports, a retune): the enforcer plans again at once. A release needs
 * none (isod_forget: no decision can come sooner). isod_replan_if_sooner: e is a new
 * thread; the enforcer is woken only if the plan with it is sooner than
 * its own (schedule.c). isod_plan (the enforcer's): the time of the
 * next check (ISO_PLAN_NEVER: none). Caller holds d->lock for the last three. */
#ifndef ISOD_SCHEDULE_H
#define ISOD_SCHEDULE_H

#include <stdint.h>

#include "isod.h"

int isod_schedule_init(struct isod *d);
void isod_replan(struct isod *d);
void isod_replan_if_sooner(struct isod *d, const struct tracked *e);
int64_t isod_plan(struct isod *d, int64_t now_ns);

#endif
