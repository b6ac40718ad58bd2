/* iso_reserve.h — admission of declared reservations (issue 32): a thread
 * asks for `runtime` of CPU every `period`, finished by `deadline`, and
 * isod runs it as kernel SCHED_DEADLINE. The kernel admits DEADLINE tasks
 * against its own limit (sched_rt_runtime_us / sched_rt_period_us, 95 % of
 * each CPU, less the fair server's 5 % from 6.12 on); isosched admits
 * first, against a smaller share it chooses:
 *
 *   sum over admitted reservations of runtime/period
 *       <= reserve_cpu % of all CPUs                     (the machine's cap)
 *   sum over one user's reservations of runtime/period
 *       <= reserve_user % of that                        (the user's cap)
 *
 * so one user cannot take the whole reserved share, and the kernel's own
 * admission is left room (other root DEADLINE tasks, the fair server).
 * Bandwidths are kept as the kernel keeps them: runtime/period in fixed
 * point, 2^20 to one CPU (BW_SHIFT), rounded as to_ratio() rounds.
 *
 * Pure: no clock, no system call; the table is storage the caller
 * provides (one entry per thread that may hold a reservation is enough).
 * A reservation is keyed by TID: admitting a TID again replaces its
 * reservation (the old one does not count against the new one).
 *
 * Return contract: 0 or -EINVAL (bad parameters) / -EBUSY (over a cap) /
 * -ENOSPC (table full). */
#ifndef ISO_RESERVE_H
#define ISO_RESERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISO_RESERVE_BW_SHIFT 20
#define ISO_RESERVE_BW_ONE (1ull << ISO_RESERVE_BW_SHIFT) /* one whole CPU */

/* The kernel's limits on the parameters (sched_dl_overflow and
 * __checkparam_dl): a runtime of at least 2^10 ns, and the sysctls'
 * defaults for the period, 100 us .. 4 s (kernel.sched_deadline_period_*). */
#define ISO_RESERVE_RUNTIME_MIN_NS 1024ull
#define ISO_RESERVE_PERIOD_MIN_NS 100000ull
#define ISO_RESERVE_PERIOD_MAX_NS 4000000000ull

#define ISO_RESERVE_CPU_DEFAULT 30  /* percent of all CPUs */
#define ISO_RESERVE_CPU_MAX 90      /* below the kernel's 95 % less its fair server */
#define ISO_RESERVE_USER_DEFAULT 50 /* percent of reserve_cpu one user may hold */
/* One reservation's most, percent of one CPU: a DEADLINE thread with
 * runtime = period would hold its CPU for good (the burst guard does not
 * apply to it, the budget is of all CPUs); its CPU's other tasks keep at
 * least the rest. */
#define ISO_RESERVE_ONE_MAX 90

struct iso_reserve_params {
	uint64_t runtime_ns;
	uint64_t deadline_ns; /* 0: the period */
	uint64_t period_ns;
};

struct iso_reserve_entry {
	bool used;
	int32_t tid;
	uint32_t uid;  /* who pays (the charged uid) */
	uint64_t bw;   /* runtime/period, ISO_RESERVE_BW_ONE to one CPU */
};

struct iso_reserve {
	unsigned reserve_cpu;  /* percent of all CPUs; 0: no reservations */
	unsigned reserve_user; /* percent of reserve_cpu one user may hold */
	unsigned ncpus;
	struct iso_reserve_entry *e;
	size_t cap;
	size_t n;              /* entries in use */
	uint64_t total_bw;     /* their sum */
};

/* -EINVAL for reserve_cpu above ISO_RESERVE_CPU_MAX, reserve_user outside
 * 1..100, no CPU, or storage missing. */
int iso_reserve_init(struct iso_reserve *r, struct iso_reserve_entry *e, size_t cap,
		     unsigned reserve_cpu, unsigned reserve_user, unsigned ncpus);
/* New caps for the next admission. Admitted reservations are kept even if
 * they now exceed them (no thread loses its reservation to a retune); new
 * ones are refused until the sum is back under. -EINVAL as init. */
int iso_reserve_retune(struct iso_reserve *r, unsigned reserve_cpu, unsigned reserve_user);

/* Check the parameters as the kernel will (runtime >= 1024 ns,
 * runtime <= deadline <= period, the period's range) and fill a zero
 * deadline with the period. -EINVAL otherwise. */
int iso_reserve_check(struct iso_reserve_params *p);
/* runtime/period as the kernel's to_ratio(): (runtime << 20) / period. */
uint64_t iso_reserve_bw(const struct iso_reserve_params *p);

/* The caps in bandwidth units. */
uint64_t iso_reserve_cap_total(const struct iso_reserve *r);
uint64_t iso_reserve_cap_user(const struct iso_reserve *r);
/* Bandwidth uid holds, not counting tid's own reservation (tid 0: all). */
uint64_t iso_reserve_user_bw(const struct iso_reserve *r, uint32_t uid, int32_t tid);
/* What uid could still be admitted for tid (its present reservation, if
 * any, given back first): the lower of the machine's and the user's room. */
uint64_t iso_reserve_left(const struct iso_reserve *r, uint32_t uid, int32_t tid);
/* The longest runtime bandwidth bw allows in period_ns (rounded down). */
uint64_t iso_reserve_runtime_for(uint64_t bw, uint64_t period_ns);
/* bw in thousandths of a percent of one CPU (100000: a whole CPU). */
uint64_t iso_reserve_bw_milli_pct(uint64_t bw);

/* Admit p (checked with iso_reserve_check first) for tid of user uid.
 * -EINVAL above ISO_RESERVE_ONE_MAX of one CPU; -EBUSY over either cap, with *left (may be NULL) set to
 * iso_reserve_left; tid's previous reservation is then kept. */
int iso_reserve_admit(struct iso_reserve *r, int32_t tid, uint32_t uid,
		      struct iso_reserve_params *p, uint64_t *left);
/* Give tid's reservation back; true if it had one. */
bool iso_reserve_release(struct iso_reserve *r, int32_t tid);
/* tid's entry, or NULL. */
const struct iso_reserve_entry *iso_reserve_find(const struct iso_reserve *r, int32_t tid);

#endif
