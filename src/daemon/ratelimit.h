/* ratelimit.h — per-user token buckets for requests. One flooding user
 * must not take the daemon's time from everyone else: each uid gets
 * `rate` requests per second with bursts up to `burst`; past that its
 * requests are refused with EAGAIN. Root is never limited.
 *
 * Fixed table, no allocation; when it is full the bucket idle longest is
 * reused (a reused bucket starts full, which only ever errs towards
 * serving). Not locked: used by the server thread only. */
#ifndef ISOD_RATELIMIT_H
#define ISOD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define RATELIMIT_USERS 256

struct rate_bucket {
	uid_t uid;
	bool used;
	double tokens;
	int64_t last_ns;
};

struct ratelimit {
	unsigned rate;   /* requests per second; 0: no limit */
	unsigned burst;  /* bucket size */
	struct rate_bucket b[RATELIMIT_USERS];
};

void ratelimit_init(struct ratelimit *rl, unsigned rate, unsigned burst);
/* New rate/burst (SIGHUP): existing buckets are clamped to the new size. */
void ratelimit_configure(struct ratelimit *rl, unsigned rate, unsigned burst);
/* May uid make one more request at now_ns (CLOCK_MONOTONIC)? Takes a
 * token when yes. */
bool ratelimit_take(struct ratelimit *rl, uid_t uid, int64_t now_ns);

#endif
