/* cleanup.c — at exit, on SIGINT/SIGTERM/SIGHUP/SIGQUIT and at the hard
 * time bound (SIGALRM): kill the tracked child, the load and the private
 * isod, reap them, and go. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "common/child.h"
#include "common/isod.h"
#include "latency/latency.h"

/* The benchmark's own pid: a forked child that inherits the handlers (or
 * atexit) before it resets them must not clean up the parent's things.
 * Read by the signal handler, hence file scope. */
static pid_t main_pid;

static void kill_everything(void)
{
	pid_t p = child_tracked();

	if (p > 0)
		kill(p, SIGKILL);
	load_kill_all();
	isod_kill_private();
}

static void on_exit_cleanup(void)
{
	if (getpid() != main_pid)
		return;
	kill_everything();
	load_stop();
	isod_stop_private();
}

static void on_signal(int sig)
{
	static const char msg[] =
		"isobench: hard time bound reached, stopping everything\n";

	if (getpid() != main_pid)
		_exit(128 + sig);
	if (sig == SIGALRM)
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	kill_everything();
	/* reap what was killed (bounded: 0.5 s), so no zombie lingers */
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { 0, 10 * 1000000L };

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nanosleep(&ts, NULL);
	}
	_exit(sig == SIGALRM ? 3 : 128 + sig);
}

void cleanup_install(unsigned bound_s)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };

	main_pid = getpid();
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(on_exit_cleanup);
	alarm(bound_s);
}

void cleanup_disarm(void)
{
	alarm(0);
}
