/* tidclaim — run a command as a process whose PID (and TID) is the one
 * given: clone3 with set_tid (Linux 5.5; CAP_SYS_ADMIN over the PID
 * namespace, which root has in the initial one). Tests use it to hand a
 * TID isod tracked to someone else the moment its thread is gone, the
 * reuse that isod's pinned handles must tell apart.
 *
 *   tidclaim TID COMMAND [ARG...]
 *
 * Waits for the command and exits with its status; 75 if TID is taken,
 * 77 if the kernel has no set_tid (the test skips). */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct clone_args ca;
	pid_t want, child;
	char *end;
	long v;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: tidclaim TID COMMAND [ARG...]\n");
		return 2;
	}
	errno = 0;
	v = strtol(argv[1], &end, 10);
	if (errno || *end || v < 2 || v > 4194304) {
		fprintf(stderr, "tidclaim: %s is not a thread id\n", argv[1]);
		return 2;
	}
	want = (pid_t)v;
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uint64_t)(uintptr_t)&want;
	ca.set_tid_size = 1;
	child = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (child < 0) {
		fprintf(stderr, "tidclaim: clone3 with TID %d: %s\n", (int)want, strerror(errno));
		return errno == EEXIST ? 75 : errno == ENOSYS || errno == E2BIG ? 77 : 1;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "tidclaim: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (waitpid(child, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
