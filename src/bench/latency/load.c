/* load.c — the load generator: one SCHED_OTHER CPU hog per online CPU and,
 * for cpu+vm, one process that keeps faulting in, dirtying and dropping
 * memory (page faults, zeroing, TLB shootdowns). Every hog is bounded:
 * it dies after max_s seconds by alarm(), when the benchmark dies
 * (PR_SET_PDEATHSIG) and at load_stop()/load_kill_all(). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "latency.h"

#define MAX_HOGS 1025
#define VM_BYTES ((size_t)128 << 20)

/* The hogs: killed by the signal handler's cleanup (load_kill_all), hence
 * file scope. */
static pid_t hogs[MAX_HOGS];
static volatile int nhogs;

const char *load_name(enum load_kind k)
{
	switch (k) {
	case LOAD_NONE: return "none";
	case LOAD_CPU: return "cpu";
	case LOAD_CPU_VM: return "cpu+vm";
	}
	return "?";
}

static void vm_hog(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t sz = VM_BYTES;
	long phys = sysconf(_SC_PHYS_PAGES);
	unsigned char *m;

	if (pg <= 0)
		pg = 4096;
	/* never more than 1/16 of the machine's memory */
	if (phys > 0 && sz > (size_t)phys * (size_t)pg / 16)
		sz = (size_t)phys * (size_t)pg / 16;
	m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED)
		hog_spin_cpu();
	for (unsigned round = 0;; round++) {
		for (size_t off = 0; off < sz; off += (size_t)pg)
			m[off] = (unsigned char)round;
		madvise(m, sz, MADV_DONTNEED);
	}
}

static int track(pid_t p)
{
	if (p < 0)
		return (int)p;
	hogs[nhogs] = p;
	nhogs = nhogs + 1;
	return 0;
}

int load_start(enum load_kind k, unsigned max_s)
{
	long ncpu;
	int r = 0;

	if (k == LOAD_NONE)
		return 0;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > MAX_HOGS - 1)
		ncpu = MAX_HOGS - 1;
	for (long i = 0; i < ncpu && r == 0; i++)
		r = track(child_spawn_hog(max_s, hog_spin_cpu));
	if (r == 0 && k == LOAD_CPU_VM)
		r = track(child_spawn_hog(max_s, vm_hog));
	if (r == 0)
		return nhogs;
	fprintf(stderr, "isobench: cannot start the load: %s\n", strerror(-r));
	load_stop();
	return r;
}

void load_kill_all(void)
{
	for (int i = 0; i < nhogs; i++)
		if (hogs[i] > 0)
			kill(hogs[i], SIGKILL);
}

void load_stop(void)
{
	load_kill_all();
	for (int i = 0; i < nhogs; i++) {
		if (hogs[i] > 0)
			while (waitpid(hogs[i], NULL, 0) < 0 && errno == EINTR)
				;
		hogs[i] = 0;
	}
	nhogs = 0;
}
