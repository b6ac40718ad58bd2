/* real.c — the definitions the shim wraps, found with dlsym(RTLD_NEXT).
 *
 * Start-up must never wait on itself. dlsym can allocate (its failure
 * path, dlerror's message), and the allocator — another preload, say —
 * may call syscall() (ours) while it initialises. So nothing here waits
 * for an initialisation to finish: each slot is an atomic pointer that any
 * thread may fill (all fill it with the same value), and a thread already
 * inside dlsym that comes back in is given the raw system calls instead of
 * waiting (issue 11, item 8). The constructor fills every slot early; a
 * call that comes before it resolves on demand. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Written by the one thread that claims it, only read once resolved is
 * set. A thread that finds the claim taken and resolved not yet set
 * resolves into its own copy rather than wait (the claimant may need a
 * lock the waiter holds: the loader's, in a dlopen constructor). */
static struct shim_real real;
static atomic_bool claimed, resolved;
/* Per thread, initial-exec so reading them never calls into the loader
 * (which could allocate): whether this thread is inside dlsym (a call
 * that comes back in then takes the raw table), and its own copy. */
#define SHIM_TLS __attribute__((tls_model("initial-exec")))
static __thread bool resolving SHIM_TLS;
static __thread struct shim_real own SHIM_TLS;

/* The system call instruction itself, for when syscall() cannot be
 * resolved yet without re-entering dlsym. Returns the kernel's result
 * (negative errno on failure). */
static long raw_syscall6(long nr, long a, long b, long c, long d, long e,
			 long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#elif defined(__riscv) && __riscv_xlen == 64
	register long a7 __asm__("a7") = nr;
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a3 __asm__("a3") = d;
	register long a4 __asm__("a4") = e;
	register long a5 __asm__("a5") = f;

	__asm__ volatile("ecall"
			 : "+r"(a0)
			 : "r"(a7), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5)
			 : "memory");
	return a0;
#else
	/* No port: the call fails instead of deadlocking. Only reached by a
	 * syscall() made from inside the shim's own dlsym. */
	(void)nr, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	return -ENOSYS;
#endif
}

/* syscall(2)'s contract on top of the instruction: -1 and errno. */
static long raw_syscall(long nr, ...)
{
	long a[6], r;
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	r = raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* Used when the next object has no such symbol (sched_setattr before glibc
 * 2.41) and by the raw table; never through the resolved syscall(), which
 * might be another interposer's. */
static int raw_setattr(pid_t pid, struct sched_attr *a, unsigned flags)
{
	return (int)raw_syscall(SYS_sched_setattr, (long)pid, a, (long)flags);
}

static int raw_getattr(pid_t pid, struct sched_attr *a, unsigned size,
		       unsigned flags)
{
	return (int)raw_syscall(SYS_sched_getattr, (long)pid, a, (long)size,
				(long)flags);
}

static int raw_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	return (int)raw_syscall(SYS_sched_setscheduler, (long)pid,
				(long)policy, p);
}

static int raw_setparam(pid_t pid, const struct sched_param *p)
{
	return (int)raw_syscall(SYS_sched_setparam, (long)pid, p);
}

static int raw_getscheduler(pid_t pid)
{
	return (int)raw_syscall(SYS_sched_getscheduler, (long)pid);
}

static int raw_getparam(pid_t pid, struct sched_param *p)
{
	return (int)raw_syscall(SYS_sched_getparam, (long)pid, p);
}

static int raw_prio_max(int policy)
{
	return (int)raw_syscall(SYS_sched_get_priority_max, (long)policy);
}

static int raw_prio_min(int policy)
{
	return (int)raw_syscall(SYS_sched_get_priority_min, (long)policy);
}

/* The pthread calls on a thread's tid; they return an errno value. */
static int raw_pthread_setschedparam(pthread_t th, int policy,
				     const struct sched_param *p)
{
	return raw_setscheduler(shim_pthread_tid(th), policy, p) == 0 ? 0 : errno;
}

static int raw_pthread_setschedprio(pthread_t th, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return raw_setparam(shim_pthread_tid(th), &sp) == 0 ? 0 : errno;
}

static int raw_pthread_getschedparam(pthread_t th, int *policy,
				     struct sched_param *p)
{
	pid_t tid = shim_pthread_tid(th);
	int pol = raw_getscheduler(tid);

	if (pol < 0 || raw_getparam(tid, p) != 0)
		return errno;
	*policy = pol;
	return 0;
}

/* Creating a thread cannot be done by system call alone: a thread made
 * from inside dlsym is refused (POSIX's "try again"). */
static int raw_pthread_create(pthread_t *th, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg)
{
	(void)th, (void)attr, (void)fn, (void)arg;
	return EAGAIN;
}

static const struct shim_real raw_table = {
	.sched_setscheduler = raw_setscheduler,
	.sched_setparam = raw_setparam,
	.sched_getscheduler = raw_getscheduler,
	.sched_getparam = raw_getparam,
	.sched_get_priority_max = raw_prio_max,
	.sched_get_priority_min = raw_prio_min,
	.syscall = raw_syscall,
	.pthread_create = raw_pthread_create,
	.pthread_setschedparam = raw_pthread_setschedparam,
	.pthread_setschedprio = raw_pthread_setschedprio,
	.pthread_getschedparam = raw_pthread_getschedparam,
	.sched_setattr = raw_setattr,
	.sched_getattr = raw_getattr,
};

/* dlsym returns void *; converting it to a function pointer is what POSIX
 * requires to work. */
#define LOOKUP(field, name)                                                  \
	do {                                                                 \
		void *sym_ = dlsym(RTLD_NEXT, name);                         \
		if (sym_)                                                    \
			*(void **)(&into->field) = sym_;                     \
		else                                                         \
			into->field = raw_table.field;                       \
	} while (0)

static void resolve(struct shim_real *into)
{
	int saved = errno;

	resolving = true;
	LOOKUP(syscall, "syscall");
	LOOKUP(sched_setscheduler, "sched_setscheduler");
	LOOKUP(sched_setparam, "sched_setparam");
	LOOKUP(sched_getscheduler, "sched_getscheduler");
	LOOKUP(sched_getparam, "sched_getparam");
	LOOKUP(sched_get_priority_max, "sched_get_priority_max");
	LOOKUP(sched_get_priority_min, "sched_get_priority_min");
	LOOKUP(sched_setattr, "sched_setattr");
	LOOKUP(sched_getattr, "sched_getattr");
	LOOKUP(pthread_create, "pthread_create");
	LOOKUP(pthread_setschedparam, "pthread_setschedparam");
	LOOKUP(pthread_setschedprio, "pthread_setschedprio");
	LOOKUP(pthread_getschedparam, "pthread_getschedparam");
	(void)dlerror(); /* drop a message a failed look-up may have left */
	resolving = false;
	errno = saved;
}

const struct shim_real *shim_real(void)
{
	bool expected = false;

	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return &real;
	if (resolving) /* called back from inside our own dlsym */
		return &raw_table;
	if (!atomic_compare_exchange_strong(&claimed, &expected, true)) {
		resolve(&own); /* another thread is filling real: no waiting */
		return &own;
	}
	resolve(&real);
	atomic_store_explicit(&resolved, true, memory_order_release);
	return &real;
}

__attribute__((constructor)) static void shim_init(void)
{
	(void)shim_real();
}

/* Here, not in iso.c: the real setters below need it, and it is a fact of
 * libc, not of isod. */
pid_t shim_pthread_tid(pthread_t th)
{
	clockid_t c;

	if (pthread_equal(th, pthread_self()))
		return gettid();
	/* glibc and musl give a thread's CPU clock as the kernel's
	 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) = (~tid << 3) | 6. */
	if (pthread_getcpuclockid(th, &c) != 0 || (c & 7) != 6)
		return 0;
	return (pid_t)~(c >> 3);
}
