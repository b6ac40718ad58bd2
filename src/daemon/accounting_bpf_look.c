/* accounting_bpf_look.c — a check reads only the tracked threads the BPF
 * program saw switch in since the last one, or on a CPU now, or that it
 * has not seen yet; the others neither ran nor exited, so their CPU time
 * and wait stand (accounting_bpf_look.h). With none running it arms the
 * program, whose next switch-in of a tracked thread reports a wake: the
 * sleeping threads cost isod no look at all until then (issue 13).
 *
 * Memory order: the program sets a thread's bit with a fetching atomic,
 * then reads "armed"; isod sets "armed" (seq_cst), then reads the bits.
 * One of the two sees the other, so a switch-in is never missed by both
 * the look and the wake. */
#include "accounting_bpf_look.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "acct.skel.h"
#include "crash.h"
#include "log.h"

/* Every thread is read at least this often all the same: a bound on what
 * an event the program could not report (and did not flag) can cost. */
#define FULL_READ_NS 60000000000ull

/* The look's part of struct acct_bpf is used under d->lock once
 * acct_look_init has allocated it; the waker's by acct_bpf_bind /
 * acct_bpf_unbind (main thread). */

int acct_look_init(struct acct_bpf *ab, size_t cap, int ncpus)
{
	ab->cap_slots = cap < ACCT_MAX_SLOTS ? cap : ACCT_MAX_SLOTS;
	ab->n_words = (ab->cap_slots + 63) / 64;
	ab->ncpus_seen = ncpus < ACCT_MAX_CPUS ? ncpus : ACCT_MAX_CPUS;
	ab->ran_now = calloc(ab->n_words ? ab->n_words : 1, sizeof(*ab->ran_now));
	ab->must_read = calloc(ab->cap_slots ? ab->cap_slots : 1, 1);
	ab->filter_tid = calloc(ab->cap_slots ? ab->cap_slots : 1, sizeof(*ab->filter_tid));
	ab->n_must = 0;
	ab->pending_all = true; /* the first check reads everything */
	ab->last_full_ns = 0;
	if (!ab->ran_now || !ab->must_read || !ab->filter_tid || !ab->skel->bss)
		return -ENOMEM;
	return 0;
}

void acct_look_free(struct acct_bpf *ab)
{
	free(ab->ran_now);
	free(ab->must_read);
	free(ab->filter_tid);
	ab->ran_now = NULL;
	ab->must_read = NULL;
	ab->filter_tid = NULL;
	ab->cap_slots = ab->n_words = 0;
}

static void *waker_main(void *arg)
{
	struct acct_bpf *ab = arg;
	struct epoll_event ev[2];

	/* the crash handler needs a stack of its own in every thread */
	if (crash_thread_stack() < 0)
		log_warning("BPF accounting: no alternate signal stack for the waker thread");
	for (;;) {
		int n = epoll_wait(ab->waker_ep, ev, 2, -1);

		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == ab->waker_stop)
				return NULL;
		if (n < 0 && errno != EINTR)
			return NULL;
		(void)ring_buffer__consume(ab->ev_rb);
	}
}

static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };

static int waker_start(struct acct_bpf *ab, int prio)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t a;
	sigset_t all, old;
	int r;

	ab->ev_rb = ring_buffer__new(bpf_map__fd(ab->skel->maps.events), acct_look_event, ab, NULL);
	ab->waker_stop = eventfd(0, EFD_CLOEXEC);
	ab->waker_ep = epoll_create1(EPOLL_CLOEXEC);
	if (!ab->ev_rb || ab->waker_stop < 0 || ab->waker_ep < 0)
		return -ENOMEM;
	ev.data.fd = ab->waker_stop;
	if (epoll_ctl(ab->waker_ep, EPOLL_CTL_ADD, ab->waker_stop, &ev) < 0)
		return -errno;
	ev.data.fd = ring_buffer__epoll_fd(ab->ev_rb);
	if (epoll_ctl(ab->waker_ep, EPOLL_CTL_ADD, ev.data.fd, &ev) < 0)
		return -errno;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	/* started before isod blocks its signals for the signalfd: none
	 * for this thread (a SIGTERM's default would end isod), but its own
	 * faults, which the crash handler catches */
	sigfillset(&all);
	for (int sig = 0; sig < (int)(sizeof(fault_signals) / sizeof(fault_signals[0])); sig++)
		sigdelset(&all, fault_signals[sig]);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&ab->waker, &a, waker_main, ab);
	if (r == EPERM) {
		/* no privilege for it (a dry run): at the server's priority */
		pthread_attr_setinheritsched(&a, PTHREAD_INHERIT_SCHED);
		r = pthread_create(&ab->waker, &a, waker_main, ab);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	ab->waker_on = r == 0;
	return -r;
}

/* the waker stopped and its ring buffer gone (also a failed bind's) */
static void waker_stop(struct acct_bpf *ab)
{
	if (ab->waker_on) {
		(void)eventfd_write(ab->waker_stop, 1);
		pthread_join(ab->waker, NULL);
		ab->waker_on = false;
	}
	ring_buffer__free(ab->ev_rb);
	ab->ev_rb = NULL;
	if (ab->waker_stop >= 0)
		close(ab->waker_stop);
	if (ab->waker_ep >= 0)
		close(ab->waker_ep);
	ab->waker_stop = ab->waker_ep = -1;
	ab->table = NULL;
	ab->event_fn = NULL;
}

void acct_bpf_unbind(const struct accounting *a)
{
	waker_stop(acct_bpf_of(a));
}

int acct_bpf_bind(const struct accounting *a, const struct tracked *base,
		  void (*fn)(void *ctx, const struct acct_event *ev), void *ctx, int prio)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	int r;

	if (!ab->skel || ab->waker_on)
		return 0;
	ab->table = base;
	ab->event_fn = fn;
	ab->event_ctx = ctx;
	r = waker_start(ab, prio);
	if (r < 0) {
		/* without it no wake can come: never quiet (acct_look_quiet) */
		log_warning_errno(r, "BPF accounting: cannot start the thread that takes the kernel's wakes; isod looks at idle ISO threads as with proc accounting");
		waker_stop(ab);
		ab->table = base; /* the slots still index the program's entries */
	}
	return r;
}

int acct_look_event(void *ctx, void *data, size_t size)
{
	struct acct_bpf *ab = ctx;
	struct acct_event ev;

	if (size < sizeof(ev))
		return 0;
	memcpy(&ev, data, sizeof(ev));
	if (!acct_event_valid(&ev, ab->cap_slots)) {
		log_debug("BPF accounting: an event that cannot be right (kind %u, tid %u, slot %u)",
			  ev.kind, ev.tid, ev.slot);
		return 0;
	}
	if (ab->event_fn)
		ab->event_fn(ab->event_ctx, &ev); /* the waker thread, d->lock not held */
	return 0;
}

uint32_t acct_look_slot(const struct acct_bpf *ab, const struct tracked *e)
{
	if (!ab->table || e < ab->table || (size_t)(e - ab->table) >= ab->cap_slots)
		return UINT32_MAX; /* no bit: read at every check */
	return (uint32_t)(e - ab->table);
}

static void set_must(struct acct_bpf *ab, uint32_t slot, bool on)
{
	if (slot >= ab->cap_slots || ab->must_read[slot] == on)
		return;
	ab->must_read[slot] = on;
	if (on)
		ab->n_must++;
	else
		ab->n_must--;
}

/* Is tid on a CPU now? */
static bool on_a_cpu(const struct acct_bpf *ab, pid_t tid)
{
	for (int i = 0; i < ab->ncpus_seen; i++)
		if (__atomic_load_n(&ab->skel->bss->cpu_tid[i].tid, __ATOMIC_SEQ_CST) == (uint32_t)tid)
			return true;
	return false;
}

/* Has tid exited already (a zombie, dead, or gone)? Its exit tracepoint,
 * and its last switch, may have come before it was in the map, and a
 * zombie never switches in again; an unreadable stat counts as exited.
 * Not the handle's pread: that works on a zombie, and every process's
 * leader is one until its parent reaps it (hardening-abuse_race). */
static bool exited_already(const struct tracked *e)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)e->pid, (int)e->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x' || p[2] == '\0';
}

void acct_look_filter_remove(struct acct_bpf *ab, uint32_t slot)
{
	uint32_t tid;

	if (slot >= ab->cap_slots || !ab->filter_tid[slot])
		return;
	tid = ab->filter_tid[slot];
	ab->filter_tid[slot] = 0;
	__atomic_fetch_sub(&ab->skel->bss->tid_filter[tid % ACCT_TID_FILTER], 1, __ATOMIC_SEQ_CST);
}

void acct_look_filter_add(struct acct_bpf *ab, uint32_t slot, pid_t tid)
{
	if (slot >= ab->cap_slots || tid <= 0)
		return;
	/* a slot counts one TID: a slot taken again without a release
	 * first gives up its old count */
	acct_look_filter_remove(ab, slot);
	ab->filter_tid[slot] = (uint32_t)tid;
	/* sequentially consistent, before the TID goes into "tracked" and
	 * before acct_look_track reads cpu_tid: the program's exchange of
	 * cpu_tid, then its read of the count, is the other half */
	__atomic_fetch_add(&ab->skel->bss->tid_filter[(uint32_t)tid % ACCT_TID_FILTER], 1,
			   __ATOMIC_SEQ_CST);
}

void acct_look_track(struct acct_bpf *ab, const struct tracked *e, uint32_t slot, bool in_map)
{
	/* in the map first (done), then the look: a switch-in after it
	 * finds the thread tracked and sets its bit; one before it left its
	 * TID on that CPU (the program writes it, with a barrier, before
	 * its lookup); an exit after it is reported. Not in the map, or
	 * exited before it: read at every check (until found gone). */
	set_must(ab, slot, !in_map || on_a_cpu(ab, e->tid) || exited_already(e));
}

void acct_look_untrack(struct acct_bpf *ab, const struct tracked *e)
{
	uint32_t slot = acct_look_slot(ab, e);

	set_must(ab, slot, false);
	if (slot >= ab->cap_slots)
		return;
	/* out of the map (done): a mark it left where it was preempted
	 * would keep isod from ever being quiet */
	for (int c = 0; c < ab->ncpus_seen; c++) {
		uint32_t m = slot + 1;

		(void)__atomic_compare_exchange_n(&ab->skel->bss->on_cpu[c], &m, 0, false,
						  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

void acct_look_seen(struct acct_bpf *ab, const struct tracked *e, bool seen)
{
	uint32_t slot = acct_look_slot(ab, e);

	if (slot < ab->cap_slots && seen)
		set_must(ab, slot, false);
}

bool acct_look_proc_needed(const struct acct_bpf *ab, const struct tracked *e)
{
	uint32_t slot = acct_look_slot(ab, e);

	return ab->read_all || slot >= ab->cap_slots || ab->must_read[slot];
}

bool acct_look_preempted(const struct acct_bpf *ab, const struct tracked *e)
{
	uint32_t m = acct_look_slot(ab, e) + 1;

	for (int c = 0; c < ab->ncpus_seen && m - 1 < ab->cap_slots; c++)
		if (__atomic_load_n(&ab->skel->bss->on_cpu[c], __ATOMIC_RELAXED) == m)
			return true;
	return false;
}

static bool bit(const uint64_t *w, size_t slot)
{
	return (w[slot / 64] >> (slot % 64)) & 1;
}

void acct_look_begin(const struct accounting *a, uint64_t now_ns)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	struct isod_acct__bss *bss = ab->skel->bss;
	size_t n = ab->n_must;

	/* a thread's gap that ends from here on is the next step's */
	__atomic_store_n(&bss->gap_epoch, now_ns, __ATOMIC_RELAXED);
	ab->read_all = ab->pending_all || __atomic_exchange_n(&bss->lost, 0, __ATOMIC_SEQ_CST) ||
		   now_ns - ab->last_full_ns >= FULL_READ_NS;
	ab->pending_all = false;
	if (ab->read_all)
		ab->last_full_ns = now_ns;
	for (size_t w = 0; w < ab->n_words; w++) {
		ab->ran_now[w] = __atomic_exchange_n(&bss->ran_bits[w], 0, __ATOMIC_SEQ_CST);
		n += (size_t)__builtin_popcountll(ab->ran_now[w]);
	}
	for (int c = 0; c < ab->ncpus_seen; c++) {
		uint32_t m = __atomic_load_n(&bss->on_cpu[c], __ATOMIC_RELAXED);

		/* validated: the program writes slot + 1 of a tracked thread */
		if (m && m - 1 < ab->cap_slots && !bit(ab->ran_now, m - 1)) {
			ab->ran_now[(m - 1) / 64] |= 1ull << ((m - 1) % 64);
			n++;
		}
	}
	ab->ran_last = n > ab->n_must;
}

bool acct_look_needed(const struct accounting *a, const struct tracked *e, size_t slot)
{
	const struct acct_bpf *ab = acct_bpf_of(a);

	(void)e;
	if (ab->read_all || slot >= ab->cap_slots || ab->must_read[slot] ||
	    bit(ab->ran_now, slot))
		return true;
	return false;
}

/* Has a tracked thread run since the last look (a ran bit set), or is
 * one on a CPU (an on_cpu mark)? What the kernel shows the program saw. */
static bool any_ran(const struct acct_bpf *ab)
{
	const struct isod_acct__bss *bss = ab->skel->bss;

	for (size_t w = 0; w < ab->n_words; w++)
		if (__atomic_load_n(&bss->ran_bits[w], __ATOMIC_SEQ_CST))
			return true;
	for (int c = 0; c < ab->ncpus_seen; c++)
		if (__atomic_load_n(&bss->on_cpu[c], __ATOMIC_SEQ_CST))
			return true;
	return false;
}

bool acct_look_quiet(const struct accounting *a)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	struct isod_acct__bss *bss = ab->skel->bss;
	/* A thread that ran since the last check is quiet only between two
	 * of its runs: armed, its next switch-in would wake isod's waker and
	 * enforcer above the band — on an audio thread's CPU, just as it
	 * wakes (ISO's p99 wakeup latency showed it: 1.23-1.41x SCHED_FIFO's).
	 * The plan's horizons hold without the wake (the guard's from the
	 * CPU time each thread has left); only an interval in which nothing
	 * ran arms. */
	bool busy = ab->n_must > 0 || ab->pending_all || !ab->waker_on || ab->ran_last;

	struct timespec ts;

	/* armed by the last plan and not woken since: the quiet interval
	 * goes on from then (acct_bpf_quiet_since); a switch-in between
	 * this read and the store below sets its bit first, so the look
	 * below finds it busy */
	if (!__atomic_load_n(&ab->quiet_armed, __ATOMIC_SEQ_CST) ||
	    !__atomic_load_n(&bss->armed, __ATOMIC_SEQ_CST)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		__atomic_store_n(&ab->armed_at, (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec,
				 __ATOMIC_SEQ_CST);
	}
	/* arm first, then look (the header's memory order) */
	__atomic_store_n(&bss->armed, 1, __ATOMIC_SEQ_CST);
	busy = busy || __atomic_load_n(&bss->lost, __ATOMIC_SEQ_CST) || any_ran(ab);
	if (busy)
		__atomic_store_n(&bss->armed, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ab->quiet_armed, !busy, __ATOMIC_SEQ_CST);
	return !busy;
}

int64_t acct_bpf_woken_ns(const struct accounting *a)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	uint64_t t;

	if (!ab->skel || !__atomic_load_n(&ab->quiet_armed, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&ab->skel->bss->armed, __ATOMIC_SEQ_CST))
		return INT64_MAX;
	t = __atomic_load_n(&ab->skel->bss->woke_ns, __ATOMIC_SEQ_CST);
	/* the program writes the time just after it disarms: until then
	 * the time read is an older wake's */
	if (t > INT64_MAX || (int64_t)t < __atomic_load_n(&ab->armed_at, __ATOMIC_SEQ_CST))
		return INT64_MAX;
	return (int64_t)t;
}

/* Armed, and yet a tracked thread has run or is on a CPU: a run the
 * program set a bit for without waking isod. It wakes at every bit it
 * sets while armed (acct.bpf.c: ran_wake), so this lasts a moment (the
 * program between its bit and its wake); longer, a wake went missing
 * and only the server's look (acct_bpf_wake_overdue) plans again. */
static bool ran_unwoken(const struct acct_bpf *ab)
{
	return __atomic_load_n(&ab->quiet_armed, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&ab->skel->bss->armed, __ATOMIC_SEQ_CST) && any_ran(ab);
}

int64_t acct_bpf_quiet_since(const struct accounting *a)
{
	struct acct_bpf *ab = acct_bpf_of(a);

	if (!ab->skel || !ab->skel->bss || !__atomic_load_n(&ab->quiet_armed, __ATOMIC_SEQ_CST) ||
	    !__atomic_load_n(&ab->skel->bss->armed, __ATOMIC_SEQ_CST) || ran_unwoken(ab))
		return INT64_MAX;
	return __atomic_load_n(&ab->armed_at, __ATOMIC_SEQ_CST);
}

bool acct_bpf_wake_overdue(const struct accounting *a, int64_t now_ns)
{
	struct acct_bpf *ab = acct_bpf_of(a);
	int64_t woke = acct_bpf_woken_ns(a);

	if (!ab->skel || !ab->skel->bss)
		return false;
	if (ran_unwoken(ab)) {
		log_debug("BPF accounting: a tracked thread ran while isod slept armed, and the kernel did not wake it: planning now");
		return true;
	}
	return (woke != INT64_MAX && now_ns - woke > 100000000) ||
	       __atomic_load_n(&ab->skel->bss->lost, __ATOMIC_SEQ_CST);
}
