/* log.h — isod's logging: levels, stderr or syslog, and log_*_errno()
 * helpers that log and return the (negative) errno so callers can write
 * `return log_error_errno(r, "...: %m")`-style code with an explicit error. */
#ifndef ISOD_LOG_H
#define ISOD_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* Levels are syslog's: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
void log_setup(int max_level, bool use_syslog);
/* "error", "warning", "info", "debug" -> level, or -1. */
int log_level_from_string(const char *s);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs fmt with ": <strerror(-err)>" appended; returns err (negative). */
int log_errno(int level, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_error_errno(r, ...) log_errno(LOG_ERR, (r), __VA_ARGS__)
#define log_warning_errno(r, ...) log_errno(LOG_WARNING, (r), __VA_ARGS__)
#define log_debug_errno(r, ...) log_errno(LOG_DEBUG, (r), __VA_ARGS__)

#endif
