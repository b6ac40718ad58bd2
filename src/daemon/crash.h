/* crash.h — isod's last gasp. On a fatal signal (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGABRT) run one async-signal-safe function, on an alternate
 * signal stack so that a stack overflow still gets there, then die of the
 * signal as before (the previous handler — the default action or a
 * sanitizer's reporter — gets it). The function runs once: a second
 * thread that faults meanwhile waits for it (bounded) before dying.
 *
 * Return contract: 0 or a negative errno. */
#ifndef ISOD_CRASH_H
#define ISOD_CRASH_H

/* Install the handlers (process-wide) and give the calling thread its
 * alternate stack. gasp (given ctx) may only make async-signal-safe
 * calls. */
int crash_catch(void (*gasp)(void *ctx), void *ctx);
/* Give the calling thread an alternate signal stack: every thread of
 * isod calls this once when it starts (sigaltstack is per thread). */
int crash_thread_stack(void);

#endif
