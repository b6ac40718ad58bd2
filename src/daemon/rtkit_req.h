/* rtkit_req.h — one RealtimeKit1 request from an identified caller to one
 * answer, without D-Bus: the argument checks rtkit makes, the mapping of
 * its ids onto isod's request path (handler.h: the same allow lists, caps,
 * rate limit, owner check and grant as the socket), and the mapping of
 * the result onto the error names rtkit 0.13 clients already handle.
 * rtkit_bus.c only moves messages; the fuzzer (tests/fuzz/fuzz_rtkit.c)
 * drives this file directly.
 *
 * Return contract: void; the answer is in struct rtkit_answer. */
#ifndef ISOD_RTKIT_REQ_H
#define ISOD_RTKIT_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include "handler.h"
#include "isod.h"

/* What the properties say (docs/rtkit.md says why). RTTimeUSecMax is the
 * RLIMIT_RTTIME a client is told to set: isod's budget, not the kernel's
 * SIGKILL, stops a runaway, so the value is "never": INT64_MAX us (RLIM_
 * INFINITY does not fit an int64 and -1 reads as an error; 0 gets clients
 * killed at once, xdg-desktop-portal#2110). */
#define RTKIT_RTTIME_USEC_MAX INT64_MAX
#define RTKIT_MAX_REALTIME_PRIORITY 99
#define RTKIT_MIN_NICE_LEVEL (-15)

#define RTKIT_ERR_ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"
#define RTKIT_ERR_FAILED "org.freedesktop.DBus.Error.Failed"

enum rtkit_method {
	RTKIT_MAKE_REALTIME,          /* (t thread, u priority) */
	RTKIT_MAKE_REALTIME_PID,      /* (t process, t thread, u priority) */
	RTKIT_MAKE_HIGH_PRIORITY,     /* (t thread, i priority) */
	RTKIT_MAKE_HIGH_PRIORITY_PID, /* (t process, t thread, i priority) */
	RTKIT_RESET_KNOWN,
	RTKIT_RESET_ALL,
	RTKIT_EXIT,
};

struct rtkit_call {
	enum rtkit_method method;
	uint64_t process, thread; /* as sent: the caller's PID namespace */
	int64_t priority;         /* u or i, widened */
};

struct rtkit_answer {
	const char *error;  /* NULL: success; else one of RTKIT_ERR_* */
	char message[300];  /* rtkit's strerror text, then isod's reason */
	bool changed;       /* the grant table may have changed (record it) */
	bool exit;          /* Exit by root: stop isod */
};

/* The checks that need nothing but the arguments (priority range, ids
 * that fit a pid_t). true when they pass; else the answer is filled. */
bool rtkit_check_args(const struct rtkit_call *c, struct rtkit_answer *a);
/* Run c for peer (pinned by start time, as on the socket): checks, the
 * caller's own process, then handler.h. Takes d->lock itself. */
void rtkit_serve(struct isod *d, const struct peer *peer, const struct rtkit_call *c,
		 struct rtkit_answer *a);
/* A -errno and isod's reason as rtkit's error name and message. */
void rtkit_answer_error(struct rtkit_answer *a, int err, const char *reason);

#endif
