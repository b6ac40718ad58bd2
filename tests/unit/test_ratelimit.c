/* test_ratelimit.c — the per-user request buckets: bursts, steady rate,
 * root exemption, users independent, reconfiguration, a full table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ratelimit.h"

#define MS 1000000LL

static unsigned take_n(struct ratelimit *rl, uid_t uid, unsigned n, int64_t now)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++)
		ok += ratelimit_take(rl, uid, now);
	return ok;
}

static void burst_then_refused(void **state)
{
	static struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 100, 10);
	assert_int_equal(take_n(&rl, 1000, 10, 0), 10);
	assert_false(ratelimit_take(&rl, 1000, 0));
	/* 100/s: one token per 10 ms */
	assert_false(ratelimit_take(&rl, 1000, 5 * MS));
	assert_true(ratelimit_take(&rl, 1000, 10 * MS));
	assert_false(ratelimit_take(&rl, 1000, 10 * MS));
}

static void steady_rate_is_kept(void **state)
{
	static struct ratelimit rl;
	unsigned ok = 0;

	(void)state;
	ratelimit_init(&rl, 200, 400);
	/* 10 000 requests/s for 2 s: burst + 2 s at 200/s get through */
	for (int64_t t = 0; t < 2000 * MS; t += MS / 10)
		ok += ratelimit_take(&rl, 1000, t);
	assert_in_range(ok, 400 + 390, 400 + 401);
}

static void root_and_zero_rate_unlimited(void **state)
{
	static struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 1, 1);
	assert_int_equal(take_n(&rl, 0, 10000, 0), 10000);
	ratelimit_configure(&rl, 0, 1);
	assert_int_equal(take_n(&rl, 1000, 10000, 0), 10000);
}

static void users_are_independent(void **state)
{
	static struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 10, 5);
	assert_int_equal(take_n(&rl, 1000, 100, 0), 5);
	assert_int_equal(take_n(&rl, 1001, 5, 0), 5);
}

static void reconfigure_clamps(void **state)
{
	static struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 10, 100);
	assert_true(ratelimit_take(&rl, 1000, 0));
	ratelimit_configure(&rl, 10, 3);
	assert_int_equal(take_n(&rl, 1000, 10, 0), 3);
}

static void full_table_reuses_idlest(void **state)
{
	static struct ratelimit rl;

	(void)state;
	ratelimit_init(&rl, 1, 1);
	for (uid_t u = 1; u <= RATELIMIT_USERS; u++)
		assert_true(ratelimit_take(&rl, u, (int64_t)u));
	/* uid 1 is idlest: a newcomer takes its bucket and starts full */
	assert_true(ratelimit_take(&rl, 5000, RATELIMIT_USERS + 1));
	assert_false(ratelimit_take(&rl, 5000, RATELIMIT_USERS + 1));
	/* the others kept theirs (empty) */
	assert_false(ratelimit_take(&rl, RATELIMIT_USERS, RATELIMIT_USERS + 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(burst_then_refused),
		cmocka_unit_test(steady_rate_is_kept),
		cmocka_unit_test(root_and_zero_rate_unlimited),
		cmocka_unit_test(users_are_independent),
		cmocka_unit_test(reconfigure_clamps),
		cmocka_unit_test(full_table_reuses_idlest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
