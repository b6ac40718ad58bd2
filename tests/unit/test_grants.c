/* test_grants.c — isod_grant's steps (grants.h), each called alone on a
 * dry-run isod (no system call changes anything, no state file): the
 * band's check, the counts' admission, and the whole pipeline on this very
 * thread, which a second grant finds in the table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "actuator.h"
#include "config.h"
#include "grants.h"
#include "isod.h"
#include "iso_policy.h"
#include "log.h"

static struct isod d;

static int setup(void **state)
{
	struct isod_config cfg;

	(void)state;
	config_defaults(&cfg);
	cfg.state_path[0] = '\0';
	cfg.dry_run = true;
	cfg.accounting = ACCOUNTING_PROC;
	cfg.max_threads = 4;
	cfg.max_threads_per_user = 1;
	log_setup(LOG_EMERG, false);
	actuator_set_dry_run(true);
	return isod_init(&d, &cfg) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	isod_destroy(&d);
	return 0;
}

static struct grant self(int prio)
{
	return (struct grant){ .pid = getpid(), .tid = gettid(), .uid = getuid(),
			       .by = getuid(), .policy = ISO_POLICY_ISO_RR,
			       .prio = prio, .limit = 100 };
}

/* check: a priority outside 1..99 is refused before anything is read;
 * inside, it lands in the band. */
static void check_maps_the_band(void **state)
{
	struct grant g = self(0);
	int k;

	(void)state;
	assert_int_equal(grant_check(&d, &g, NULL), -EINVAL);
	g.prio = 100;
	assert_int_equal(grant_check(&d, &g, NULL), -EINVAL);
	g.prio = 1;
	k = grant_check(&d, &g, NULL);
	assert_int_equal(k, d.cfg.band.lo);
	g.prio = 99;
	assert_int_equal(grant_check(&d, &g, NULL), d.cfg.band.hi);
}

/* The pipeline on this thread; then admit refuses a second thread of the
 * same payer (max_threads_per_user 1), and check confirms the tracked one. */
static void pipeline_then_counts(void **state)
{
	struct grant g = self(10);
	struct tracked *e = NULL;
	uid_t charged;

	(void)state;
	assert_int_equal(isod_grant(&d, &g, &e), 0);
	assert_non_null(e);
	assert_int_equal(e->tid, gettid());
	assert_int_equal(e->prio, 10);
	assert_int_equal(d.tasks.used, 1);
	assert_int_equal(grant_admit(&d, &g, &charged), -EAGAIN);
	g.prio = 20;
	assert_true(grant_check(&d, &g, e) >= d.cfg.band.lo);
	/* a tracked thread's owner must be the asker */
	g.by = getuid() + 1;
	assert_int_equal(grant_check(&d, &g, e), -EPERM);
	assert_int_equal(isod_release(&d, gettid()), 0);
	assert_int_equal(d.tasks.used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_maps_the_band),
		cmocka_unit_test(pipeline_then_counts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
