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
 * The map is read whole, in one batch (one bpf() call), when a sample
 * finds the last read older than SNAP_FRESH_NS, not once per thread: a
 * check of many threads costs one call, not one each. A thread that
 * switched off its CPU after the read is counted as running until the
 * next one: at most SNAP_FRESH_NS too much, taken back by the next read
 * (never backwards: acct_thread_cpu). */
#include "accounting_bpf.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accounting_bpf_look.h"
#include "acct.skel.h"
#include "log.h"

/* One program per isod process, loaded at start-up and unloaded at exit;
 * the accounting ops have no context argument (accounting.h), so the
 * loaded skeleton is the file's. Written only by load/unload (main thread,
 * before and after the other threads); read under d->lock or by the
 * server thread. */
struct isod_acct *acct_skel; /* shared with accounting_bpf_look.c */
static struct ring_buffer *rb;
static struct acct_cpu *cpu_buf; /* one per possible CPU: a per-CPU map read */
/* the last batch read of "tracked", by TID; snap_ok false: batch reads
 * failed (a kernel without them), one lookup per sample instead */
#define SNAP_FRESH_NS 1000000
static __u32 *snap_keys;
static struct acct_thread *snap_vals;
static struct acct_entry *snap;
static size_t snap_n, snap_cap;
static uint64_t snap_ns;
static bool snap_ok;
static int ncpus;
static int band_lo, band_hi;

/* Whom the ring buffer's callbacks (fixed when rb is made) hand a stray
 * or lineage report to: set by acct_bpf_take_reports for the length of
 * one call. */
static struct take_ctx {
	void (*fn)(void *ctx, const struct acct_stray *s);
	void (*lineage)(void *ctx, const struct acct_lineage *l);
	void *ctx;
	int n;
} taker;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Read the whole map into snap, sorted by TID. */
static bool snap_read(uint64_t now)
{
	int fd = bpf_map__fd(acct_skel->maps.tracked);
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 in = 0, next = 0, count;
	size_t n = 0;
	int r;

	/* a hash map's batch position is a bucket: ENOENT past the last */
	for (bool first = true;; first = false) {
		count = (__u32)(snap_cap - n);
		r = bpf_map_lookup_batch(fd, first ? NULL : &in, &next, snap_keys + n, snap_vals + n,
					 &count, &opts);
		if (r < 0 && errno != ENOENT)
			return false;
		if (count > snap_cap - n)
			return false; /* cannot happen: the kernel filled no more than asked */
		n += count;
		if (r < 0 || count == 0 || n >= snap_cap)
			break;
		in = next;
	}
	for (size_t i = 0; i < n; i++)
		snap[i] = (struct acct_entry){ snap_keys[i], snap_vals[i] };
	acct_entries_sort(snap, n);
	snap_n = n;
	snap_ns = now;
	return true;
}

/* e's entry, from the batch read (fresh enough) or one lookup; batch:
 * take the batch read whatever the check reads (a caller that walks
 * every thread, as isod_verify does), not only for a check of many */
static bool entry_in(const struct tracked *e, uint64_t now, struct acct_thread *v, bool batch)
{
	const struct acct_entry *s;

	batch = batch || acct_look_many();
	if (snap_ok && batch && now - snap_ns > SNAP_FRESH_NS && !snap_read(now)) {
		log_debug("BPF accounting: no batch reads of its map here; one lookup per sample");
		snap_ok = false;
	}
	if (!snap_ok || !batch || now - snap_ns > SNAP_FRESH_NS)
		return bpf_map_lookup_elem(bpf_map__fd(acct_skel->maps.tracked),
					   &(__u32){ (__u32)e->tid }, v) == 0;
	s = acct_entry_find(snap, snap_n, (uint32_t)e->tid);
	if (s)
		*v = s->v;
	return s != NULL;
}

static bool entry_of(const struct tracked *e, uint64_t now, struct acct_thread *v)
{
	return entry_in(e, now, v, false);
}

static int bpf_sample(struct tracked *e)
{
	struct acct_thread v;
	uint64_t prev = e->cpu_ns, cpu, now = monotonic_ns();
	bool have = entry_of(e, now, &v);
	int r;

	e->has_block = false;
	if (!have || v.since_ns == ACCT_UNSEEN || acct_look_proc_needed(e)) {
		r = accounting_proc.sample(e); /* wait, and: still there? */
		if (r < 0)
			return r;
		if (!have)
			return 0; /* not in the map (it was full, or just added): /proc's figure */
	} else if (v.wait_ns > e->wait_ns) {
		/* the kernel's own counter at its last switch (never
		 * backwards: /proc's read may have been later) */
		e->wait_ns = v.wait_ns;
	}
	r = acct_thread_cpu(&v, now, prev, &cpu);
	acct_look_seen(e, r == 0);
	if (r == 0) {
		e->cpu_ns = cpu;
		/* the guard's block point and count, from this same copy */
		e->has_block = v.block_cpu_ns != ACCT_UNSEEN && v.block_cpu_ns <= cpu;
		e->block_cpu_ns = v.block_cpu_ns;
		e->block_nv = v.nvcsw;
	} else if (r == -EBADMSG)
		log_debug("thread %d: BPF accounting entry makes no sense; /proc's figure used",
			  (int)e->tid);
	return 0;
}

/* the map's CPU once the program saw it switch in, else /proc's */
static int bpf_last_cpu(const char *proc, struct tracked *e, int *cpu)
{
	struct acct_thread v;

	if (entry_of(e, monotonic_ns(), &v) && v.since_ns != ACCT_UNSEEN && v.cpu <= INT32_MAX) {
		*cpu = (int)v.cpu;
		return 0;
	}
	return accounting_proc.last_cpu(proc, e, cpu);
}

static void bpf_track(const struct tracked *e)
{
	uint32_t slot = acct_look_slot(e);
	struct acct_thread v = { .total_ns = 0, .since_ns = ACCT_UNSEEN, .slot = slot,
				 .block_cpu_ns = ACCT_UNSEEN };
	int r = bpf_map_update_elem(bpf_map__fd(acct_skel->maps.tracked), &(__u32){ (__u32)e->tid },
				    &v, BPF_ANY);

	acct_look_track(e, slot, r == 0);
	if (r < 0)
		log_warning_errno(-errno, "thread %d: not in the BPF accounting's map; its CPU time comes from /proc",
				  (int)e->tid);
}

static void bpf_untrack(const struct tracked *e)
{
	int fd = bpf_map__fd(acct_skel->maps.tracked);
	__u32 tid = (__u32)e->tid;
	struct acct_thread v;
	struct tracked now = *e;

	/* what the kernel counted beside what /proc says (tests compare) */
	if (bpf_map_lookup_elem(fd, &tid, &v) == 0 && accounting_proc.sample(&now) == 0) {
		uint64_t cpu = 0;

		if (acct_thread_cpu(&v, monotonic_ns(), 0, &cpu) == 0)
			log_debug("thread %d leaves the BPF accounting: %llu us on CPU counted by BPF, %llu us by /proc",
				  (int)e->tid, (unsigned long long)(cpu / 1000),
				  (unsigned long long)(now.cpu_ns / 1000));
	}
	(void)bpf_map_delete_elem(fd, &tid);
	acct_look_untrack(e);
}

/* The map's count, looked up now (not the batch read: a switch since it
 * would be missed, and the guard demotes only on an unchanged count),
 * once the program has seen the thread; else /proc's status. */
static int bpf_voluntary_switches(const char *proc, const struct tracked *e, uint64_t *nvcsw)
{
	struct acct_thread v;

	if (!acct_look_proc_needed(e) &&
	    bpf_map_lookup_elem(bpf_map__fd(acct_skel->maps.tracked), &(__u32){ (__u32)e->tid },
				&v) == 0 &&
	    v.since_ns != ACCT_UNSEEN) {
		*nvcsw = v.nvcsw;
		return 0;
	}
	return accounting_proc.voluntary_switches(proc, e, nvcsw);
}

/* Off every CPU since the program saw it switch (since_ns 0, and the
 * read is at most SNAP_FRESH_NS old, or a lookup): what it ran as then.
 * The batch read is taken for this, as for a check of many threads. */
static int bpf_seen_policy(const struct tracked *e, int *policy, int *prio)
{
	struct acct_thread v;

	if (!entry_in(e, monotonic_ns(), &v, true))
		return -EAGAIN;
	if (v.since_ns != 0 || v.policy > INT32_MAX || v.rt_prio > 99)
		return -EAGAIN; /* on a CPU, or not seen (ACCT_UNSEEN) */
	*policy = (int)v.policy;
	*prio = (int)v.rt_prio;
	return 0;
}

const struct accounting accounting_bpf = {
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
};

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
	if (r == -EPERM || r == -EACCES)
		return "not permitted (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, and the bpf() system call)";
	if (r == -ENOENT || r == -ESRCH)
		return "the kernel lacks BTF (/sys/kernel/btf/vmlinux) or the sched_switch tracepoint";
	if (r == -EINVAL || r == -E2BIG)
		return "the kernel refused the program (verifier)";
	return "loading failed";
}

int acct_bpf_load(const struct isod_config *cfg, char *why, size_t cap)
{
	int r;

	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		snprintf(why, cap, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		return -ENOENT;
	}
	libbpf_set_print(libbpf_print);
	acct_skel = isod_acct__open();
	if (!acct_skel) {
		r = -errno;
		snprintf(why, cap, "cannot open the program: %s", strerror(-r));
		return r;
	}
	acct_skel->rodata->band_lo = (__u32)cfg->band.lo;
	acct_skel->rodata->band_hi = (__u32)cfg->band.hi;
	bpf_map__set_max_entries(acct_skel->maps.tracked, cfg->max_threads);
	r = isod_acct__load(acct_skel);
	if (r == 0)
		r = isod_acct__attach(acct_skel);
	if (r < 0) {
		snprintf(why, cap, "%s: %s", load_hint(r), strerror(-r));
		goto fail;
	}
	ncpus = libbpf_num_possible_cpus();
	cpu_buf = ncpus > 0 ? calloc((size_t)ncpus, sizeof(*cpu_buf)) : NULL;
	snap_cap = cfg->max_threads;
	snap_keys = calloc(snap_cap, sizeof(*snap_keys));
	snap_vals = calloc(snap_cap, sizeof(*snap_vals));
	snap = calloc(snap_cap, sizeof(*snap));
	snap_ok = snap_keys && snap_vals && snap;
	snap_n = 0;
	snap_ns = 0;
	rb = ring_buffer__new(bpf_map__fd(acct_skel->maps.strays), take_one, &taker, NULL);
	if (!cpu_buf || !rb ||
	    ring_buffer__add(rb, bpf_map__fd(acct_skel->maps.lineage), take_lineage, &taker) < 0 ||
	    acct_look_init(cfg->max_threads, ncpus) < 0) {
		r = -ENOMEM;
		snprintf(why, cap, "cannot set up its ring buffer or per-CPU map");
		goto fail;
	}
	band_lo = cfg->band.lo;
	band_hi = cfg->band.hi;
	acct_bpf_report_strays(cfg->sweep_orphans && !cfg->dry_run);
	acct_bpf_report_forks(cfg->inherit);
	return 0;
fail:
	acct_bpf_unload();
	return r;
}

void acct_bpf_unload(void)
{
	acct_bpf_unbind();
	ring_buffer__free(rb);
	rb = NULL;
	isod_acct__destroy(acct_skel);
	acct_skel = NULL;
	acct_look_free();
	free(cpu_buf);
	cpu_buf = NULL;
	free(snap_keys);
	free(snap_vals);
	free(snap);
	snap_keys = NULL;
	snap_vals = NULL;
	snap = NULL;
	snap_ok = false;
}

int acct_bpf_stray_fd(void)
{
	return rb ? ring_buffer__epoll_fd(rb) : -1;
}

static int take_one(void *ctx, void *data, size_t size)
{
	struct take_ctx *t = ctx;
	struct acct_stray s;

	if (size < sizeof(s))
		return 0;
	memcpy(&s, data, sizeof(s));
	if (!acct_stray_valid(&s, band_lo, band_hi)) {
		log_debug("BPF accounting: a stray report that cannot be right (tid %u, prio %u)",
			  s.tid, s.prio);
		return 0;
	}
	t->fn(t->ctx, &s);
	t->n++;
	return 0;
}

static int take_lineage(void *ctx, void *data, size_t size)
{
	struct take_ctx *t = ctx;
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

int acct_bpf_take_reports(void (*fn)(void *ctx, const struct acct_stray *s),
			  void (*lineage)(void *ctx, const struct acct_lineage *l), void *ctx)
{
	int r;

	if (!rb)
		return 0;
	taker = (struct take_ctx){ fn, lineage, ctx, 0 };
	r = ring_buffer__consume(rb);
	return r < 0 ? r : taker.n;
}

bool acct_bpf_follows_lineage(void)
{
	return acct_skel != NULL;
}

void acct_bpf_report_forks(bool on)
{
	if (acct_skel && acct_skel->bss)
		acct_skel->bss->report_forks = on;
}

bool acct_bpf_lineage_lost(void)
{
	return acct_skel && acct_skel->bss &&
	       __atomic_exchange_n(&acct_skel->bss->lineage_lost, 0, __ATOMIC_SEQ_CST);
}

void acct_bpf_quiet(pid_t tid, unsigned seconds)
{
	__u64 until = monotonic_ns() + (uint64_t)seconds * 1000000000u;

	if (acct_skel)
		(void)bpf_map_update_elem(bpf_map__fd(acct_skel->maps.reported), &(__u32){ (__u32)tid },
					  &until, BPF_ANY);
}

void acct_bpf_report_strays(bool on)
{
	if (acct_skel && acct_skel->bss)
		acct_skel->bss->report_strays = on;
}

int acct_bpf_band_ns(uint64_t *ns)
{
	if (!acct_skel || !cpu_buf)
		return -ENODEV;
	if (bpf_map_lookup_elem(bpf_map__fd(acct_skel->maps.band_time), &(__u32){ 0 }, cpu_buf) < 0)
		return -errno;
	return acct_band_sum(cpu_buf, (size_t)ncpus, ns);
}
