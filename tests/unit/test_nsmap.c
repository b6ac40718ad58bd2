/* test_nsmap.c — thread ids of a process in another PID namespace, mapped
 * to ours (nsmap.h), on real namespaces: a child makes a user and PID
 * namespace (no privilege needed where user namespaces are allowed; the
 * test skips where they are not) and its child, pid 1 there, starts a
 * second thread, pid 2 there. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "nsmap.h"

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

static void maps_ids_of_the_namespace(void **state)
{
	struct ns_child c = { 0 };
	ino_t ns = 0;
	pid_t tid = 0;

	(void)state;
	if (start(&c) < 0)
		skip();
	assert_int_equal(client_pidns("/proc", c.init, &ns), 0);
	/* pid 1 and pid 2 there are the process and its second thread */
	assert_int_equal(map_client_tid("/proc", c.init, ns, 1, &tid), 0);
	assert_int_equal(tid, c.init);
	assert_int_equal(map_client_tid("/proc", c.init, ns, 2, &tid), 0);
	assert_int_equal(tid, c.second);
	/* after a pin: still the same ids there */
	assert_int_equal(map_client_check("/proc", c.init, ns, c.init, 1), 0);
	assert_int_equal(map_client_check("/proc", c.init, ns, c.second, 2), 0);
	assert_int_equal(map_client_check("/proc", c.init, ns, c.second, 1), -ESRCH);
	/* nothing else is in it: not our own process, not a free id */
	assert_int_equal(map_client_tid("/proc", c.init, ns, 3, &tid), -ESRCH);
	assert_int_equal(map_client_check("/proc", c.init, ns, getpid(), 3), -ESRCH);
	/* a process that is no longer the one whose namespace was read */
	assert_int_equal(map_client_tid("/proc", c.helper, ns, 1, &tid), -ESRCH);
	stop(&c);
}

static void own_namespace_is_identity(void **state)
{
	pid_t tid = 0;

	(void)state;
	assert_int_equal(map_client_tid("/proc", getpid(), 0, 12345, &tid), 0);
	assert_int_equal(tid, 12345);
	assert_int_equal(map_client_check("/proc", getpid(), 0, 12345, 12345), 0);
	assert_int_equal(map_client_check("/proc", getpid(), 0, 12345, 12346), -ESRCH);
	assert_int_equal(map_client_tid("/proc", getpid(), 0, 0, &tid), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_namespace_is_identity),
		cmocka_unit_test(maps_ids_of_the_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
