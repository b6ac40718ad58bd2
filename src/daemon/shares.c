/* shares.c — the per-user shares (user_cpu, iso_share.h) as the USERS
 * reply shows them. */
#include "isod.h"

#include <math.h>

static uint32_t milli(double pct)
{
	return pct <= 0.0 ? 0 : (uint32_t)lround(pct * 1000.0);
}

uint32_t isod_users_page(const struct isod *d, uint32_t offset,
			 struct iso_users_info *out, struct iso_user_info *page)
{
	const struct iso_share *s = &d->share;
	uint32_t n = 0, total = 0;

	out->user_cpu = s->user_cpu;
	out->share_milli = milli(iso_share_limit(s, &d->engine.tun));
	if (iso_share_on(s))
		for (size_t i = 0; i < s->end; i++) {
			const struct iso_share_user *u = &s->users[i];

			if (!u->used)
				continue;
			if (total++ < offset || n >= ISO_PROTO_PAGE)
				continue;
			page[n++] = (struct iso_user_info){
				.uid = u->uid,
				.usage_milli = milli(u->usage),
				.flags = u->over ? ISO_USER_OVER : 0,
			};
		}
	out->total = total;
	out->offset = offset;
	out->count = n;
	return n;
}
