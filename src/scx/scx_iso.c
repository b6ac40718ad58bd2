/* scx_iso.c — loader for the scx_iso sched_ext scheduler: loads and
 * attaches it, pins its maps for isod, and stays until a signal or until
 * the kernel unloads it (error, watchdog, SysRq-S), then unpins and exits.
 * `scx_iso --dump` prints the pinned maps of a running instance (tests).
 *
 * Exit status: 0 after a signal, 2 when the kernel unloaded the scheduler,
 * 1 on a setup error. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <scx/common.h>

#include "scx_iso.h"
#include "scx_iso.bpf.skel.h"

static volatile sig_atomic_t exit_req, fail_req;
static bool verbose;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		fail_req = 1;
	else
		exit_req = 1;
}

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scx_iso [--pin-dir DIR] [--iso-cpu PCT] [--iso-period-ms MS] [-v]\n"
		"       scx_iso --dump [--pin-dir DIR]\n"
		"Schedules SCHED_NORMAL tasks by weighted vtime and the ISO tasks isod\n"
		"marks in DIR/tasks ahead of them (default DIR %s).\n"
		"SIGUSR1 makes the BPF side report an error (test hook: the kernel\n"
		"then unloads it); SIGINT/SIGTERM unload it cleanly.\n",
		SCX_ISO_PIN_DIR_DEFAULT);
}

static int parse_u32(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int pin_path(char *buf, size_t n, const char *dir, const char *name)
{
	int r = snprintf(buf, n, "%s/%s", dir, name);

	return r < 0 || (size_t)r >= n ? -ENAMETOOLONG : 0;
}

static void unpin_all(const char *dir)
{
	const char *names[] = { SCX_ISO_MAP_TASKS, SCX_ISO_MAP_TUNE, SCX_ISO_MAP_CPUS };
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (pin_path(p, sizeof(p), dir, names[i]) == 0)
			(void)unlink(p);
	(void)rmdir(dir);
}

static int pin_all(struct scx_iso *skel, const char *dir)
{
	struct { struct bpf_map *m; const char *name; } maps[] = {
		{ skel->maps.tasks, SCX_ISO_MAP_TASKS },
		{ skel->maps.tune, SCX_ISO_MAP_TUNE },
		{ skel->maps.cpus, SCX_ISO_MAP_CPUS },
	};
	char p[PATH_MAX];

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		int r = pin_path(p, sizeof(p), dir, maps[i].name);

		if (r < 0)
			return r;
		(void)unlink(p); /* a stale pin of a crashed instance */
		r = bpf_map__pin(maps[i].m, p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* --dump: one line per CPU and per ISO task, stable "key=value" words
 * the tests grep for. */
static int dump(const char *dir)
{
	char p[PATH_MAX];
	int tfd, cfd, ufd;
	__u32 k = 0, next;
	struct scx_iso_tune t;
	struct scx_iso_task e;
	struct scx_iso_cpu c;
	int ncpu = libbpf_num_possible_cpus();

	if (pin_path(p, sizeof(p), dir, SCX_ISO_MAP_TUNE) < 0 || (ufd = bpf_obj_get(p)) < 0 ||
	    pin_path(p, sizeof(p), dir, SCX_ISO_MAP_CPUS) < 0 || (cfd = bpf_obj_get(p)) < 0 ||
	    pin_path(p, sizeof(p), dir, SCX_ISO_MAP_TASKS) < 0 || (tfd = bpf_obj_get(p)) < 0) {
		fprintf(stderr, "scx_iso: cannot open the maps pinned in %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (bpf_map_lookup_elem(ufd, &k, &t) == 0)
		printf("tune iso_cpu=%u iso_period_ms=%u\n", t.iso_cpu, t.iso_period_ms);
	for (int i = 0; i < ncpu && i < SCX_ISO_MAX_CPUS; i++) {
		k = (__u32)i;
		if (bpf_map_lookup_elem(cfd, &k, &c) == 0)
			printf("cpu %d iso_ticks=%llu refractory=%u refractory_entries=%llu cur_rank=%u\n",
			       i, (unsigned long long)c.iso_ticks, c.refractory,
			       (unsigned long long)c.refractory_entries, c.cur_rank);
	}
	if (bpf_map_get_next_key(tfd, NULL, &next) == 0) {
		do {
			k = next;
			if (bpf_map_lookup_elem(tfd, &k, &e) == 0)
				printf("task %u policy=%u prio=%u limit=%u demoted=%u demotions=%llu iso_ms=%llu run_ms=%llu last_cpu=%u\n",
				       k, e.policy, e.prio, e.limit, e.demoted,
				       (unsigned long long)e.demotions,
				       (unsigned long long)(e.iso_ns / 1000000),
				       (unsigned long long)(e.run_ns / 1000000), e.last_cpu);
		} while (bpf_map_get_next_key(tfd, &k, &next) == 0);
	}
	close(tfd);
	close(cfd);
	close(ufd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "iso-cpu", required_argument, NULL, 'c' },
		{ "iso-period-ms", required_argument, NULL, 'P' },
		{ "dump", no_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *dir = SCX_ISO_PIN_DIR_DEFAULT;
	unsigned iso_cpu = SCX_ISO_CPU_DEFAULT, period = SCX_ISO_PERIOD_MS_DEFAULT;
	bool do_dump = false;
	struct scx_iso *skel;
	struct bpf_link *link;
	struct scx_iso_tune t;
	__u32 zero = 0;
	__u64 ecode;
	int c, rc;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': dir = optarg; break;
		case 'c':
			if (parse_u32(optarg, 1, 100, &iso_cpu) < 0) {
				fprintf(stderr, "scx_iso: --iso-cpu: 1..100\n");
				return 1;
			}
			break;
		case 'P':
			if (parse_u32(optarg, 1, 3600000, &period) < 0) {
				fprintf(stderr, "scx_iso: --iso-period-ms: 1..3600000\n");
				return 1;
			}
			break;
		case 'd': do_dump = true; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	if (strlen(dir) + 16 >= PATH_MAX) {
		fprintf(stderr, "scx_iso: --pin-dir too long\n");
		return 1;
	}
	libbpf_set_print(print_fn);
	if (do_dump)
		return dump(dir);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_signal);
restart:
	skel = SCX_OPS_OPEN(iso_ops, scx_iso);
	c = libbpf_num_possible_cpus();
	if (c < 1 || c > SCX_ISO_MAX_CPUS) {
		fprintf(stderr, "scx_iso: %d possible CPUs, supported 1..%d\n", c, SCX_ISO_MAX_CPUS);
		scx_iso__destroy(skel);
		return 1;
	}
	skel->rodata->nr_cpus = (__u32)c;
	SCX_OPS_LOAD(skel, iso_ops, scx_iso, uei);
	t = (struct scx_iso_tune){ .iso_cpu = iso_cpu, .iso_period_ms = period };
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.tune), &zero, &t, BPF_ANY) < 0 ||
	    (rc = pin_all(skel, dir)) < 0) {
		fprintf(stderr, "scx_iso: cannot set up the maps in %s: %s (is bpffs mounted?)\n",
			dir, strerror(errno));
		unpin_all(dir);
		scx_iso__destroy(skel);
		return 1;
	}
	link = SCX_OPS_ATTACH(skel, iso_ops, scx_iso);
	printf("scx_iso: attached, maps in %s, iso_cpu %u%% over %u ms\n", dir, iso_cpu, period);
	fflush(stdout);

	while (!exit_req && !UEI_EXITED(skel, uei)) {
		if (fail_req) {
			skel->bss->fail_now = 1;
			fail_req = 0;
		}
		usleep(100000);
	}
	/* unpin first: isod must see the maps gone with the scheduler */
	unpin_all(dir);
	bpf_link__destroy(link);
	ecode = UEI_REPORT(skel, uei);
	rc = UEI_EXITED(skel, uei) && !exit_req ? 2 : 0;
	scx_iso__destroy(skel);
	if (UEI_ECODE_RESTART(ecode) && !exit_req)
		goto restart;
	return rc;
}
