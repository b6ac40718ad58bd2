/* real.c — the definitions the shim wraps, found with dlsym(RTLD_NEXT).
 * Resolved once: by the constructor (look-ups only, no I/O, no other side
 * effect) or, if a call arrives before it ran, on demand. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct shim_real real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* Used when the next object has no such symbol (never the case with
 * glibc/musl for the classic calls; sched_setattr before glibc 2.41). */
static int raw_setattr(pid_t pid, struct sched_attr *a, unsigned flags)
{
	return (int)real.syscall(SYS_sched_setattr, (long)pid, a, (long)flags);
}

static int raw_getattr(pid_t pid, struct sched_attr *a, unsigned size,
		       unsigned flags)
{
	return (int)real.syscall(SYS_sched_getattr, (long)pid, a, (long)size,
				 (long)flags);
}

static int raw_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	return (int)real.syscall(SYS_sched_setscheduler, (long)pid,
				 (long)policy, p);
}

static int raw_setparam(pid_t pid, const struct sched_param *p)
{
	return (int)real.syscall(SYS_sched_setparam, (long)pid, p);
}

static int raw_getscheduler(pid_t pid)
{
	return (int)real.syscall(SYS_sched_getscheduler, (long)pid);
}

static int raw_getparam(pid_t pid, struct sched_param *p)
{
	return (int)real.syscall(SYS_sched_getparam, (long)pid, p);
}

static int raw_prio_max(int policy)
{
	return (int)real.syscall(SYS_sched_get_priority_max, (long)policy);
}

static int raw_prio_min(int policy)
{
	return (int)real.syscall(SYS_sched_get_priority_min, (long)policy);
}

/* dlsym returns void *; converting it to a function pointer is what POSIX
 * requires to work. */
#define LOOKUP(field, name, fallback)                                        \
	do {                                                                 \
		void *sym_ = dlsym(RTLD_NEXT, name);                         \
		if (sym_)                                                    \
			*(void **)(&real.field) = sym_;                      \
		else                                                         \
			real.field = fallback;                               \
	} while (0)

static void resolve(void)
{
	int saved = errno;

	*(void **)(&real.syscall) = dlsym(RTLD_NEXT, "syscall");
	LOOKUP(sched_setscheduler, "sched_setscheduler", raw_setscheduler);
	LOOKUP(sched_setparam, "sched_setparam", raw_setparam);
	LOOKUP(sched_getscheduler, "sched_getscheduler", raw_getscheduler);
	LOOKUP(sched_getparam, "sched_getparam", raw_getparam);
	LOOKUP(sched_get_priority_max, "sched_get_priority_max", raw_prio_max);
	LOOKUP(sched_get_priority_min, "sched_get_priority_min", raw_prio_min);
	LOOKUP(sched_setattr, "sched_setattr", raw_setattr);
	LOOKUP(sched_getattr, "sched_getattr", raw_getattr);
	LOOKUP(pthread_create, "pthread_create", NULL);
	LOOKUP(pthread_setschedparam, "pthread_setschedparam", NULL);
	LOOKUP(pthread_setschedprio, "pthread_setschedprio", NULL);
	LOOKUP(pthread_getschedparam, "pthread_getschedparam", NULL);
	(void)dlerror(); /* drop a message a failed look-up may have left */
	errno = saved;
}

const struct shim_real *shim_real(void)
{
	(void)pthread_once(&real_once, resolve);
	return &real;
}

__attribute__((constructor)) static void shim_init(void)
{
	(void)shim_real();
}
