/* rtkit_bus.c — the RealtimeKit1 D-Bus face: sd-bus plumbing and vtable. */
#include "rtkit_bus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-bus.h>
#include <time.h>

#include "log.h"
#include "rtkit_caller.h"
#include "rtkit_req.h"

#define RTKIT_NAME "org.freedesktop.RealtimeKit1"
#define RTKIT_PATH "/org/freedesktop/RealtimeKit1"
/* calls between arrival and reply (identifying the caller, waiting for
 * the state file): bounded so a flood cannot grow isod's memory */
#define RTKIT_MAX_INFLIGHT 256
#define RTKIT_RETRY_NS (5 * 1000000000LL)

/* One call from arrival to reply. */
struct inflight {
	struct rtkit_bus *b;
	sd_bus_message *m;       /* the call, kept to reply to */
	struct rtkit_call call;
	struct rtkit_answer answer;
	struct peer peer;        /* once the bus driver has said */
	enum { AT_CREDS, AT_POLKIT, AT_HELD } stage; /* who frees it */
	struct inflight *next;
};

struct rtkit_bus {
	struct isod *d;
	sd_bus *bus;             /* NULL while disconnected */
	struct ratelimit *rl;    /* the server loop's, during process() */
	struct inflight *held;   /* answered, waiting for the state file */
	unsigned inflight;
	int64_t retry_ns;        /* next connection attempt */
	bool said_down;          /* "bus gone" said once per outage */
	bool said_no_polkit;     /* "polkit is not on the bus" said once */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void reply(struct inflight *f)
{
	if (f->answer.error)
		(void)sd_bus_reply_method_errorf(f->m, f->answer.error, "%s", f->answer.message);
	else
		(void)sd_bus_reply_method_return(f->m, NULL);
}

static void inflight_free(struct inflight *f)
{
	f->b->inflight--;
	sd_bus_message_unref(f->m);
	free(f);
}

/* The slot of a credentials or polkit call is gone (answered, or the bus
 * closed): the call is freed by the stage it is at. */
static void creds_slot_gone(void *userdata)
{
	struct inflight *f = userdata;

	if (f->stage == AT_CREDS)
		inflight_free(f);
}

static void polkit_slot_gone(void *userdata)
{
	struct inflight *f = userdata;

	if (f->stage == AT_POLKIT)
		inflight_free(f);
}

/* The call, authorized so far, through the request path; the reply now,
 * or once the state file has the grant. */
static void finish(struct inflight *f)
{
	struct rtkit_bus *b = f->b;

	if (!f->answer.error) {
		rtkit_serve(b->d, &f->peer, &f->call, &f->answer);
		if (f->answer.error)
			log_debug("rtkit call from pid %d uid %u refused: %s", (int)f->peer.pid,
				  (unsigned)f->peer.uid, f->answer.message);
	}
	if (f->answer.changed || f->answer.exit) {
		f->stage = AT_HELD;
		f->next = b->held;
		b->held = f;
		return;
	}
	reply(f); /* freed when its slot goes */
}

static int on_polkit(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct inflight *f = userdata;
	struct rtkit_bus *b = f->b;
	int r = rtkit_polkit_verdict(m);

	(void)ret_error;
	if (r == -ENOENT) {
		if (!b->said_no_polkit)
			log_warning("rtkit: polkit = yes, but polkit is not on the bus: the allow lists alone decide");
		b->said_no_polkit = true;
	} else if (r == 0) {
		rtkit_answer_error(&f->answer, -EPERM, f->call.method <= RTKIT_MAKE_REALTIME_PID
				   ? "polkit does not allow org.freedesktop.RealtimeKit1.acquire-real-time to this caller"
				   : "polkit does not allow org.freedesktop.RealtimeKit1.acquire-high-priority to this caller");
	} else if (r < 0) {
		rtkit_answer_error(&f->answer, -EPERM, "polkit could not decide (is rtkit's action file installed?)");
	}
	finish(f);
	return 1;
}

static int on_creds(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct inflight *f = userdata;
	struct rtkit_bus *b = f->b;
	sd_bus_slot *slot = NULL;

	(void)ret_error;
	if (sd_bus_message_is_method_error(m, NULL) || rtkit_caller_read_creds(m, &f->peer) < 0) {
		rtkit_answer_error(&f->answer, -EIO, "the bus could not say who called");
	} else if (rtkit_caller_pin(b->d, &f->peer) < 0) {
		rtkit_answer_error(&f->answer, -ESRCH, "the calling process has exited");
	} else if (!ratelimit_take(b->rl, f->peer.charged, now_ns())) {
		rtkit_answer_error(&f->answer, -EAGAIN,
				   "rate limited: too many requests from this user; try again later");
	} else if (b->d->cfg.polkit && f->peer.uid != 0 && f->call.method <= RTKIT_MAKE_HIGH_PRIORITY_PID &&
		   rtkit_check_args(&f->call, &f->answer)) {
		/* site policy for rtkit's actions, on top of the allow lists */
		if (rtkit_polkit_ask(b->bus, &f->peer, f->call.method <= RTKIT_MAKE_REALTIME_PID,
				     on_polkit, f, &slot) >= 0) {
			f->stage = AT_POLKIT;
			sd_bus_slot_set_destroy_callback(slot, polkit_slot_gone);
			sd_bus_slot_set_floating(slot, 1);
			sd_bus_slot_unref(slot);
			return 1;
		}
		rtkit_answer_error(&f->answer, -EPERM, "cannot ask polkit");
	}
	finish(f);
	return 1;
}

static int on_method(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct rtkit_bus *b = userdata;
	const char *member = sd_bus_message_get_member(m);
	const char *sender = sd_bus_message_get_sender(m);
	struct rtkit_call c = { 0 };
	struct inflight *f;
	sd_bus_slot *slot = NULL;
	uint32_t u = 0;
	int32_t i = 0;
	int r = 0;

	if (!member || !sender)
		return sd_bus_error_set(ret_error, RTKIT_ERR_FAILED, "Invalid argument: no sender");
	/* sd-bus has checked the signature against the vtable already */
	if (!strcmp(member, "MakeThreadRealtime")) {
		c.method = RTKIT_MAKE_REALTIME;
		r = sd_bus_message_read(m, "tu", &c.thread, &u);
		c.priority = u;
	} else if (!strcmp(member, "MakeThreadRealtimeWithPID")) {
		c.method = RTKIT_MAKE_REALTIME_PID;
		r = sd_bus_message_read(m, "ttu", &c.process, &c.thread, &u);
		c.priority = u;
	} else if (!strcmp(member, "MakeThreadHighPriority")) {
		c.method = RTKIT_MAKE_HIGH_PRIORITY;
		r = sd_bus_message_read(m, "ti", &c.thread, &i);
		c.priority = i;
	} else if (!strcmp(member, "MakeThreadHighPriorityWithPID")) {
		c.method = RTKIT_MAKE_HIGH_PRIORITY_PID;
		r = sd_bus_message_read(m, "tti", &c.process, &c.thread, &i);
		c.priority = i;
	} else if (!strcmp(member, "ResetKnown")) {
		c.method = RTKIT_RESET_KNOWN;
	} else if (!strcmp(member, "ResetAll")) {
		c.method = RTKIT_RESET_ALL;
	} else if (!strcmp(member, "Exit")) {
		c.method = RTKIT_EXIT;
	} else {
		return sd_bus_error_set(ret_error, SD_BUS_ERROR_UNKNOWN_METHOD, "unknown method");
	}
	if (r < 0)
		return r;
	if (b->inflight >= RTKIT_MAX_INFLIGHT)
		return sd_bus_error_set(ret_error, RTKIT_ERR_ACCESS_DENIED,
					"Device or resource busy: too many calls in flight");
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->b = b;
	f->m = sd_bus_message_ref(m);
	f->call = c;
	b->inflight++;
	r = sd_bus_call_method_async(b->bus, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				     "org.freedesktop.DBus", "GetConnectionCredentials",
				     on_creds, f, "s", sender);
	if (r < 0) {
		inflight_free(f);
		return r;
	}
	sd_bus_slot_set_destroy_callback(slot, creds_slot_gone);
	sd_bus_slot_set_floating(slot, 1);
	sd_bus_slot_unref(slot);
	return 1;
}

static int on_property(sd_bus *bus, const char *path, const char *interface,
		       const char *property, sd_bus_message *reply_msg, void *userdata,
		       sd_bus_error *ret_error)
{
	(void)bus;
	(void)path;
	(void)interface;
	(void)userdata;
	(void)ret_error;
	if (!strcmp(property, "RTTimeUSecMax"))
		return sd_bus_message_append(reply_msg, "x", (int64_t)RTKIT_RTTIME_USEC_MAX);
	if (!strcmp(property, "MaxRealtimePriority"))
		return sd_bus_message_append(reply_msg, "i", (int32_t)RTKIT_MAX_REALTIME_PRIORITY);
	return sd_bus_message_append(reply_msg, "i", (int32_t)RTKIT_MIN_NICE_LEVEL);
}

/* rtkit's interface, as in its org.freedesktop.RealtimeKit1.xml. */
static const sd_bus_vtable rtkit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS("MakeThreadRealtime",
				SD_BUS_ARGS("t", thread, "u", priority), SD_BUS_NO_RESULT,
				on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("MakeThreadRealtimeWithPID",
				SD_BUS_ARGS("t", process, "t", thread, "u", priority),
				SD_BUS_NO_RESULT, on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("MakeThreadHighPriority",
				SD_BUS_ARGS("t", thread, "i", priority), SD_BUS_NO_RESULT,
				on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("MakeThreadHighPriorityWithPID",
				SD_BUS_ARGS("t", process, "t", thread, "i", priority),
				SD_BUS_NO_RESULT, on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("ResetKnown", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("ResetAll", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Exit", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_PROPERTY("RTTimeUSecMax", "x", on_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MaxRealtimePriority", "i", on_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MinNiceLevel", "i", on_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END
};

static int on_name_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	uint32_t res = 0;

	(void)userdata;
	(void)ret_error;
	if (sd_bus_message_is_method_error(m, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(m);
		log_error("cannot own %s on the bus: %s (the bus policy must let root own it: dbus-1/system.d/%s.conf)",
			  RTKIT_NAME, e && e->message ? e->message : "refused", RTKIT_NAME);
		return 1;
	}
	if (sd_bus_message_read(m, "u", &res) >= 0 && res == 2)
		log_warning("%s is owned by another process (rtkit-daemon?): isod waits in the queue and answers once it exits",
			    RTKIT_NAME);
	return 1;
}

static int on_name_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	const char *name = NULL;

	(void)userdata;
	(void)ret_error;
	if (sd_bus_message_read(m, "s", &name) < 0 || !name || strcmp(name, RTKIT_NAME))
		return 0;
	if (sd_bus_message_is_signal(m, "org.freedesktop.DBus", "NameAcquired"))
		log_info("rtkit: isod owns %s on the bus", RTKIT_NAME);
	else
		log_warning("rtkit: isod lost %s on the bus", RTKIT_NAME);
	return 0;
}

static void drop_bus(struct rtkit_bus *b)
{
	/* held replies cannot be sent any more; their grants stand (they
	 * are recorded like any other) */
	while (b->held) {
		struct inflight *f = b->held;
		b->held = f->next;
		inflight_free(f);
	}
	b->bus = sd_bus_flush_close_unref(b->bus);
}

static int connect_bus(struct rtkit_bus *b)
{
	sd_bus *bus = NULL;
	int r;

	b->retry_ns = now_ns() + RTKIT_RETRY_NS;
	r = sd_bus_open_system(&bus);
	if (r < 0)
		goto fail;
	b->bus = bus;
	r = sd_bus_add_object_vtable(bus, NULL, RTKIT_PATH, RTKIT_NAME, rtkit_vtable, b);
	if (r >= 0)
		r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
					      "org.freedesktop.DBus", "NameAcquired",
					      on_name_signal, NULL, b);
	if (r >= 0)
		r = sd_bus_match_signal_async(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
					      "org.freedesktop.DBus", "NameLost",
					      on_name_signal, NULL, b);
	/* queue behind another owner (rtkit-daemon) rather than fail; never
	 * let anyone take the name away from isod */
	if (r >= 0)
		r = sd_bus_request_name_async(bus, NULL, RTKIT_NAME, SD_BUS_NAME_QUEUE,
					      on_name_reply, b);
	if (r < 0) {
		drop_bus(b);
		goto fail;
	}
	b->said_down = false;
	log_info("rtkit: serving %s on the system bus", RTKIT_NAME);
	return 0;
fail:
	if (!b->said_down)
		log_warning_errno(r, "rtkit: no system bus; retrying every %lld s", RTKIT_RETRY_NS / 1000000000);
	b->said_down = true;
	return r;
}

int rtkit_bus_open(struct isod *d, struct rtkit_bus **out)
{
	struct rtkit_bus *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->d = d;
	(void)connect_bus(b);
	*out = b;
	return 0;
}

void rtkit_bus_close(struct rtkit_bus *b)
{
	if (!b)
		return;
	drop_bus(b);
	free(b);
}

static int src_fd(void *ctx)
{
	struct rtkit_bus *b = ctx;

	return b->bus ? sd_bus_get_fd(b->bus) : -1;
}

static uint32_t src_events(void *ctx)
{
	struct rtkit_bus *b = ctx;
	int e = b->bus ? sd_bus_get_events(b->bus) : 0;

	/* poll's POLLIN/POLLOUT have epoll's values */
	return e > 0 ? (uint32_t)e : EPOLLIN;
}

static int src_timeout_ms(void *ctx)
{
	struct rtkit_bus *b = ctx;
	int64_t now = now_ns(), until;
	uint64_t usec;

	if (!b->bus)
		until = b->retry_ns;
	else if (sd_bus_get_timeout(b->bus, &usec) < 0 || usec == UINT64_MAX)
		return -1;
	else
		until = usec > (uint64_t)INT64_MAX / 1000 ? INT64_MAX : (int64_t)usec * 1000;
	if (until <= now)
		return 0;
	return until - now > 1000000000LL ? 1000 : (int)((until - now + 999999) / 1000000);
}

static void src_process(void *ctx, struct ratelimit *rl)
{
	struct rtkit_bus *b = ctx;
	int r;

	if (!b->bus) {
		if (now_ns() >= b->retry_ns)
			(void)connect_bus(b);
		return;
	}
	b->rl = rl;
	/* everything that is queued, but never wait for more */
	while ((r = sd_bus_process(b->bus, NULL)) > 0)
		;
	if (r < 0) {
		log_warning_errno(r, "rtkit: lost the system bus; retrying every %lld s",
				  RTKIT_RETRY_NS / 1000000000);
		b->said_down = true;
		drop_bus(b);
		b->retry_ns = now_ns() + RTKIT_RETRY_NS;
	}
}

static void src_flush(void *ctx, bool recorded)
{
	struct rtkit_bus *b = ctx;
	bool stop = false;

	while (b->held) {
		struct inflight *f = b->held;

		b->held = f->next;
		if (!recorded && f->answer.changed && !f->answer.error &&
		    (f->call.method == RTKIT_MAKE_REALTIME || f->call.method == RTKIT_MAKE_REALTIME_PID))
			rtkit_answer_error(&f->answer, -EIO,
					   "isod cannot record the grant (state file); thread left SCHED_OTHER");
		stop |= f->answer.exit;
		reply(f);
		inflight_free(f);
	}
	/* what sd-bus could not write at once goes out as the loop polls
	 * for POLLOUT (src_events): never sd_bus_flush() here */
	if (stop)
		atomic_store(&b->d->stop, true);
}

void rtkit_bus_source(struct rtkit_bus *b, struct server_source *s)
{
	s->ctx = b;
	s->fd = src_fd;
	s->events = src_events;
	s->timeout_ms = src_timeout_ms;
	s->process = src_process;
	s->flush = src_flush;
}
