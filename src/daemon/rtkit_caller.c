/* rtkit_caller.c — the caller of a RealtimeKit1 call, and polkit's word. */
#include "rtkit_caller.h"

#include <errno.h>
#include <string.h>

#include "charge.h"
#include "procinfo.h"

/* GetConnectionCredentials' a{sv}: the caller as the bus driver saw it
 * when it connected (SO_PEERCRED, SO_PEERGROUPS). */
int rtkit_caller_read_creds(sd_bus_message *m, struct peer *p)
{
	bool have_uid = false, have_pid = false;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		const char *key;
		uint32_t u;

		r = sd_bus_message_read(m, "s", &key);
		if (r < 0)
			return r;
		if (!strcmp(key, "UnixUserID")) {
			r = sd_bus_message_read(m, "v", "u", &u);
			p->uid = u;
			p->charged = u; /* until rtkit_caller_pin reads it */
			have_uid = true;
		} else if (!strcmp(key, "ProcessID")) {
			r = sd_bus_message_read(m, "v", "u", &u);
			p->pid = (pid_t)u;
			have_pid = u > 0 && u <= INT32_MAX;
		} else if (!strcmp(key, "UnixGroupIDs")) {
			const uint32_t *g;
			size_t sz;

			r = sd_bus_message_enter_container(m, 'v', "au");
			if (r >= 0)
				r = sd_bus_message_read_array(m, 'u', (const void **)&g, &sz);
			if (r >= 0) {
				p->ngroups = sz / sizeof(*g);
				if (p->ngroups > sizeof(p->groups) / sizeof(p->groups[0]))
					p->ngroups = 0; /* as the socket: too many, none */
				for (size_t i = 0; i < p->ngroups; i++)
					p->groups[i] = g[i];
				r = sd_bus_message_exit_container(m);
			}
		} else {
			r = sd_bus_message_skip(m, "v");
		}
		if (r < 0)
			return r;
		r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return have_uid && have_pid ? 0 : -ENODATA;
}

/* Pin the caller's pid by its start time, as the socket does at connect;
 * the primary group (which the bus does not report) from the same process. */
int rtkit_caller_pin(struct isod *d, struct peer *p)
{
	struct thread_status st;

	if (read_thread_starttime(d->proc, p->pid, &p->starttime) < 0 || p->starttime == 0)
		return -ESRCH;
	if (read_thread_status(d->proc, p->pid, &st) < 0)
		return -ESRCH;
	p->gid = st.egid;
	/* who pays for the caller's uid (charge.h), as at the socket */
	(void)read_charged_uid(d->proc, p->pid, p->uid, &p->charged);
	return 0;
}

int rtkit_polkit_ask(sd_bus *bus, const struct peer *p, bool realtime,
		     sd_bus_message_handler_t cb, void *userdata, sd_bus_slot **slot)
{
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.PolicyKit1",
					   "/org/freedesktop/PolicyKit1/Authority",
					   "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
	/* subject: the pinned process (pid + start time: polkit checks both,
	 * so a reused pid is not judged in its place) */
	if (r >= 0)
		r = sd_bus_message_append(m, "(sa{sv})", "unix-process", 3,
					  "pid", "u", (uint32_t)p->pid,
					  "start-time", "t", (uint64_t)p->starttime,
					  "uid", "i", (int32_t)p->uid);
	if (r >= 0)
		r = sd_bus_message_append(m, "sa{ss}us",
					  realtime ? "org.freedesktop.RealtimeKit1.acquire-real-time"
						   : "org.freedesktop.RealtimeKit1.acquire-high-priority",
					  0, 0u /* no interaction */, "");
	if (r >= 0)
		r = sd_bus_call_async(bus, slot, m, cb, userdata, 0);
	sd_bus_message_unref(m);
	return r;
}

int rtkit_polkit_verdict(sd_bus_message *reply)
{
	int authorized = 0, challenge = 0;

	if (sd_bus_message_is_method_error(reply, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(reply);

		if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
			return -ENOENT;
		return -EIO;
	}
	if (sd_bus_message_enter_container(reply, 'r', "bba{ss}") < 0 ||
	    sd_bus_message_read(reply, "bb", &authorized, &challenge) < 0)
		return -EBADMSG;
	return authorized ? 1 : 0;
}
