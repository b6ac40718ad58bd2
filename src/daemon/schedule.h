/* schedule.h — when the enforcer checks next (schedule.c, iso_plan.h).
 *
 * isod_schedule_init: 0 or a negative errno. isod_replan: something the
 * plan depends on changed (a grant, a release, an exit, a retune): the
 * enforcer plans again at once. isod_plan: the time of the next check
 * (ISO_PLAN_NEVER: none). Caller holds d->lock for the last two. */
#ifndef ISOD_SCHEDULE_H
#define ISOD_SCHEDULE_H

#include <stdint.h>

#include "isod.h"

int isod_schedule_init(struct isod *d);
void isod_replan(struct isod *d);
int64_t isod_plan(const struct isod *d, int64_t now_ns);

#endif
