/* test_tasks_index.c — the task table's O(1) index against a plain
 * array walked the slow way: random takes and puts, many uids (so the
 * uid table rebuilds), a full table, bad slots and TIDs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tasks_index.h"

#define CAP 64

struct model {
	pid_t tid[CAP]; /* 0: free */
	uid_t uid[CAP];
};

static size_t model_count(const struct model *m, uid_t uid)
{
	size_t n = 0;

	for (int i = 0; i < CAP; i++)
		n += m->tid[i] && m->uid[i] == uid;
	return n;
}

static void matches_a_plain_walk(void **state)
{
	struct task_index x;
	struct model m = { { 0 }, { 0 } };
	unsigned seed = 12345;

	(void)state;
	assert_int_equal(task_index_init(&x, CAP), 0);
	for (int step = 0; step < 200000; step++) {
		pid_t tid = (pid_t)(1 + rand_r(&seed) % 500);
		/* many distinct uids over time, few at once: rebuilds */
		uid_t uid = (uid_t)(1000 + (rand_r(&seed) % 7) + (unsigned)(step / 1000) * 7);
		int32_t s = task_index_find(&x, tid);
		int want = -1;

		for (int i = 0; i < CAP; i++)
			if (m.tid[i] == tid)
				want = i;
		assert_int_equal(s, want);
		if (s >= 0) {
			uid_t u = m.uid[s];

			task_index_put(&x, s, u);
			m.tid[s] = 0;
			assert_int_equal(task_index_uid_count(&x, u), model_count(&m, u));
		} else {
			s = task_index_take(&x, tid, uid);
			if (s < 0) {
				for (int i = 0; i < CAP; i++)
					assert_int_not_equal(m.tid[i], 0); /* full only */
				continue;
			}
			assert_int_equal(m.tid[s], 0); /* a free slot */
			m.tid[s] = tid;
			m.uid[s] = uid;
			assert_int_equal(task_index_uid_count(&x, uid), model_count(&m, uid));
		}
		assert_true(x.uid_keys <= x.uid_slots / 2);
	}
	task_index_free(&x);
}

static void full_and_bad_input(void **state)
{
	struct task_index x;

	(void)state;
	assert_int_equal(task_index_init(&x, 3), 0);
	assert_int_equal(task_index_take(&x, 10, 1), 0); /* lowest slot first */
	assert_int_equal(task_index_take(&x, 11, 1), 1);
	assert_int_equal(task_index_take(&x, 12, 2), 2);
	assert_int_equal(task_index_take(&x, 13, 2), -1);
	assert_int_equal(task_index_uid_count(&x, 1), 2);
	assert_int_equal(task_index_take(&x, 0, 1), -1);
	assert_int_equal(task_index_take(&x, -5, 1), -1);
	assert_int_equal(task_index_find(&x, 0), -1);
	assert_int_equal(task_index_find(&x, 99), -1);
	task_index_put(&x, -1, 1);  /* ignored */
	task_index_put(&x, 3, 1);   /* ignored */
	task_index_put(&x, 1, 1);
	task_index_put(&x, 1, 1);   /* twice: ignored */
	assert_int_equal(task_index_uid_count(&x, 1), 1);
	assert_int_equal(task_index_find(&x, 11), -1);
	assert_int_equal(task_index_find(&x, 12), 2);
	assert_int_equal(task_index_take(&x, 14, 3), 1);
	assert_int_equal(task_index_uid_count(&x, 3), 1);
	assert_int_equal(task_index_uid_count(&x, 4), 0);
	task_index_free(&x);
	assert_int_equal(task_index_init(&x, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matches_a_plain_walk),
		cmocka_unit_test(full_and_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
