/* test_nsmap.c — thread ids of a process in another PID namespace, mapped
 * to ours (nsmap.h), on real namespaces: a child makes a user and PID
 * namespace (no privilege needed where user namespaces are allowed; the
 * test skips where they are not) and its child, pid 1 there, starts a
 * second thread, pid 2 there. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "nsmap.h"
#include "nsmap_walk.h"

struct ns_child {
	pid_t helper;   /* made the namespaces; in ours */
	pid_t init;     /* pid 1 of the new namespace, our id */
	pid_t second;   /* its second thread (pid 2 there), our id */
	int hold;       /* closing it lets them exit */
};

static int pipe_fd = -1; /* the second thread's report: its id there
			  * (file scope: the thread's only way in) */

static void *second_thread(void *arg)
{
	pid_t t = (pid_t)syscall(SYS_gettid);
	int fd = *(int *)arg;

	(void)!write(pipe_fd, &t, sizeof(t));
	(void)!read(fd, &t, 1); /* until the test is done */
	return NULL;
}

/* 0, or -1: namespaces not available here (the test skips). */
static int start(struct ns_child *c)
{
	int rep[2], hold[2];
	pid_t got[2];

	if (pipe(rep) || pipe(hold))
		return -1;
	c->helper = fork();
	if (c->helper == 0) {
		pid_t init;

		close(rep[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(3);
		init = fork();
		if (init == 0) {
			pthread_t t;

			pipe_fd = rep[1];
			if (pthread_create(&t, NULL, second_thread, &hold[0]) != 0)
				_exit(4);
			pthread_join(t, NULL);
			_exit(0);
		}
		/* our namespace's id of the new namespace's pid 1 */
		(void)!write(rep[1], &init, sizeof(init));
		waitpid(init, NULL, 0);
		_exit(0);
	}
	close(rep[1]);
	close(hold[0]);
	c->hold = hold[1];
	/* the helper's report (init) and the second thread's (its tid) */
	for (int i = 0; i < 2; i++)
		if (read(rep[0], &got[i], sizeof(got[i])) != sizeof(got[i])) {
			close(rep[0]);
			return -1;
		}
	close(rep[0]);
	/* the thread reports its own id there (2), the helper pid 1's here;
	 * the thread's id here is the other entry of pid 1's task list */
	if ((got[0] == 2) == (got[1] == 2))
		return -1;
	c->init = got[0] == 2 ? got[1] : got[0];
	c->second = 0;
	{
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)c->init);
		d = opendir(path);
		if (!d)
			return -1;
		while ((de = readdir(d)))
			if (atoi(de->d_name) > 0 && atoi(de->d_name) != c->init)
				c->second = atoi(de->d_name);
		closedir(d);
	}
	if (!c->second)
		return -1;
	return 0;
}

static void stop(struct ns_child *c)
{
	close(c->hold);
	waitpid(c->helper, NULL, 0);
}

/* The ids of the namespace made by start(), mapped by m. */
static void maps_ids(struct nsmap *m)
{
	struct ns_child c = { 0 };
	ino_t ns = 0;
	pid_t tid = 0;

	if (start(&c) < 0)
		skip();
	assert_int_equal(client_pidns("/proc", c.init, &ns), 0);
	/* pid 1 and pid 2 there are the process and its second thread */
	assert_int_equal(map_client_tid(m, "/proc", c.init, ns, 1, &tid), 0);
	assert_int_equal(tid, c.init);
	assert_int_equal(map_client_tid(m, "/proc", c.init, ns, 2, &tid), 0);
	assert_int_equal(tid, c.second);
	/* after a pin: still the same ids there */
	assert_int_equal(map_client_check(m, "/proc", c.init, ns, c.init, 1), 0);
	assert_int_equal(map_client_check(m, "/proc", c.init, ns, c.second, 2), 0);
	assert_int_equal(map_client_check(m, "/proc", c.init, ns, c.second, 1), -ESRCH);
	/* nothing else is in it: not our own process, not a free id */
	assert_int_equal(map_client_tid(m, "/proc", c.init, ns, 3, &tid), -ESRCH);
	assert_int_equal(map_client_check(m, "/proc", c.init, ns, getpid(), 3), -ESRCH);
	/* a process that is no longer the one whose namespace was read */
	assert_int_equal(map_client_tid(m, "/proc", c.helper, ns, 1, &tid), -ESRCH);
	stop(&c);
	nsmap_free(m);
}

static void maps_ids_of_the_namespace(void **state)
{
	struct nsmap m = { 0 };

	(void)state;
	maps_ids(&m);
}

/* The same on a kernel before 6.11, which cannot translate: the walk. */
static void walks_ids_of_the_namespace(void **state)
{
	struct nsmap m = { 0 };

	(void)state;
	nsmap_force_walk(&m);
	maps_ids(&m);
}

/* ---- a big namespace: pid 1 with MANY - 1 more threads, and a child ---- */

#define MANY 1000

static int hold_fd = -1; /* the threads wait on it (file scope: their only way in) */

static void *waiter(void *arg)
{
	char c;

	(void)arg;
	(void)!read(hold_fd, &c, 1);
	return NULL;
}

struct big_ns {
	pid_t helper, init, child; /* our ids; child is pid MANY + 1 there */
	int hold;
};

static int start_big(struct big_ns *b)
{
	int rep[2], hold[2];
	char ok;

	if (pipe(rep) || pipe(hold))
		return -1;
	b->helper = fork();
	if (b->helper == 0) {
		close(rep[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(3);
		b->init = fork();
		if (b->init == 0) {
			pthread_attr_t a;
			pthread_t t;

			hold_fd = hold[0];
			pthread_attr_init(&a);
			pthread_attr_setstacksize(&a, 64 * 1024);
			for (int i = 1; i < MANY; i++)
				if (pthread_create(&t, &a, waiter, NULL) != 0)
					_exit(4);
			if (fork() == 0) { /* pid MANY + 1 there */
				waiter(NULL);
				_exit(0);
			}
			(void)!write(rep[1], "y", 1);
			waiter(NULL);
			_exit(0);
		}
		(void)!write(rep[1], &b->init, sizeof(b->init));
		waitpid(b->init, NULL, 0);
		_exit(0);
	}
	close(rep[1]);
	close(hold[0]);
	b->hold = hold[1];
	if (read(rep[0], &b->init, sizeof(b->init)) != sizeof(b->init) || read(rep[0], &ok, 1) != 1) {
		close(rep[0]);
		return -1;
	}
	close(rep[0]);
	return 0;
}

/* read system calls this process made so far (/proc/self/io syscr) */
static unsigned long long syscr(void)
{
	char buf[512], *f;
	FILE *fp = fopen("/proc/self/io", "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	f = strstr(buf, "syscr:");
	assert_non_null(f);
	return strtoull(f + 6, NULL, 10);
}

/* Map ns_tid, asking again while the walk is under way (as libisosched
 * does); every request's cost, counted by nsmap and by the kernel, stays
 * within the budget. Returns the last answer; *asks: requests made. */
static int map_bounded(struct nsmap *m, pid_t client, ino_t ns, pid_t ns_tid, pid_t *tid,
		       int *asks)
{
	int r;

	*asks = 0;
	do {
		unsigned long long before = syscr(), reads;
		r = map_client_tid(m, "/proc", client, ns, ns_tid, tid);
		reads = syscr() - before - 1; /* the read of /proc/self/io itself */
		(*asks)++;
		assert_true(m->last_units <= NSWALK_BUDGET + 2);
		/* the client's own status, the remembered thread's check */
		assert_true(reads <= NSWALK_BUDGET + 4);
	} while (r == -EINPROGRESS && *asks < 10 * MANY);
	return r;
}

static void walk_costs_a_bounded_share_per_request(void **state)
{
	struct nsmap m = { 0 };
	struct big_ns b = { 0 };
	ino_t ns = 0;
	pid_t tid = 0, child_tid = 0;
	int asks;

	(void)state;
	nsmap_force_walk(&m);
	if (start_big(&b) < 0)
		skip();
	assert_int_equal(client_pidns("/proc", b.init, &ns), 0);
	/* the last thread: the whole of the client's threads, many requests */
	assert_int_equal(map_bounded(&m, b.init, ns, MANY, &tid, &asks), 0);
	print_message("thread %d of %d: %d requests\n", MANY, MANY, asks);
	assert_true(asks > 1);
	assert_true(asks <= MANY / (NSWALK_BUDGET - 2) + 2);
	/* now remembered: one request each, one read */
	for (pid_t t = 1; t <= MANY; t++) {
		assert_int_equal(map_bounded(&m, b.init, ns, t, &tid, &asks), 0);
		assert_int_equal(asks, 1);
		assert_true(m.last_units == 1);
	}
	/* a process of the namespace below the client's (pid 1's child):
	 * found down the tree, which starts at the client itself here */
	assert_int_equal(map_bounded(&m, b.init, ns, MANY + 1, &child_tid, &asks), 0);
	assert_true(child_tid != b.init);
	/* a free id: no, after a whole pass begun after it was asked for */
	assert_int_equal(map_bounded(&m, b.init, ns, MANY + 2, &tid, &asks), -ESRCH);
	assert_true(asks > 1);
	close(b.hold);
	waitpid(b.helper, NULL, 0);
	nsmap_free(&m);
}

static void own_namespace_is_identity(void **state)
{
	struct nsmap m = { 0 };
	pid_t tid = 0;

	(void)state;
	assert_int_equal(map_client_tid(&m, "/proc", getpid(), 0, 12345, &tid), 0);
	assert_int_equal(tid, 12345);
	assert_int_equal(map_client_check(&m, "/proc", getpid(), 0, 12345, 12345), 0);
	assert_int_equal(map_client_check(&m, "/proc", getpid(), 0, 12345, 12346), -ESRCH);
	assert_int_equal(map_client_tid(&m, "/proc", getpid(), 0, 0, &tid), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_namespace_is_identity),
		cmocka_unit_test(maps_ids_of_the_namespace),
		cmocka_unit_test(walks_ids_of_the_namespace),
		cmocka_unit_test(walk_costs_a_bounded_share_per_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
