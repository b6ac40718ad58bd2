/* test_reserve.c — admission of declared reservations (iso_reserve.h):
 * the machine's cap (reserve_cpu of all CPUs), the per-user cap, the
 * remaining figure a refusal gives, replacement and release. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iso_reserve.h"

#define US 1000ull
#define MS 1000000ull
#define CAP 16

static struct iso_reserve_params P(uint64_t runtime, uint64_t period)
{
	return (struct iso_reserve_params){ .runtime_ns = runtime, .period_ns = period };
}

static void test_check(void **state)
{
	(void)state;
	struct iso_reserve_params p = P(1 * MS, 5333 * US);

	assert_int_equal(iso_reserve_check(&p), 0);
	assert_int_equal(p.deadline_ns, 5333 * US); /* 0: the period */
	p = P(1000, 1 * MS); /* under the kernel's 1024 ns */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = P(1 * MS, 50 * US); /* period under 100 us */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = P(1 * MS, 5000 * MS); /* period over 4 s */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = P(2 * MS, 1 * MS); /* runtime > period */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = (struct iso_reserve_params){ 2 * MS, 1 * MS, 5 * MS }; /* runtime > deadline */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = (struct iso_reserve_params){ 1 * MS, 6 * MS, 5 * MS }; /* deadline > period */
	assert_int_equal(iso_reserve_check(&p), -EINVAL);
	p = (struct iso_reserve_params){ 1 * MS, 2 * MS, 5 * MS };
	assert_int_equal(iso_reserve_check(&p), 0);
	p = P(5 * MS, 5 * MS); /* a whole CPU is a valid request */
	assert_int_equal(iso_reserve_check(&p), 0);
	assert_int_equal(iso_reserve_bw(&p), ISO_RESERVE_BW_ONE);
}

static void test_init_ranges(void **state)
{
	(void)state;
	struct iso_reserve r;
	struct iso_reserve_entry e[CAP];

	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 50, 2), 0);
	assert_int_equal(iso_reserve_init(&r, e, CAP, ISO_RESERVE_CPU_MAX + 1, 50, 2), -EINVAL);
	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 0, 2), -EINVAL);
	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 101, 2), -EINVAL);
	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 50, 0), -EINVAL);
	assert_int_equal(iso_reserve_init(&r, NULL, CAP, 30, 50, 2), -EINVAL);
	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 50, 2), 0);
	assert_int_equal(iso_reserve_retune(&r, 91, 50), -EINVAL);
	assert_int_equal(r.reserve_cpu, 30); /* a bad retune changes nothing */
	/* 30 % of 2 CPUs is 0.6 of one; a user may hold half of that */
	assert_int_equal(iso_reserve_cap_total(&r), ISO_RESERVE_BW_ONE * 6 / 10);
	assert_int_equal(iso_reserve_cap_user(&r), ISO_RESERVE_BW_ONE * 3 / 10);
}

/* 1 ms every 5.333 ms is 18.75 %: one fits a user's 30 % of a CPU, a
 * second does not, and the refusal says what is left. */
static void test_user_cap(void **state)
{
	(void)state;
	struct iso_reserve r;
	struct iso_reserve_entry e[CAP];
	struct iso_reserve_params p = P(1 * MS, 5333 * US);
	uint64_t left = 0;

	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 50, 2), 0);
	assert_int_equal(iso_reserve_admit(&r, 101, 65534, &p, &left), 0);
	assert_int_equal(left, iso_reserve_cap_user(&r) - iso_reserve_bw(&p));
	p = P(1 * MS, 5333 * US);
	assert_int_equal(iso_reserve_admit(&r, 102, 65534, &p, &left), -EBUSY);
	assert_int_equal(left, iso_reserve_cap_user(&r) - iso_reserve_bw(&p));
	/* about 11.25 % of a CPU is left: 600 us of a 5333 us period */
	assert_in_range(iso_reserve_bw_milli_pct(left), 11240, 11260);
	assert_in_range(iso_reserve_runtime_for(left, 5333 * US), 599 * US, 600 * US);
	/* what is left is admitted exactly */
	p = P(iso_reserve_runtime_for(left, 5333 * US), 5333 * US);
	assert_int_equal(iso_reserve_admit(&r, 102, 65534, &p, &left), 0);
	assert_true(left < 8); /* rounding dust */
	/* another user has its own cap */
	p = P(1 * MS, 5333 * US);
	assert_int_equal(iso_reserve_admit(&r, 201, 1, &p, NULL), 0);
	assert_int_equal(r.n, 3);
}

/* The machine's cap binds across users: never more than reserve_cpu
 * admitted, whatever the order and size of requests. */
static void test_machine_cap(void **state)
{
	(void)state;
	struct iso_reserve r;
	struct iso_reserve_entry e[CAP];
	uint64_t left;
	int admitted = 0;

	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 100, 2), 0);
	for (int i = 0; i < CAP; i++) {
		struct iso_reserve_params p = P((uint64_t)(i % 3 + 1) * 500 * US, 5 * MS);
		int err = iso_reserve_admit(&r, 300 + i, (uint32_t)(i % 4), &p, &left);

		assert_true(err == 0 || err == -EBUSY);
		admitted += err == 0;
		assert_true(r.total_bw <= iso_reserve_cap_total(&r));
		if (err == -EBUSY)
			assert_true(left < iso_reserve_bw(&p));
	}
	assert_true(admitted > 0 && admitted < CAP);
	/* 0.6 CPU at 10/20/30 % each, in that order: 10+20+30+10+20+30 = 120 % */
	assert_int_equal(iso_reserve_bw_milli_pct(r.total_bw) / 1000, 59);
}

static void test_replace_and_release(void **state)
{
	(void)state;
	struct iso_reserve r;
	struct iso_reserve_entry e[CAP];
	struct iso_reserve_params p = P(2 * MS, 10 * MS); /* 20 % */
	uint64_t left;

	assert_int_equal(iso_reserve_init(&r, e, CAP, 30, 50, 2), 0);
	assert_int_equal(iso_reserve_admit(&r, 7, 5, &p, NULL), 0);
	/* the same thread asks 30 %: its own 20 % is given back first */
	p = P(3 * MS, 10 * MS);
	assert_int_equal(iso_reserve_admit(&r, 7, 5, &p, NULL), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.total_bw, iso_reserve_bw(&p));
	/* 31 % is refused, and the 30 % stays */
	p = P(3100 * US, 10 * MS);
	assert_int_equal(iso_reserve_admit(&r, 7, 5, &p, &left), -EBUSY);
	assert_int_equal(iso_reserve_find(&r, 7)->bw, (3 * MS << 20) / (10 * MS));
	assert_true(iso_reserve_release(&r, 7));
	assert_false(iso_reserve_release(&r, 7));
	assert_int_equal(r.n, 0);
	assert_int_equal(r.total_bw, 0);
	assert_null(iso_reserve_find(&r, 7));
	assert_int_equal(iso_reserve_left(&r, 5, 0), iso_reserve_cap_user(&r));
}

static void test_off_and_retune(void **state)
{
	(void)state;
	struct iso_reserve r;
	struct iso_reserve_entry e[2];
	struct iso_reserve_params p = P(1 * MS, 10 * MS);
	uint64_t left = 1;

	assert_int_equal(iso_reserve_init(&r, e, 2, 0, 50, 2), 0);
	assert_int_equal(iso_reserve_admit(&r, 1, 5, &p, &left), -EBUSY);
	assert_int_equal(left, 0);
	assert_int_equal(iso_reserve_retune(&r, 30, 50), 0);
	assert_int_equal(iso_reserve_admit(&r, 1, 5, &p, NULL), 0);
	/* lowered under what is held: kept, but nothing new */
	assert_int_equal(iso_reserve_retune(&r, 5, 50), 0);
	assert_non_null(iso_reserve_find(&r, 1));
	assert_int_equal(iso_reserve_left(&r, 6, 0), 0);
	assert_int_equal(iso_reserve_admit(&r, 2, 6, &p, NULL), -EBUSY);
	/* table full */
	assert_int_equal(iso_reserve_retune(&r, 90, 100), 0);
	assert_int_equal(iso_reserve_admit(&r, 2, 6, &p, NULL), 0);
	assert_int_equal(iso_reserve_admit(&r, 3, 6, &p, NULL), -ENOSPC);
	/* one reservation takes at most 90 % of a CPU, whatever the caps */
	p = P(9 * MS, 10 * MS);
	assert_int_equal(iso_reserve_admit(&r, 4, 7, &p, NULL), -ENOSPC);
	p = P(9100 * US, 10 * MS);
	assert_int_equal(iso_reserve_admit(&r, 4, 7, &p, NULL), -EINVAL);
	/* bad parameters and a bad tid */
	p = P(1 * MS, 10 * US);
	assert_int_equal(iso_reserve_admit(&r, 1, 5, &p, NULL), -EINVAL);
	p = P(1 * MS, 10 * MS);
	assert_int_equal(iso_reserve_admit(&r, 0, 5, &p, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_init_ranges),
		cmocka_unit_test(test_user_cap),
		cmocka_unit_test(test_machine_cap),
		cmocka_unit_test(test_replace_and_release),
		cmocka_unit_test(test_off_and_retune),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
