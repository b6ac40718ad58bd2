/* test_charge.c — which user a uid's per-user bounds are charged to
 * (charge.h): the rule on namespace owners, and the reader on this
 * process, which is in the test's own user namespace. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "charge.h"

static void own_namespace_is_own_uid(void **state)
{
	(void)state;
	assert_int_equal(charge_rule(1000, NULL, 0), 1000);
	assert_int_equal(charge_rule(65534, NULL, 0), 65534);
}

static void subordinate_uid_charged_to_creator(void **state)
{
	/* nobody made a namespace, newuidmap mapped 1 → 200000 in it */
	uid_t owners[] = { 65534 };

	(void)state;
	assert_int_equal(charge_rule(200000, owners, 1), 65534);
	assert_int_equal(charge_rule(200001, owners, 1), 65534);
	assert_int_equal(charge_rule(65534, owners, 1), 65534);
}

static void outermost_unprivileged_owner_wins(void **state)
{
	/* inside nobody's namespace, its subordinate uid 200000 made
	 * another: still nobody's */
	uid_t owners[] = { 200000, 65534 };

	(void)state;
	assert_int_equal(charge_rule(200005, owners, 2), 65534);
}

static void root_made_namespace_passes_charge_on(void **state)
{
	/* a container root made (owner 0): its uids are the users the
	 * administrator gave out; one of them making a namespace inside it
	 * is charged for it */
	uid_t container[] = { 0 };
	uid_t nested[] = { 101000, 0 };
	uid_t all_root[] = { 0, 0 };

	(void)state;
	assert_int_equal(charge_rule(101000, container, 1), 101000);
	assert_int_equal(charge_rule(300000, nested, 2), 101000);
	assert_int_equal(charge_rule(101000, all_root, 2), 101000);
}

static void root_is_root(void **state)
{
	uid_t owners[] = { 65534 };

	(void)state;
	assert_int_equal(charge_rule(0, owners, 1), 0);
	assert_int_equal(charge_rule(0, NULL, 0), 0);
}

static void reader_on_own_process(void **state)
{
	uid_t owners[CHARGE_MAX_DEPTH], out = 1;
	size_t n = 99;

	(void)state;
	/* this process is in the test's own user namespace: no owners */
	assert_int_equal(read_userns_owners("/proc", getpid(), owners, CHARGE_MAX_DEPTH, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(read_charged_uid("/proc", getpid(), 4321, &out), 0);
	assert_int_equal(out, 4321);
}

static void reader_gone_process(void **state)
{
	uid_t out = 0;

	(void)state;
	/* a proc root without the pid: -ESRCH, and the uid itself */
	assert_int_equal(read_charged_uid("/proc", 0x7ffffff0, 77, &out), -ESRCH);
	assert_int_equal(out, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_namespace_is_own_uid),
		cmocka_unit_test(subordinate_uid_charged_to_creator),
		cmocka_unit_test(outermost_unprivileged_owner_wins),
		cmocka_unit_test(root_made_namespace_passes_charge_on),
		cmocka_unit_test(root_is_root),
		cmocka_unit_test(reader_on_own_process),
		cmocka_unit_test(reader_gone_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
