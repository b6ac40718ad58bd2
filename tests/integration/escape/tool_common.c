/* tool_common.c — the escape suite's client programs' shared helpers. */
#include "tool_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(STDOUT_FILENO, line, (size_t)n);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void idle_until(double end)
{
	while (now_s() < end) {
		double t = now_s() + 0.001;
		struct timespec ts = { 0, 9000000 };

		while (now_s() < t)
			;
		nanosleep(&ts, NULL);
	}
}
