/* fake_polkit — a stand-in for polkitd on the tests' private bus: owns
 * org.freedesktop.PolicyKit1 and answers CheckAuthorization from a fixed
 * rule list given as arguments, "ACTION:UID" or "ACTION:*" (allowed;
 * anything else is not). Prints one line per question: "check ACTION pid P start S uid U
 * yes|no". Exits after 60 s at the latest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

static int n_rules;
static char **rules;

static int check(sd_bus_message *m, void *userdata, sd_bus_error *err)
{
	const char *kind, *action, *key;
	uint32_t pid = 0;
	uint64_t start = 0;
	int32_t uid = -1;
	char want[256];
	int r, yes = 0;

	(void)userdata;
	(void)err;
	r = sd_bus_message_enter_container(m, 'r', "sa{sv}");
	if (r >= 0)
		r = sd_bus_message_read(m, "s", &kind);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &key);
		if (r >= 0 && !strcmp(key, "pid"))
			r = sd_bus_message_read(m, "v", "u", &pid);
		else if (r >= 0 && !strcmp(key, "start-time"))
			r = sd_bus_message_read(m, "v", "t", &start);
		else if (r >= 0 && !strcmp(key, "uid")) {
			/* polkit takes it as i; some callers send u */
			char type = 0;
			const char *contents = NULL;
			r = sd_bus_message_peek_type(m, &type, &contents);
			if (r >= 0)
				r = sd_bus_message_read(m, "v", contents && contents[0] == 'u' ? "u" : "i", &uid);
		}
		else if (r >= 0)
			r = sd_bus_message_skip(m, "v");
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = sd_bus_message_read(m, "s", &action);
	if (r < 0)
		return r;
	snprintf(want, sizeof(want), "%s:%d", action, (int)uid);
	for (int i = 0; i < n_rules; i++) {
		size_t n = strlen(rules[i]);
		yes |= !strcmp(rules[i], want) ||
		       (n > 2 && !strcmp(rules[i] + n - 2, ":*") && !strncmp(rules[i], want, n - 1));
	}
	printf("check %s pid %u start %llu uid %d %s\n", action, pid, (unsigned long long)start,
	       (int)uid, yes ? "yes" : "no");
	fflush(stdout);
	return sd_bus_reply_method_return(m, "(bba{ss})", yes, 0, 0);
}

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", check, 0),
	SD_BUS_VTABLE_END
};

int main(int argc, char **argv)
{
	sd_bus *bus = NULL;

	rules = argv + 1;
	n_rules = argc - 1;
	alarm(60);
	if (sd_bus_open_system(&bus) < 0 ||
	    sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/PolicyKit1/Authority",
				     "org.freedesktop.PolicyKit1.Authority", vtable, NULL) < 0 ||
	    sd_bus_request_name(bus, "org.freedesktop.PolicyKit1", 0) < 0) {
		fprintf(stderr, "fake_polkit: cannot serve\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int r = sd_bus_process(bus, NULL);
		if (r < 0)
			return 1;
		if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
			return 1;
	}
}
