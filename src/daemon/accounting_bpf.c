/* accounting_bpf.c — the BPF accounting: loads bpf/acct.bpf.c (a libbpf
 * skeleton, CO-RE against the running kernel's BTF), keeps the tracked
 * threads in its map, reads their run time from it, and hands the
 * kernel's stray reports to strays.c (accounting_bpf.h).
 *
 * A thread's CPU time comes from the map once the program has seen it
 * switch: the kernel's own sum at its last switch plus its time on the CPU
 * since, so a spinner that never leaves the CPU is seen at every sample;
 * its wait and voluntary switches (the burst guard's) are the kernel's at
 * its last switch, and its exit is the program's report (schedule.c). Only
 * until the program has seen it, and at a check that reads everything
 * (accounting_bpf_look.h), does a sample read /proc as the proc
 * accounting does: no /proc read per thread that ran (issue 13).
 *
 * The threads' entries are read in place: isod maps the program's array
 * "threads" into its memory, so a check costs no system call per thread
 * and none for all of them either (it was a batch read of a hash map and
 * a sort: two thirds of isod's time with 1024 threads at work). A copy
 * is taken field by field in the order the program's writes allow
 * (acct_maps.h): short for a moment, never long. */
#include "accounting_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "accounting_bpf_look.h"
#include "acct.skel.h"
#include "log.h"

/* /proc's figure above the entry's by more than this (schedstat's sum
 * lags the running thread by up to a tick, not more): it ran unseen */
#define MISSED_SLACK_NS 1000000ull
/* a tick at HZ 250, the lowest common one */
#define TICK_LAG_NS 4000000ull

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* e's entry now, if the program keeps it (acct_thread_copy) */
static bool entry_of(const struct acct_bpf *ab, const struct tracked *e, struct acct_thread *v)
{
	uint32_t slot = acct_look_slot(ab, e);

	return ab->threads && slot < ab->n_threads &&
	       acct_thread_copy(&ab->threads[slot], (uint32_t)e->tid, v);
}

static int bpf_sample(const struct accounting *a, struct tracked *e, uint64_t as_of_ns)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	struct acct_thread v;
	uint64_t prev = e->cpu_ns, cpu, now = monotonic_ns();
	bool have = entry_of(ab, e, &v);
	int r;

	/* off its CPU by the entry, but preempted, not blocked: the kernel
	 * may have run it again without a switch event (the header of
	 * accounting_bpf_look.h); /proc's figure says if it did */
	bool unsure = have && v.since_ns == 0 && acct_look_preempted(ab, e);
	uint64_t unseen = 0; /* CPU time the program did not see it use */

	e->has_block = false;
	e->off.n = 0;
	if (!have || v.since_ns == ACCT_UNSEEN || acct_look_proc_needed(ab, e) || unsure) {
		r = accounting_proc.sample(&accounting_proc, e, 0); /* wait, and: still there? */
		if (r < 0)
			return r;
		if (!have)
			return 0; /* not in the map (it was full, or just added): /proc's figure */
	} else if (v.wait_ns > e->wait_ns) {
		/* the kernel's own counter at its last switch (never
		 * backwards: /proc's read may have been later) */
		e->wait_ns = v.wait_ns;
	}
	if (as_of_ns && as_of_ns < now)
		now = as_of_ns;
	r = acct_thread_cpu(&v, now, prev, &cpu);
	acct_look_seen(ab, e, r == 0);
	if (r == 0) {
		if (unsure && e->cpu_ns > cpu + MISSED_SLACK_NS) {
			unseen = e->cpu_ns - cpu;
			log_debug("thread %d ran with no switch-in the BPF program saw: /proc's CPU time taken (%llu us more)",
				  (int)e->tid, (unsigned long long)((e->cpu_ns - cpu) / 1000));
			cpu = e->cpu_ns;
		}
		e->cpu_ns = cpu;
		/* the guard's block point and count, from this same copy */
		e->has_block = v.block_cpu_ns != ACCT_UNSEEN && v.block_cpu_ns <= cpu;
		e->block_cpu_ns = v.block_cpu_ns;
		e->block_nv = v.nvcsw;
		acct_thread_offcpu(&v, now, &e->off);
		/* back on its CPU that long ago at the latest (/proc's sum
		 * lags a running thread by up to a tick: the interval ends
		 * that much earlier still, so it never claims run time) */
		if (unseen)
			acct_offcpu_resumed(&e->off, v.off_ns, now, unseen + TICK_LAG_NS);
	} else if (r == -EBADMSG)
		log_debug("thread %d: BPF accounting entry makes no sense; /proc's figure used",
			  (int)e->tid);
	return 0;
}

/* the map's CPU once the program saw it switch in, else /proc's */
static int bpf_last_cpu(const struct accounting *a, const char *proc, struct tracked *e,
			int *cpu)
{
	struct acct_thread v;

	if (entry_of(acct_bpf_of(a), e, &v) && v.since_ns != ACCT_UNSEEN && v.cpu <= INT32_MAX) {
		*cpu = (int)v.cpu;
		return 0;
	}
	return accounting_proc.last_cpu(&accounting_proc, proc, e, cpu);
}

static void bpf_track(const struct accounting *acct, const struct tracked *e)
{
	struct acct_bpf *ab = acct_bpf_of(acct);
	uint32_t slot = acct_look_slot(ab, e);
	struct acct_thread *a = ab->threads && slot < ab->n_threads ? &ab->threads[slot] : NULL;
	int r = -ENOSPC;

	/* the entry first, then the TID in "tracked": the program writes
	 * the entry from its first switch after that (acct_maps.h) */
	if (a) {
		acct_thread_reset(a, (uint32_t)e->tid, (uint64_t)monotonic_ns());
		acct_look_filter_add(ab, slot, e->tid);
		r = bpf_map_update_elem(bpf_map__fd(ab->skel->maps.tracked),
					&(__u32){ (__u32)e->tid }, &slot, BPF_ANY) < 0
			    ? -errno
			    : 0;
		if (r < 0) {
			__atomic_store_n(&a->tid, 0, __ATOMIC_RELEASE);
			acct_look_filter_remove(ab, slot);
		}
	}
	acct_look_track(ab, e, slot, r == 0);
	if (r < 0)
		log_warning_errno(r, "thread %d: not in the BPF accounting's map; its CPU time comes from /proc",
				  (int)e->tid);
}

static void bpf_untrack(const struct accounting *a, const struct tracked *e)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	uint32_t slot = acct_look_slot(ab, e);
	struct acct_thread v;
	struct tracked now = *e;

	/* what the kernel counted beside what /proc says (tests compare) */
	if (entry_of(ab, e, &v) && accounting_proc.sample(&accounting_proc, &now, 0) == 0) {
		uint64_t cpu = 0;

		if (acct_thread_cpu(&v, monotonic_ns(), 0, &cpu) == 0)
			log_debug("thread %d leaves the BPF accounting: %llu us on CPU counted by BPF, %llu us by /proc",
				  (int)e->tid, (unsigned long long)(cpu / 1000),
				  (unsigned long long)(now.cpu_ns / 1000));
	}
	(void)bpf_map_delete_elem(bpf_map__fd(ab->skel->maps.tracked), &(__u32){ (__u32)e->tid });
	acct_look_filter_remove(ab, slot);
	/* out of "tracked" first: a program that looked it up before
	 * finds the entry another's, or free, and leaves it alone */
	if (ab->threads && slot < ab->n_threads &&
	    __atomic_load_n(&ab->threads[slot].tid, __ATOMIC_ACQUIRE) == (uint32_t)e->tid)
		__atomic_store_n(&ab->threads[slot].tid, 0, __ATOMIC_RELEASE);
	acct_look_untrack(ab, e);
}

/* The map's count now, once the program has seen the thread; else
 * /proc's status. */
static int bpf_voluntary_switches(const struct accounting *a, const char *proc,
				  const struct tracked *e, uint64_t *nvcsw)
{
	const struct acct_bpf *ab = acct_bpf_of(a);
	struct acct_thread v;

	if (!acct_look_proc_needed(ab, e) && entry_of(ab, e, &v) && v.since_ns != ACCT_UNSEEN) {
		*nvcsw = v.nvcsw;
		return 0;
	}
	return accounting_proc.voluntary_switches(&accounting_proc, proc, e, nvcsw);
}

/* Off every CPU since the program saw it switch (since_ns 0): what it
 * ran as then. */
static int bpf_seen_policy(const struct accounting *a, const struct tracked *e, int *policy,
			   int *prio)
{
	struct acct_thread v;

	if (!entry_of(acct_bpf_of(a), e, &v))
		return -EAGAIN;
	if (v.since_ns != 0 || v.policy > INT32_MAX || v.rt_prio > 99)
		return -EAGAIN; /* on a CPU, or not seen (ACCT_UNSEEN) */
	*policy = (int)v.policy;
	*prio = (int)v.rt_prio;
	return 0;
}


/* libbpf's messages: warnings into isod's log at debug level (a failed
 * load is said once by accounting_choose), the chatter dropped */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libbpf: %s", line);
	return 0;
}

static int take_one(void *ctx, void *data, size_t size);
static int take_lineage(void *ctx, void *data, size_t size);

static const char *load_hint(int r)
{
	if (r == -EPERM)
		return "not permitted (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, and the bpf() system call)";
	/* the verifier's "permission denied" (an access it cannot prove
	 * safe), or a load refused by an LSM */
	if (r == -EACCES)
		return "the kernel's verifier refused the program, or a security policy did";
	if (r == -ENOENT || r == -ESRCH)
		return "the kernel lacks BTF (/sys/kernel/btf/vmlinux) or the sched_switch tracepoint";
	if (r == -EINVAL || r == -E2BIG)
		return "the kernel refused the program (verifier)";
	return "loading failed";
}

/* Map "threads" (n entries) into isod's memory. */
static int threads_map(struct acct_bpf *ab, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = n * sizeof(struct acct_thread);
	void *p;

	/* the kernel lays the array out at its element size, the struct's
	 * size rounded up to 8 (which it is: acct_maps.h) */
	_Static_assert(sizeof(struct acct_thread) % 8 == 0, "acct_thread: not 8-byte sized");
	if (page <= 0)
		return -EINVAL;
	len = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(ab->skel->maps.threads), 0);
	if (p == MAP_FAILED)
		return -errno;
	ab->threads = p;
	ab->threads_len = len;
	ab->n_threads = n;
	return 0;
}

static const struct accounting bpf_ops;
static void bpf_close(const struct accounting *a);
static void bpf_report_forks(const struct accounting *a, bool on);
static void bpf_report_strays(const struct accounting *a, bool on);

int acct_bpf_load(const struct isod_config *cfg, const struct accounting **out, char *why,
		  size_t cap)
{
	struct acct_bpf *ab;
	int r;

	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		snprintf(why, cap, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		return -ENOENT;
	}
	ab = calloc(1, sizeof(*ab));
	if (!ab) {
		snprintf(why, cap, "out of memory");
		return -ENOMEM;
	}
	ab->iface = bpf_ops;
	ab->iface.self = ab;
	ab->waker_stop = ab->waker_ep = -1;
	libbpf_set_print(libbpf_print);
	ab->skel = isod_acct__open();
	if (!ab->skel) {
		r = -errno;
		snprintf(why, cap, "cannot open the program: %s", strerror(-r));
		free(ab);
		return r;
	}
	ab->skel->rodata->band_lo = (__u32)cfg->band.lo;
	ab->skel->rodata->band_hi = (__u32)cfg->band.hi;
	bpf_map__set_max_entries(ab->skel->maps.tracked, cfg->max_threads);
	bpf_map__set_max_entries(ab->skel->maps.threads, cfg->max_threads);
	r = isod_acct__load(ab->skel);
	if (r == 0)
		r = isod_acct__attach(ab->skel);
	if (r < 0) {
		snprintf(why, cap, "%s: %s", load_hint(r), strerror(-r));
		goto fail;
	}
	ab->ncpus = libbpf_num_possible_cpus();
	ab->cpu_buf = ab->ncpus > 0 ? calloc((size_t)ab->ncpus, sizeof(*ab->cpu_buf)) : NULL;
	r = threads_map(ab, cfg->max_threads);
	if (r < 0) {
		snprintf(why, cap, "cannot map its thread table: %s", strerror(-r));
		goto fail;
	}
	ab->rb = ring_buffer__new(bpf_map__fd(ab->skel->maps.strays), take_one, &ab->taker, NULL);
	if (!ab->cpu_buf || !ab->rb ||
	    ring_buffer__add(ab->rb, bpf_map__fd(ab->skel->maps.lineage), take_lineage,
			     &ab->taker) < 0 ||
	    acct_look_init(ab, cfg->max_threads, ab->ncpus) < 0) {
		r = -ENOMEM;
		snprintf(why, cap, "cannot set up its ring buffer or per-CPU map");
		goto fail;
	}
	bpf_report_strays(&ab->iface, cfg->sweep_orphans && !cfg->dry_run);
	bpf_report_forks(&ab->iface, cfg->inherit);
	*out = &ab->iface;
	return 0;
fail:
	bpf_close(&ab->iface);
	return r;
}

/* accounting_close: the program unloaded, the state freed */
static void bpf_close(const struct accounting *a)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	acct_bpf_unbind(a);
	ring_buffer__free(ab->rb);
	ab->rb = NULL;
	isod_acct__destroy(ab->skel);
	ab->skel = NULL;
	acct_look_free(ab);
	free(ab->cpu_buf);
	ab->cpu_buf = NULL;
	if (ab->threads)
		munmap(ab->threads, ab->threads_len);
	free(ab);
}

static int bpf_stray_fd(const struct accounting *a)
{
	const struct acct_bpf *ab = acct_bpf_of(a);

	return ab->rb ? ring_buffer__epoll_fd(ab->rb) : -1;
}

static int take_one(void *ctx, void *data, size_t size)
{
	struct acct_take *t = ctx;
	struct acct_stray s;

	if (size < sizeof(s))
		return 0;
	memcpy(&s, data, sizeof(s));
	if (!acct_stray_valid(&s)) {
		log_debug("BPF accounting: a stray report that cannot be right (tid %u, policy %u, prio %u)",
			  s.tid, s.policy, s.prio);
		return 0;
	}
	t->fn(t->ctx, &s);
	t->n++;
	return 0;
}

static int take_lineage(void *ctx, void *data, size_t size)
{
	struct acct_take *t = ctx;
	struct acct_lineage l;

	if (size < sizeof(l))
		return 0;
	memcpy(&l, data, sizeof(l));
	if (!acct_lineage_valid(&l)) {
		log_debug("BPF accounting: a fork or exec report that cannot be right (kind %u, tid %u)",
			  l.kind, l.tid);
		return 0;
	}
	t->lineage(t->ctx, &l);
	t->n++;
	return 0;
}

static int bpf_take_reports(const struct accounting *a,
			    void (*fn)(void *ctx, const struct acct_stray *s),
			    void (*lineage)(void *ctx, const struct acct_lineage *l), void *ctx)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	int r;

	if (!ab->rb)
		return 0;
	ab->taker = (struct acct_take){ fn, lineage, ctx, 0 };
	r = ring_buffer__consume(ab->rb);
	return r < 0 ? r : ab->taker.n;
}

static bool bpf_follows_lineage(const struct accounting *a)
{
	const struct acct_bpf *ab = acct_bpf_of(a);

	return ab->skel != NULL;
}

static void bpf_report_forks(const struct accounting *a, bool on)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	if (ab->skel && ab->skel->bss)
		ab->skel->bss->report_forks = on;
}

static bool bpf_lineage_lost(const struct accounting *a)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	return ab->skel && ab->skel->bss &&
	       __atomic_exchange_n(&ab->skel->bss->lineage_lost, 0, __ATOMIC_SEQ_CST);
}

static uint64_t bpf_strays_lost(const struct accounting *a)
{
	const struct acct_bpf *ab = acct_bpf_of(a);

	return ab->skel && ab->skel->bss
		       ? __atomic_load_n(&ab->skel->bss->strays_lost, __ATOMIC_RELAXED)
		       : 0;
}

static void bpf_quiet_tid(const struct accounting *a, pid_t tid, unsigned seconds)
{
	const struct acct_bpf *ab = acct_bpf_of(a);
	__u64 until = monotonic_ns() + (uint64_t)seconds * 1000000000u;

	if (ab->skel)
		(void)bpf_map_update_elem(bpf_map__fd(ab->skel->maps.reported), &(__u32){ (__u32)tid },
					  &until, BPF_ANY);
}

static void bpf_report_strays(const struct accounting *a, bool on)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	if (ab->skel && ab->skel->bss)
		ab->skel->bss->report_strays = on;
}

static int bpf_band_ns(const struct accounting *a, uint64_t *ns)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	if (!ab->skel || !ab->cpu_buf)
		return -ENODEV;
	if (bpf_map_lookup_elem(bpf_map__fd(ab->skel->maps.band_time), &(__u32){ 0 }, ab->cpu_buf) < 0)
		return -errno;
	return acct_band_sum(ab->cpu_buf, (size_t)ab->ncpus, ns);
}

static const struct accounting bpf_ops = {
	.name = "bpf",
	.sample = bpf_sample,
	.voluntary_switches = bpf_voluntary_switches,
	.last_cpu = bpf_last_cpu,
	.track = bpf_track,
	.untrack = bpf_untrack,
	.look_begin = acct_look_begin,
	.look_needed = acct_look_needed,
	.quiet = acct_look_quiet,
	.seen_policy = bpf_seen_policy,
	.stray_fd = bpf_stray_fd,
	.take_reports = bpf_take_reports,
	.follows_lineage = bpf_follows_lineage,
	.report_forks = bpf_report_forks,
	.lineage_lost = bpf_lineage_lost,
	.strays_lost = bpf_strays_lost,
	.quiet_tid = bpf_quiet_tid,
	.report_strays = bpf_report_strays,
	.bind = acct_bpf_bind,
	.unbind = acct_bpf_unbind,
	.woken_ns = acct_bpf_woken_ns,
	.wake_overdue = acct_bpf_wake_overdue,
	.quiet_since = acct_bpf_quiet_since,
	.band_ns = bpf_band_ns,
	.close = bpf_close,
};
