/* tool_common.c — the escape suite's client programs' shared helpers. */
#include "tool_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int test_still_runs(void)
{
	const char *pid = getenv("ESC_WHILE_PID");
	char path[64];

	if (!pid || !*pid || strspn(pid, "0123456789") != strlen(pid))
		return 1;
	snprintf(path, sizeof(path), "/proc/%s", pid);
	return access(path, F_OK) == 0;
}

void spin_until(double end)
{
	unsigned n = 0;

	/* the test's check costs a syscall: once in about 4096 clock reads */
	while (now_s() < end && ((++n & 4095) || test_still_runs()))
		;
}

void idle_until(double end)
{
	while (now_s() < end && test_still_runs()) {
		double t = now_s() + 0.001;
		struct timespec ts = { 0, 9000000 };

		while (now_s() < t)
			;
		nanosleep(&ts, NULL);
	}
}
