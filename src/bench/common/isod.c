/* isod.c — the private isod of a benchmark run: found next to isobench (or
 * as told), started in a fresh temp dir readable by the unprivileged
 * measuring child, waited for until its socket answers, stopped with
 * SIGTERM at the end (SIGKILL if it does not go). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "isod.h"
#include "isosched.h"

/* The private isod and its files: read by the signal handler's cleanup
 * (isod_kill_private), hence file scope; one isod runs at a time. */
static volatile pid_t isod_pid;
static char tmpdir[96];
static char sock_path[128], state_path[128], log_path[128];

static bool executable(const char *p)
{
	struct stat st;

	return p && *p && stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(p, X_OK) == 0;
}

static char *find_path(const char *explicit_path)
{
	char self[PATH_MAX], cand[PATH_MAX + 32];
	const char *env = getenv("ISOD"), *path;
	ssize_t n;

	if (explicit_path)
		return executable(explicit_path) ? strdup(explicit_path) : NULL;
	if (env && *env)
		return executable(env) ? strdup(env) : NULL;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/isod", self);
			if (executable(cand))
				return strdup(cand);
			snprintf(cand, sizeof(cand), "%s/../daemon/isod", self);
			if (executable(cand))
				return strdup(cand);
		}
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len > 0 && len < PATH_MAX) {
			snprintf(cand, sizeof(cand), "%.*s/isod", (int)len, path);
			if (executable(cand))
				return strdup(cand);
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

bool isod_answers(void)
{
	struct iso_status_info st;

	return iso_status(&st, NULL, 0) >= 0;
}

static void tail_log(char *err, size_t errlen)
{
	char buf[1024];
	ssize_t n = 0;
	int fd = open(log_path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		off_t end = lseek(fd, 0, SEEK_END);

		if (end > (off_t)sizeof(buf) - 1)
			lseek(fd, end - (off_t)sizeof(buf) + 1, SEEK_SET);
		else
			lseek(fd, 0, SEEK_SET);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (n > 0) {
		size_t used = strlen(err);
		char *nl;

		/* keep the last line only: the table note is one line */
		nl = strrchr(buf, '\n');
		snprintf(err + used, errlen - used, "; isod log: %s",
			 nl ? nl + 1 : buf);
	}
}

static bool has_option(const char *isod_path, const char *option)
{
	char buf[8192];
	size_t used = 0;
	ssize_t n;
	int fds[2], status;
	pid_t p;
	bool found;

	if (pipe(fds) < 0)
		return false;
	p = fork();
	if (p < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		alarm(5);
		execl(isod_path, isod_path, "--help", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (used < sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + used, sizeof(buf) - 1 - used)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		used += (size_t)n;
	}
	buf[used] = '\0';
	close(fds[0]);
	while (waitpid(p, &status, 0) < 0 && errno == EINTR)
		;
	found = false;
	for (char *q = buf; (q = strstr(q, option)); q += strlen(option)) {
		char after = q[strlen(option)];

		if (after == ' ' || after == '=' || after == '\n' || after == '\0') {
			found = true;
			break;
		}
	}
	return found;
}

pid_t isod_private_pid(void)
{
	return isod_pid;
}

int isod_bin_find(const char *explicit_path, struct isod_bin *bin)
{
	memset(bin, 0, sizeof(*bin));
	bin->path = find_path(explicit_path);
	if (!bin->path)
		return -ENOENT;
	/* isod's start-up sweep for lost grants would demote the ISO threads
	 * of every other isod on the machine (other benchmarks, tests): off
	 * for a private daemon, where isod has the option */
	bin->has_sweep_orphans = has_option(bin->path, "--sweep-orphans");
	bin->has_rate_limit = has_option(bin->path, "--rate-limit");
	bin->has_burst_ms = has_option(bin->path, "--burst-ms");
	bin->has_accounting = has_option(bin->path, "--accounting");
	bin->has_reserve = has_option(bin->path, "--reserve-cpu");
	return 0;
}

void isod_bin_free(struct isod_bin *bin)
{
	free(bin->path);
	bin->path = NULL;
}

double isod_sample_ms(double fallback)
{
	struct iso_status_info st;

	if (iso_status(&st, NULL, 0) >= 0 && st.sample_us)
		return st.sample_us / 1000.0;
	return fallback;
}

static void add_num(const char **argv, int *argc, const char *opt, int v,
		    char *buf)
{
	snprintf(buf, 16, "%d", v);
	argv[(*argc)++] = opt;
	argv[(*argc)++] = buf;
}

int isod_build_argv(const struct isod_bin *bin, const struct isod_want *w,
		    const char *sock, const char *state, char numbuf[6][16],
		    const char *argv[ISOD_MAX_ARGV])
{
	int n = 0;

	argv[n++] = bin->path;
	argv[n++] = "--socket";
	argv[n++] = sock;
	argv[n++] = "--state-file";
	argv[n++] = state;
	if (bin->has_sweep_orphans) {
		argv[n++] = "--sweep-orphans";
		argv[n++] = "no";
	}
	if (w->iso_cpu)
		add_num(argv, &n, "--iso-cpu", w->iso_cpu, numbuf[0]);
	if (w->iso_period_s)
		add_num(argv, &n, "--iso-period", w->iso_period_s, numbuf[1]);
	if (w->max_threads_per_user)
		add_num(argv, &n, "--max-threads-per-user",
			w->max_threads_per_user, numbuf[2]);
	if (w->max_threads)
		add_num(argv, &n, "--max-threads", w->max_threads, numbuf[3]);
	if (w->log_level) {
		argv[n++] = "--log-level";
		argv[n++] = w->log_level;
	}
	if (w->rate_limit_off && bin->has_rate_limit) {
		argv[n++] = "--rate-limit";
		argv[n++] = "0";
	}
	if (w->guard_off && bin->has_burst_ms) {
		argv[n++] = "--burst-ms";
		argv[n++] = "0";
	}
	if (w->accounting && bin->has_accounting) {
		argv[n++] = "--accounting";
		argv[n++] = w->accounting;
	}
	if (w->reserve_cpu && bin->has_reserve)
		add_num(argv, &n, "--reserve-cpu", w->reserve_cpu, numbuf[4]);
	if (w->reserve_user && bin->has_reserve)
		add_num(argv, &n, "--reserve-user", w->reserve_user, numbuf[5]);
	if (w->stall_cap_off && bin->has_burst_ms) {
		argv[n++] = "--stall-ms";
		argv[n++] = "0";
	}
	argv[n] = NULL;
	return n;
}

static int make_tmpdir(char *err, size_t errlen)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base || strlen(base) > 64)
		base = "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/isobench.XXXXXX", base);
	if (!mkdtemp(tmpdir)) {
		snprintf(err, errlen, "mkdtemp %s: %s", tmpdir, strerror(errno));
		tmpdir[0] = '\0';
		return -1;
	}
	/* the measuring child runs as nobody and must reach the socket */
	chmod(tmpdir, 0755);
	snprintf(sock_path, sizeof(sock_path), "%s/isod.sock", tmpdir);
	snprintf(state_path, sizeof(state_path), "%s/state", tmpdir);
	snprintf(log_path, sizeof(log_path), "%s/isod.log", tmpdir);
	return 0;
}

int isod_start(const struct isod_bin *bin, const struct isod_want *want,
	       char *err, size_t errlen)
{
	const char *argv[ISOD_MAX_ARGV];
	char numbuf[6][16];
	pid_t p, parent = getpid();
	int status;

	if (make_tmpdir(err, errlen) < 0)
		return -1;
	setenv("ISOSCHED_SOCKET", sock_path, 1);
	isod_build_argv(bin, want, sock_path, state_path, numbuf, argv);
	p = fork();
	if (p < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (p == 0) {
		int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);

		/* isod must not outlive the benchmark (SIGTERM: it demotes all) */
		if (!child_bind_to_parent(parent, SIGTERM))
			_exit(127);
		alarm(0);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execv(bin->path, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", bin->path, strerror(errno));
		_exit(127);
	}
	isod_pid = p;
	for (int i = 0; i < 200; i++) { /* up to 10 s */
		if (isod_answers())
			return 0;
		if (waitpid(p, &status, WNOHANG) == p) {
			isod_pid = 0;
			if (WIFEXITED(status))
				snprintf(err, errlen, "%s exited with status %d",
					 bin->path, WEXITSTATUS(status));
			else
				snprintf(err, errlen, "%s killed by signal %d",
					 bin->path, WTERMSIG(status));
			tail_log(err, errlen);
			return -1;
		}
		bench_sleep_ns(50000000ull);
	}
	snprintf(err, errlen, "%s did not answer on %s within 10 s", bin->path,
		 sock_path);
	tail_log(err, errlen);
	isod_stop_private();
	return -1;
}

static void remove_tmpdir(void)
{
	if (!tmpdir[0])
		return;
	unlink(sock_path);
	unlink(state_path);
	unlink(log_path);
	if (rmdir(tmpdir) == 0)
		tmpdir[0] = '\0';
}

/* Async-signal-safe: kill, waitpid, nanosleep, unlink, rmdir only. */
void isod_kill_private(void)
{
	pid_t p = isod_pid;
	struct timespec ts = { 0, 20 * 1000000L };

	if (p > 0) {
		kill(p, SIGTERM);
		for (int i = 0; i < 150; i++) { /* up to 3 s */
			if (waitpid(p, NULL, WNOHANG) == p) {
				p = 0;
				break;
			}
			nanosleep(&ts, NULL);
		}
		if (p > 0) {
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
		}
		isod_pid = 0;
	}
	remove_tmpdir();
}

void isod_stop_private(void)
{
	DIR *d;
	struct dirent *e;

	isod_kill_private();
	if (!tmpdir[0])
		return;
	/* whatever else isod left there (temp state files) */
	d = opendir(tmpdir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	if (rmdir(tmpdir) == 0)
		tmpdir[0] = '\0';
}
