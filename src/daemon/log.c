/* log.c — levelled logging to stderr (journal picks it up) or syslog. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Process-wide, like the journal or syslog they pick: set by log_setup
 * (start-up, and a reload on the server thread), read by every thread;
 * a line logged during a reload may use either setting. */
static struct {
	int max_level;
	bool to_syslog;
} log_cfg = { .max_level = LOG_INFO };

void log_setup(int level, bool use_syslog)
{
	log_cfg.max_level = level;
	log_cfg.to_syslog = use_syslog;
	if (use_syslog)
		openlog("isod", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

int log_level_from_string(const char *s)
{
	static const struct { const char *name; int level; } names[] = {
		{ "error", LOG_ERR }, { "warning", LOG_WARNING },
		{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].level;
	return -1;
}

static void vlog(int level, const char *suffix, const char *fmt, va_list ap)
{
	char buf[512];

	if (level > log_cfg.max_level)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_cfg.to_syslog) {
		syslog(level, "%s%s", buf, suffix);
		return;
	}
	/* "<N>" prefixes let the journal keep the level on stderr. */
	fprintf(stderr, "<%d>isod: %s%s\n", level, buf, suffix);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, "", fmt, ap);
	va_end(ap);
}

int log_errno(int level, int err, const char *fmt, ...)
{
	char suffix[128];
	va_list ap;

	snprintf(suffix, sizeof(suffix), ": %s", strerror(err < 0 ? -err : err));
	va_start(ap, fmt);
	vlog(level, suffix, fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}
