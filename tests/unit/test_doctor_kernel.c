/* isoctl doctor's kernel and IRQ checks on fixture trees: each test writes
 * the proc/, sys/ and boot/ files of the machine it describes into a temp
 * dir and runs the checks with that dir as their root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "doctor_fixture.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_without_sched_ext, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preempt_and_hz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_gz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rt_group_sched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_throttling_and_fair_server, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_thread_below_band, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threadirqs, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
