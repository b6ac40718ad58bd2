/* handler.h — one decoded request from an authenticated peer to one reply:
 * validation, authorization (the kernel's rules plus isod's caps) and the
 * grant itself. Takes the daemon lock itself.
 *
 * Return contract: fills rep (err 0 or -errno, with a message); void. */
#ifndef ISOD_HANDLER_H
#define ISOD_HANDLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "iso_proto.h"
#include "isod.h"
#include "peer.h"

/* What a handled request did to the grant table. A front end holds a
 * reply that may have changed it until the state file has the change
 * (server.c, rtkit_bus.c); a grant that cannot be recorded is undone and
 * its reply replaced (handle_unrecorded). */
enum handle_effect {
	HANDLE_READ_ONLY, /* nothing changed: answer at once */
	HANDLE_CHANGED,   /* may have changed (a release, a refused SET) */
	HANDLE_GRANTED,   /* a thread was granted ISO */
};

/* threads/threads_cap: room for a STATUS page (ISO_PROTO_PAGE entries). */
enum handle_effect handle_request(struct isod *d, const struct peer *peer,
		    const struct iso_req *req, struct iso_reply *rep,
		    struct iso_thread_info *threads);
/* The same paths for a second front end (rtkit_req.c, the D-Bus face),
 * which has no iso_req: the ids are in the peer's PID namespace (ns_pid 0:
 * any process), exactly as on the socket. rep gets err 0 or -errno. */
enum handle_effect handle_set(struct isod *d, const struct peer *peer, int32_t ns_pid,
		int32_t ns_tid, int policy, int prio, int limit, struct iso_reply *rep);
/* setpriority() of one thread of the peer (owner-checked like a grant,
 * allow lists apply); nice must already be within the front end's range. */
void handle_nice(struct isod *d, const struct peer *peer, int32_t ns_pid,
		 int32_t ns_tid, int nice, struct iso_reply *rep);
/* Every tracked thread of the peer's user (root: every tracked thread)
 * back to SCHED_OTHER. */
enum handle_effect handle_reset(struct isod *d, const struct peer *peer, struct iso_reply *rep);
/* The refusal for a user over its request rate (EAGAIN). */
void handle_rate_limited(const struct iso_req *req, struct iso_reply *rep);
/* For a grant undone because the state file could not be written (EIO).
 * type is the reply's type. */
void handle_unrecorded(uint16_t type, uint32_t seq, struct iso_reply *rep);
/* For bytes that did not decode: an error reply naming why. */
void handle_bad_message(int err, uint16_t type, uint32_t seq, struct iso_reply *rep);

#endif
