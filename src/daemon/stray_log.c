/* stray_log.c — rate-limited stray warnings, every stray counted
 * (stray_log.h). */
#include "stray_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

bool stray_log_admit(struct stray_log *sl, int64_t now_ns)
{
	sl->demoted++;
	if (sl->window_ns && now_ns - sl->window_ns >= STRAY_LOG_WINDOW_NS)
		(void)stray_log_flush(sl, now_ns);
	if (!sl->window_ns) {
		sl->window_ns = now_ns ? now_ns : 1;
		sl->written = 0;
	}
	if (sl->written < STRAY_LOG_BURST) {
		sl->written++;
		return true;
	}
	sl->held++;
	sl->suppressed++;
	return false;
}

void stray_log_warn(struct stray_log *sl, const char *fmt, ...)
{
	char line[400];
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!stray_log_admit(sl, (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_warning("%s", line);
}

uint64_t stray_log_flush(struct stray_log *sl, int64_t now_ns)
{
	uint64_t held = sl->held;

	if (!sl->window_ns || now_ns - sl->window_ns < STRAY_LOG_WINDOW_NS)
		return 0;
	if (held)
		log_warning("stray: %llu more stray warning%s suppressed in the last %lld s (at most %d a window); %llu strays demoted since isod started (isoctl status)",
			    (unsigned long long)held, held == 1 ? "" : "s",
			    (long long)(STRAY_LOG_WINDOW_NS / 1000000000LL), STRAY_LOG_BURST,
			    (unsigned long long)sl->demoted);
	sl->window_ns = 0;
	sl->written = 0;
	sl->held = 0;
	return held;
}

int64_t stray_log_due(const struct stray_log *sl)
{
	return sl->held && sl->window_ns ? sl->window_ns + STRAY_LOG_WINDOW_NS : INT64_MAX;
}

uint64_t stray_log_lost(struct stray_log *sl, uint64_t total)
{
	/* the kernel's count only grows (a reload starts it at 0 again:
	 * then all of it is new) */
	uint64_t n = total >= sl->lost_seen ? total - sl->lost_seen : total;

	sl->lost_seen = total;
	sl->lost += n;
	return n;
}

void stray_log_info(const struct stray_log *sl, struct iso_strays_info *o)
{
	memset(o, 0, sizeof(*o));
	o->demoted = sl->demoted;
	o->suppressed = sl->suppressed;
	o->exiting = sl->exiting;
	o->lost = sl->lost;
	o->sweeps = sl->sweeps;
}
