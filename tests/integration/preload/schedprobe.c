/* schedprobe — asks for a scheduling policy one of several ways and prints
 * what happened, for the preload tests. Bounded: it never runs longer than
 * the seconds it is given.
 *
 *   schedprobe MODE POLICY PRIO SECONDS
 *     MODE: set (sched_setscheduler), attr (syscall SYS_sched_setattr),
 *           pset (pthread_setschedparam on itself),
 *           pattr (pthread_create with PTHREAD_EXPLICIT_SCHED)
 *   schedprobe range POLICY      sched_get_priority_min/max
 *   schedprobe show SECONDS      only the report (for chrt CMD)
 *
 * Prints "rc=R errno=E" (pattr: the pthread_create return as rc), then,
 * from the thread concerned, "tid=T getscheduler=P getparam=Q
 * pthread_policy=P2 pthread_prio=Q2", then sleeps SECONDS.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attr { /* the kernel's struct sched_attr, VER0 */
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
};

static unsigned seconds;

static void report(void)
{
	struct sched_param sp = { 0 }, tp = { 0 };
	int tpol = -1, pol = sched_getscheduler(0);

	if (sched_getparam(0, &sp) != 0)
		sp.sched_priority = -1;
	if (pthread_getschedparam(pthread_self(), &tpol, &tp) != 0)
		tpol = -1;
	printf("tid=%d getscheduler=%d getparam=%d pthread_policy=%d pthread_prio=%d\n",
	       (int)gettid(), pol, sp.sched_priority, tpol, tp.sched_priority);
	fflush(stdout);
	sleep(seconds);
}

static void *thread_main(void *arg)
{
	(void)arg;
	report();
	return NULL;
}

int main(int argc, char **argv)
{
	int policy, prio, rc = 0, err = 0;
	struct sched_param sp;

	if (argc == 3 && strcmp(argv[1], "range") == 0) {
		policy = atoi(argv[2]);
		printf("min=%d max=%d\n", sched_get_priority_min(policy),
		       sched_get_priority_max(policy));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "show") == 0) {
		seconds = (unsigned)atoi(argv[2]);
		if (seconds > 20)
			seconds = 20;
		report();
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: schedprobe set|attr|pset|pattr POLICY PRIO SECONDS\n");
		return 2;
	}
	policy = atoi(argv[2]);
	prio = atoi(argv[3]);
	seconds = (unsigned)atoi(argv[4]);
	if (seconds > 20)
		seconds = 20;
	sp.sched_priority = prio;
	if (strcmp(argv[1], "set") == 0) {
		rc = sched_setscheduler(0, policy, &sp);
		err = rc ? errno : 0;
	} else if (strcmp(argv[1], "attr") == 0) {
		struct attr a = { .size = sizeof(a), .policy = (uint32_t)policy,
				  .prio = (uint32_t)prio };
		rc = (int)syscall(SYS_sched_setattr, 0, &a, 0);
		err = rc ? errno : 0;
	} else if (strcmp(argv[1], "pset") == 0) {
		rc = pthread_setschedparam(pthread_self(), policy, &sp);
	} else if (strcmp(argv[1], "pattr") == 0) {
		pthread_attr_t at;
		pthread_t th;

		pthread_attr_init(&at);
		pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&at, policy);
		pthread_attr_setschedparam(&at, &sp);
		rc = pthread_create(&th, &at, thread_main, NULL);
		pthread_attr_destroy(&at);
		printf("rc=%d errno=0\n", rc);
		fflush(stdout);
		if (rc == 0)
			pthread_join(th, NULL);
		return rc ? 1 : 0;
	} else {
		fprintf(stderr, "schedprobe: unknown mode %s\n", argv[1]);
		return 2;
	}
	printf("rc=%d errno=%d\n", rc, err);
	fflush(stdout);
	if (rc != 0)
		return 1;
	report();
	return 0;
}
