/* info.h — what isod tells about a thread it tracks and about the budget,
 * as the protocol's records (the replies to GET, STATUS and TOP). Caller
 * holds d->lock. */
#ifndef ISOD_INFO_H
#define ISOD_INFO_H

#include "isod.h"

/* e as it runs now (the backend asked), not only as decided. */
void isod_thread_info(const struct isod *d, const struct tracked *e,
		      struct iso_thread_info *out);
void isod_status_info(const struct isod *d, struct iso_status_info *out);

#endif
