/* prof_decode.h — PipeWire's profiler event (a Struct of Profiler
 * Objects, one per driver cycle) into struct prof_cycle records. Pure:
 * no I/O, no PipeWire connection; needs only the SPA headers. */
#ifndef ISOBENCH_PROF_DECODE_H
#define ISOBENCH_PROF_DECODE_H

#include <spa/pod/pod.h>

#include "prof_record.h"

typedef void prof_cycle_fn(const struct prof_cycle *c, void *ctx);

/* Call each(cycle, ctx) for every Profiler object of event that decodes
 * (an object whose blocks do not parse is skipped): the number decoded,
 * or -EINVAL when event is not a Struct. */
int prof_decode_event(const struct spa_pod *event, prof_cycle_fn *each, void *ctx);

#endif
