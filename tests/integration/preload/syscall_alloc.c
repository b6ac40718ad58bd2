/* syscall_alloc.c — a test allocator for the shim's start-up (issue 11,
 * item 8), loaded with LD_PRELOAD next to libisosched-preload.so.
 *
 * Like allocators that key per-thread arenas on the thread id, it caches
 * the caller's tid with syscall(SYS_gettid) the first time a thread
 * allocates, before it hands out any memory. The tid is stored only once
 * syscall() returned, so an allocation made while that call is still
 * inside the shim asks again: exactly the re-entry that deadlocked a shim
 * whose syscall() wrapper waited in pthread_once for a resolver that
 * itself allocates (dlsym's failure path, dlerror's message).
 * Memory comes from glibc's own __libc_malloc family, so free() matches. */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Per thread on purpose: the tid this allocator would key an arena on. */
static __thread long cached_tid;

static void arena_key(void)
{
	if (cached_tid == 0)
		cached_tid = syscall(SYS_gettid);
}

__attribute__((visibility("default"))) void *malloc(size_t n)
{
	arena_key();
	return __libc_malloc(n);
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size)
{
	arena_key();
	return __libc_calloc(n, size);
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t n)
{
	arena_key();
	return __libc_realloc(p, n);
}
