/* isoctl doctor's checks on fixture trees: each test writes the proc/,
 * sys/, boot/ and etc/ files of the machine it describes into a temp dir
 * and runs the checks with that dir as their root. Nothing here reads
 * the real /proc or /sys, asks isod or touches the D-Bus. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "doctor.h"

struct fixture {
	char root[64];
	struct doc_ctx ctx;
	struct doc_report rep;
};

/* Write ROOT/rel (creating its directories) with printf-formatted text. */
static void put(const struct fixture *f, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(const struct fixture *f, const char *rel, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	for (char *s = path + strlen(f->root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(fp), 0);
}

/* A plain 6.18 machine: no PREEMPT_RT, no threadirqs, no sched_ext. */
#define BASE_CONFIG \
	"CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_HIGH_RES_TIMERS=y\n" \
	"CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n"
#define LIMITS(rtprio, rttime, memlock) \
	"Limit                     Soft Limit           Hard Limit           Units     \n" \
	"Max locked memory         " memlock "             " memlock "             bytes     \n" \
	"Max realtime priority     " rtprio "                    " rtprio "                    \n" \
	"Max realtime timeout      " rttime "            " rttime "            us        \n"

static void rm_rel(const struct fixture *f, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	assert_int_equal(unlink(path), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->root, sizeof(f->root), "/tmp/doctor-test.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	put(f, "/proc/sys/kernel/osrelease", "6.18.0-test\n");
	put(f, "/proc/cmdline", "root=/dev/vda1 quiet -- init-arg threadirqs\n");
	put(f, "/boot/config-6.18.0-test", BASE_CONFIG);
	put(f, "/proc/self/limits", LIMITS("0", "unlimited", "unlimited"));
	f->ctx.uid = 1000;
	f->ctx.band_lo = 10;
	f->ctx.band_hi = 40;
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	doc_ctx_free(&f->ctx);
	doc_report_free(&f->rep);
	nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Load the context from the tree as written so far (keeping uid, band,
 * isod and conf set by the test). */
static struct doc_ctx *load(struct fixture *f)
{
	doc_ctx_free(&f->ctx);
	doc_report_free(&f->rep);
	doc_ctx_load(&f->ctx, f->root);
	return &f->ctx;
}

static const struct doc_item *item(struct fixture *f, const char *group, const char *name)
{
	const struct doc_item *it = doc_find(&f->rep, group, name);

	if (!it)
		fail_msg("no item %s/%s", group, name);
	return it;
}

#define assert_verdict(f, g, n, v) assert_string_equal(doc_verdict_name(item(f, g, n)->verdict), \
							      doc_verdict_name(v))
#define assert_found(f, g, n, s) assert_non_null(strstr(item(f, g, n)->found, s))
#define assert_fix(f, g, n, s) assert_non_null(strstr(item(f, g, n)->fix, s))

static void test_parsers(void **state)
{
	char v[32];
	long sorted[100];

	(void)state;
	assert_string_equal(doc_kconfig("CONFIG_A=y\nCONFIG_HZ=300\n", "CONFIG_HZ", v, sizeof(v)), "300");
	assert_null(doc_kconfig("# CONFIG_HZ is not set\nCONFIG_HZ_1000=y\n", "CONFIG_HZ", v, sizeof(v)));
	assert_string_equal(doc_kconfig("CONFIG_S=\"abc\"\n", "CONFIG_S", v, sizeof(v)), "abc");
	assert_true(doc_cmdline_has("quiet threadirqs x=1", "threadirqs", NULL, 0));
	assert_false(doc_cmdline_has("quiet nothreadirqs", "threadirqs", NULL, 0));
	assert_false(doc_cmdline_has("quiet threadirqs=1", "threadirqs", NULL, 0));
	assert_true(doc_cmdline_has("a preempt=full b", "preempt", v, sizeof(v)));
	assert_string_equal(v, "full");
	/* after "--" the words are init's, not the kernel's */
	assert_false(doc_cmdline_has("quiet -- threadirqs", "threadirqs", NULL, 0));
	assert_true(doc_irq_is_audio("irq/35-snd_hda_"));
	assert_true(doc_irq_is_audio("irq/42-xhci_hcd"));
	assert_false(doc_irq_is_audio("irq/24-ACPI:Ged"));
	for (int i = 0; i < 100; i++)
		sorted[i] = i + 1;
	assert_int_equal(doc_percentile(sorted, 100, 50), 50);
	assert_int_equal(doc_percentile(sorted, 100, 99), 99);
	assert_int_equal(doc_percentile(sorted, 1, 99), 1);
	assert_int_equal(doc_percentile(sorted, 0, 99), 0);
}

static void test_kernel_without_sched_ext(void **state)
{
	struct fixture *f = *state;

	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "version", DOC_INFO);
	assert_found(f, "kernel", "version", "6.18.0-test");
	assert_verdict(f, "kernel", "sched_ext", DOC_INFO);
	assert_found(f, "kernel", "sched_ext", "not available");
	/* sched_ext there, nothing loaded; then scx_iso; then another */
	put(f, "/sys/kernel/sched_ext/state", "disabled\n");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "sched_ext", DOC_OK);
	assert_found(f, "kernel", "sched_ext", "no scheduler loaded");
	put(f, "/sys/kernel/sched_ext/state", "enabled\n");
	put(f, "/sys/kernel/sched_ext/root/ops", "iso\n");
	doc_check_kernel(&f->rep, load(f));
	assert_found(f, "kernel", "sched_ext", "scx_iso loaded");
	put(f, "/sys/kernel/sched_ext/root/ops", "rustland\n");
	doc_check_kernel(&f->rep, load(f));
	assert_found(f, "kernel", "sched_ext", "'rustland'");
}

static void test_preempt_and_hz(void **state)
{
	struct fixture *f = *state;

	/* dynamic kernel, voluntary by default: WARN, fixed on the cmdline */
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_WARN);
	assert_found(f, "kernel", "preempt", "voluntary");
	assert_fix(f, "kernel", "preempt", "preempt=full");
	assert_verdict(f, "kernel", "hz", DOC_OK);
	assert_found(f, "kernel", "hz", "HZ=250");
	put(f, "/proc/cmdline", "quiet preempt=full\n");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_OK);
	/* debugfs wins over the configuration */
	put(f, "/sys/kernel/debug/sched/preempt", "(none) voluntary full lazy\n");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_WARN);
	assert_found(f, "kernel", "preempt", "none preemption");
	rm_rel(f, "/sys/kernel/debug/sched/preempt");
	/* not dynamic: a different kernel is the fix; RT is OK; no HRT WARNs */
	put(f, "/boot/config-6.18.0-test", "CONFIG_HZ=100\nCONFIG_PREEMPT_NONE=y\n");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_WARN);
	assert_fix(f, "kernel", "preempt", "linux-image-rt");
	assert_verdict(f, "kernel", "hz", DOC_WARN);
	put(f, "/boot/config-6.18.0-test", "CONFIG_PREEMPT_RT=y\nCONFIG_HIGH_RES_TIMERS=y\n");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_OK);
	assert_found(f, "kernel", "preempt", "PREEMPT_RT");
	/* nothing readable */
	rm_rel(f, "/boot/config-6.18.0-test");
	doc_check_kernel(&f->rep, load(f));
	assert_verdict(f, "kernel", "preempt", DOC_SKIP);
	assert_verdict(f, "kernel", "hz", DOC_SKIP);
}

static void test_config_gz(void **state)
{
	struct fixture *f = *state;
	char path[512];
	gzFile gz;

	put(f, "/proc/.keep", "\n");
	snprintf(path, sizeof(path), "%s/proc/config.gz", f->root);
	assert_non_null(gz = gzopen(path, "wb"));
	assert_true(gzputs(gz, "CONFIG_HZ=1000\nCONFIG_HIGH_RES_TIMERS=y\nCONFIG_PREEMPT=y\n") > 0);
	assert_int_equal(gzclose(gz), Z_OK);
	doc_check_kernel(&f->rep, load(f));
	assert_string_equal(f->ctx.kconfig_src, "/proc/config.gz");
	assert_found(f, "kernel", "hz", "HZ=1000");
	assert_verdict(f, "kernel", "preempt", DOC_OK);
}

static void test_rt_group_sched(void **state)
{
	struct fixture *f = *state;

	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_group", DOC_OK);
	put(f, "/boot/config-6.18.0-test", BASE_CONFIG "CONFIG_RT_GROUP_SCHED=y\n");
	put(f, "/proc/self/cgroup", "0::/user.slice/user-1000.slice/session-2.scope\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_group", DOC_WARN);
	assert_found(f, "kernel", "rt_group", "EPERM");
	assert_fix(f, "kernel", "rt_group", "cpu.rt_runtime_us");
	/* cgroup v1 with no RT time for the session: every grant fails */
	put(f, "/proc/self/cgroup", "3:cpu,cpuacct:/user.slice\n0::/user.slice\n");
	put(f, "/sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.rt_runtime_us", "0\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_group", DOC_FAIL);
	put(f, "/sys/fs/cgroup/cpu,cpuacct/user.slice/cpu.rt_runtime_us", "950000\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_group", DOC_WARN);
	assert_found(f, "kernel", "rt_group", "950000");
	/* switched off at boot */
	put(f, "/proc/cmdline", "quiet rt_group_sched=0\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_group", DOC_OK);
}

static void test_throttling_and_fair_server(void **state)
{
	struct fixture *f = *state;

	put(f, "/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	put(f, "/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_throttle", DOC_OK);
	assert_found(f, "kernel", "rt_throttle", "95 %");
	assert_verdict(f, "kernel", "fair_server", DOC_SKIP);
	put(f, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	put(f, "/sys/kernel/debug/sched/fair_server/cpu0/runtime", "50000000\n");
	put(f, "/sys/kernel/debug/sched/fair_server/cpu0/period", "1000000000\n");
	put(f, "/sys/kernel/debug/sched/fair_server/cpu1/runtime", "50000000\n");
	put(f, "/sys/kernel/debug/sched/fair_server/cpu1/period", "1000000000\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "rt_throttle", DOC_WARN);
	assert_fix(f, "kernel", "rt_throttle", "sched_rt_runtime_us=950000");
	assert_verdict(f, "kernel", "fair_server", DOC_OK);
	assert_found(f, "kernel", "fair_server", "on 2 CPUs: 50.0 ms of every 1000.0 ms");
	put(f, "/sys/kernel/debug/sched/fair_server/cpu1/runtime", "0\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "fair_server", DOC_WARN);
	assert_found(f, "kernel", "fair_server", "cpu1");
	/* before 6.12 there is none to look for */
	put(f, "/proc/sys/kernel/osrelease", "6.6.30\n");
	doc_check_rt_protection(&f->rep, load(f));
	assert_verdict(f, "kernel", "fair_server", DOC_INFO);
}

/* An IRQ thread's /proc/PID/stat: policy (field 41), rt_priority (40). */
static void put_irq(struct fixture *f, int pid, const char *comm, int policy, int prio)
{
	char rel[64], fields[512] = "";

	/* fields 3..39 */
	strcat(fields, "S");
	for (int i = 4; i <= 39; i++)
		strcat(fields, " 0");
	snprintf(rel, sizeof(rel), "/proc/%d/stat", pid);
	put(f, rel, "%d (%s) %s %d %d 0 0 0\n", pid, comm, fields, prio, policy);
}

static void test_irq_thread_below_band(void **state)
{
	struct fixture *f = *state;

	put_irq(f, 120, "irq/24-ACPI:Ged", 1, 50);
	put_irq(f, 131, "irq/35-snd_hda_", 1, 30);
	put_irq(f, 140, "irq/42-xhci_hcd", 1, 85);
	put(f, "/proc/131/comm", "irq/35-snd_hda_\n");
	doc_check_irqs(&f->rep, load(f));
	/* the card's thread at 30 is inside the band 10..40 */
	for (size_t i = 0; i < f->rep.n; i++) {
		const struct doc_item *it = &f->rep.items[i];

		if (strcmp(it->name, "audio_irq"))
			continue;
		if (strstr(it->found, "snd_hda")) {
			assert_int_equal(it->verdict, DOC_FAIL);
			assert_non_null(strstr(it->fix, "chrt -f -p 90 131"));
		} else {
			assert_non_null(strstr(it->found, "xhci"));
			assert_int_equal(it->verdict, DOC_OK);
		}
	}
	assert_found(f, "irq", "irq_threads", "3 IRQ threads at priorities 30..85");
	/* isod's own band says where "below" is: with band 5..20 it is fine */
	f->ctx.band_lo = 5;
	f->ctx.band_hi = 20;
	f->ctx.band_from_isod = true;
	doc_report_free(&f->rep);
	doc_check_irqs(&f->rep, &f->ctx);
	assert_verdict(f, "irq", "audio_irq", DOC_OK);
	/* SCHED_OTHER is below any band */
	put_irq(f, 131, "irq/35-snd_hda_", 0, 0);
	doc_report_free(&f->rep);
	doc_check_irqs(&f->rep, &f->ctx);
	assert_verdict(f, "irq", "audio_irq", DOC_FAIL);
	assert_found(f, "irq", "audio_irq", "SCHED_OTHER");
}

static void test_threadirqs(void **state)
{
	struct fixture *f = *state;

	/* the base cmdline has threadirqs only after "--" */
	doc_check_irqs(&f->rep, load(f));
	assert_verdict(f, "irq", "threadirqs", DOC_WARN);
	assert_fix(f, "irq", "threadirqs", "threadirqs");
	assert_verdict(f, "irq", "irq_threads", DOC_INFO);
	put(f, "/proc/cmdline", "quiet threadirqs\n");
	doc_check_irqs(&f->rep, load(f));
	assert_verdict(f, "irq", "threadirqs", DOC_OK);
	put(f, "/proc/cmdline", "quiet\n");
	put(f, "/boot/config-6.18.0-test", "CONFIG_PREEMPT_RT=y\n");
	doc_check_irqs(&f->rep, load(f));
	assert_verdict(f, "irq", "threadirqs", DOC_OK);
}

static void test_user_with_rtprio_95(void **state)
{
	struct fixture *f = *state;

	doc_check_limits(&f->rep, load(f));
	assert_verdict(f, "limits", "rtprio", DOC_OK);
	assert_verdict(f, "limits", "rttime", DOC_OK);
	assert_verdict(f, "limits", "memlock", DOC_OK);
	put(f, "/proc/self/limits", LIMITS("95", "200000", "8388608"));
	put(f, "/etc/security/limits.conf", "# @audio - rtprio 99\n");
	put(f, "/etc/security/limits.d/audio.conf", "@audio   -  rtprio     95\n@audio - memlock unlimited\n");
	doc_check_limits(&f->rep, load(f));
	assert_verdict(f, "limits", "rtprio", DOC_WARN);
	assert_found(f, "limits", "rtprio", "bypassing isod's budget");
	assert_found(f, "limits", "rtprio", "/etc/security/limits.d/audio.conf: @audio - rtprio 95");
	assert_null(strstr(item(f, "limits", "rtprio")->found, "rtprio 99")); /* a comment */
	assert_verdict(f, "limits", "rttime", DOC_WARN);
	assert_found(f, "limits", "rttime", "200000 us");
	assert_verdict(f, "limits", "memlock", DOC_WARN);
	/* root bypasses anyway: a fact, not a fault */
	f->ctx.uid = 0;
	doc_report_free(&f->rep);
	doc_check_limits(&f->rep, &f->ctx);
	assert_verdict(f, "limits", "rtprio", DOC_INFO);
}

static void test_allow_groups(void **state)
{
	struct fixture *f = *state;
	struct doc_ctx *c;

	doc_check_limits(&f->rep, load(f));
	assert_verdict(f, "limits", "allowed", DOC_SKIP);
	put(f, "/etc/group", "root:x:0:\naudio:x:29:alice\nusers:x:100:\n");
	put(f, "/etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:100::/home/alice:/bin/sh\n");
	put(f, "/proc/self/status", "Name:\tisoctl\nUid:\t1000\t1000\t1000\t1000\n"
				    "Gid:\t100\t100\t100\t100\nGroups:\t100 \n");
	c = load(f);
	c->conf.allow_known = true;
	snprintf(c->conf.allow_groups, sizeof(c->conf.allow_groups), "audio");
	doc_check_limits(&f->rep, c);
	assert_verdict(f, "limits", "allowed", DOC_FAIL);
	assert_fix(f, "limits", "allowed", "usermod -aG audio alice");
	put(f, "/proc/self/status", "Name:\tisoctl\nUid:\t1000\t1000\t1000\t1000\n"
				    "Gid:\t100\t100\t100\t100\nGroups:\t29 100 \n");
	doc_report_free(&f->rep);
	doc_check_limits(&f->rep, c);
	assert_verdict(f, "limits", "allowed", DOC_OK);
	assert_found(f, "limits", "allowed", "group audio");
	/* named in allow_users instead */
	put(f, "/proc/self/status", "Uid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\nGroups:\t\n");
	snprintf(c->conf.allow_users, sizeof(c->conf.allow_users), "bob,alice");
	doc_report_free(&f->rep);
	doc_check_limits(&f->rep, c);
	assert_verdict(f, "limits", "allowed", DOC_OK);
	c->conf.allow_users[0] = c->conf.allow_groups[0] = '\0';
	doc_report_free(&f->rep);
	doc_check_limits(&f->rep, c);
	assert_found(f, "limits", "allowed", "every user");
}

static void test_power(void **state)
{
	struct fixture *f = *state;

	put(f, "/sys/devices/system/cpu/online", "0-1\n");
	doc_check_power(&f->rep, load(f));
	assert_verdict(f, "power", "governor", DOC_SKIP);
	assert_verdict(f, "power", "idle", DOC_INFO);
	assert_verdict(f, "power", "swap", DOC_SKIP);
	put(f, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put(f, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state0/latency", "0\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state1/name", "C6\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state1/latency", "170\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "0\n");
	put(f, "/proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/vda2 partition 1048572 0 -2\n");
	put(f, "/proc/sys/vm/swappiness", "60\n");
	doc_check_power(&f->rep, load(f));
	assert_verdict(f, "power", "governor", DOC_WARN);
	assert_found(f, "power", "governor", "powersave on 1 of 2 CPUs");
	assert_fix(f, "power", "governor", "performance");
	assert_verdict(f, "power", "idle", DOC_WARN);
	assert_found(f, "power", "idle", "C6 exits in 170 us");
	assert_verdict(f, "power", "swap", DOC_WARN);
	assert_fix(f, "power", "swap", "vm.swappiness=10");
	put(f, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	put(f, "/sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "1\n");
	put(f, "/proc/sys/vm/swappiness", "10\n");
	doc_check_power(&f->rep, load(f));
	assert_verdict(f, "power", "governor", DOC_OK);
	assert_verdict(f, "power", "idle", DOC_OK);
	assert_verdict(f, "power", "swap", DOC_OK);
}

static void test_isod(void **state)
{
	struct fixture *f = *state;
	struct doc_ctx *c = load(f);

	/* unreachable: FAIL, and the IRQ checks fall back to the default band */
	c->isod.err = -ECONNREFUSED;
	snprintf(c->isod.socket, sizeof(c->isod.socket), "/tmp/x.sock");
	snprintf(c->isod.message, sizeof(c->isod.message), "Connection refused");
	doc_check_isod(&f->rep, c);
	assert_verdict(f, "isod", "isod", DOC_FAIL);
	assert_fix(f, "isod", "isod", "ISOSCHED_SOCKET");
	assert_int_equal(c->band_hi, 40);
	assert_false(c->band_from_isod);
	assert_int_equal(doc_worst(&f->rep), DOC_FAIL);
	/* answering, refractory, its own band */
	c->isod.err = 0;
	c->isod.st = (struct iso_status_info){ .iso_cpu = 70, .iso_period_s = 5, .band_lo = 20,
		.band_hi = 30, .usage_milli = 75000, .refractory = 1, .ncpus = 2, .sample_us = 10000 };
	doc_report_free(&f->rep);
	doc_check_isod(&f->rep, c);
	assert_verdict(f, "isod", "isod", DOC_OK);
	assert_found(f, "isod", "isod", "band 20..30");
	assert_verdict(f, "isod", "budget", DOC_WARN);
	assert_found(f, "isod", "backend", "kernel-rt");
	assert_int_equal(c->band_hi, 30);
	assert_true(c->band_from_isod);
	assert_int_equal(doc_worst(&f->rep), DOC_WARN);
}

static void test_find_isod(void **state)
{
	struct fixture *f = *state;
	struct doc_isod_conf o;
	const char cmd[] = "isod\0--socket\0/tmp/a.sock\0--allow-users=alice\0-c\0/etc/iso.conf";

	put(f, "/proc/77/comm", "isod\n");
	put(f, "/proc/88/comm", "bash\n");
	put(f, "/etc/iso.conf", "# test\n[isod]\nallow_groups = audio, video\nbackend=kernel-rt\n"
				"[other]\nallow_groups = nope\n");
	{
		char path[512];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/proc/77/cmdline", f->root);
		assert_non_null(fp = fopen(path, "w"));
		fwrite(cmd, 1, sizeof(cmd), fp);
		fclose(fp);
	}
	doc_find_isod(load(f), "/tmp/a.sock", &o);
	assert_int_equal(o.pid, 77);
	assert_true(o.conf_read);
	assert_true(o.allow_known);
	assert_string_equal(o.allow_groups, "audio, video");
	assert_string_equal(o.allow_users, "alice");
	assert_string_equal(o.backend, "kernel-rt");
	/* another socket: not that isod; the default file is missing, so
	 * the built-in defaults apply */
	doc_find_isod(&f->ctx, ISO_DEFAULT_SOCKET, &o);
	assert_int_equal(o.pid, 0);
	assert_true(o.allow_known);
	assert_string_equal(o.allow_groups, "");
}

static int owner_rtkit(const char *name) { (void)name; return 55; }
static int owner_none(const char *name) { (void)name; return -ENOENT; }

static void test_rtkit(void **state)
{
	struct fixture *f = *state;
	struct doc_ctx *c;

	doc_check_rtkit(&f->rep, load(f));
	assert_verdict(f, "isod", "rtkit", DOC_SKIP);
	put(f, "/proc/55/comm", "rtkit-daemon\n");
	c = load(f);
	doc_check_rtkit(&f->rep, c);
	assert_verdict(f, "isod", "rtkit", DOC_WARN);
	assert_found(f, "isod", "rtkit", "pid 55");
	c->bus_owner = owner_rtkit;
	doc_report_free(&f->rep);
	doc_check_rtkit(&f->rep, c);
	assert_verdict(f, "isod", "rtkit", DOC_WARN);
	assert_found(f, "isod", "rtkit", "owned by rtkit-daemon (pid 55)");
	assert_fix(f, "isod", "rtkit", "systemctl mask --now rtkit-daemon");
	c->bus_owner = owner_none;
	doc_report_free(&f->rep);
	doc_check_rtkit(&f->rep, c);
	assert_verdict(f, "isod", "rtkit", DOC_INFO);
}

static void test_report(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	size_t len = 0;
	FILE *fp;

	doc_add(&f->rep, "irq", "audio_irq", DOC_FAIL, "chrt -f -p 90 1", "a \"quoted\"\\ \x01 name");
	doc_add(&f->rep, "power", "swap", DOC_OK, NULL, "fine");
	f->rep.selftest_run = true;
	f->rep.iso = (struct doc_latency){ true, 5000, 12, 40, 90 };
	assert_non_null(fp = open_memstream(&out, &len));
	doc_print_json(fp, &f->rep, "0.1.0");
	fclose(fp);
	assert_non_null(strstr(out, "\"found\":\"a \\\"quoted\\\"\\\\ \\u0001 name\""));
	assert_non_null(strstr(out, "\"iso\":{\"samples\":5000,\"p50_us\":12,\"p99_us\":40,\"max_us\":90}"));
	assert_non_null(strstr(out, "\"other\":null"));
	assert_non_null(strstr(out, "\"summary\":{\"ok\":1,\"warn\":0,\"fail\":1,"));
	free(out);
	assert_non_null(fp = open_memstream(&out, &len));
	doc_print_text(fp, &f->rep);
	fclose(fp);
	assert_non_null(strstr(out, "irq\n  FAIL  audio_irq"));
	assert_non_null(strstr(out, "\n                     fix: chrt -f -p 90 1\n"));
	free(out);
	assert_int_equal(doc_worst(&f->rep), DOC_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
		cmocka_unit_test_setup_teardown(test_kernel_without_sched_ext, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preempt_and_hz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_gz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rt_group_sched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_throttling_and_fair_server, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_thread_below_band, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threadirqs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_with_rtprio_95, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power, setup, teardown),
		cmocka_unit_test_setup_teardown(test_isod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_isod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtkit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
