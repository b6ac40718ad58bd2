/* isoctl doctor's isod, rtkit, limits and power checks and its report, on
 * fixture trees (doctor_fixture.h): nothing here reads the real /proc or
 * /sys, asks isod or touches the D-Bus. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "doctor_fixture.h"

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
	assert_verdict(f, "isod", "version", DOC_INFO);
	/* what isod's configuration says about who may enter ISO */
	assert_verdict(f, "isod", "config", DOC_SKIP);
	c->conf.allow_known = true;
	snprintf(c->conf.allow_groups, sizeof(c->conf.allow_groups), "audio");
	doc_report_free(&f->rep);
	doc_check_isod(&f->rep, c);
	assert_found(f, "isod", "config", "allow_users - and allow_groups audio");
	assert_int_equal(doc_worst(&f->rep), DOC_WARN);
	/* accounting: auto without BTF is /proc; bpf without BTF cannot
	 * start; bpf with BTF counts in the kernel */
	snprintf(c->conf.accounting, sizeof(c->conf.accounting), "auto");
	doc_report_free(&f->rep);
	doc_check_isod(&f->rep, c);
	assert_verdict(f, "isod", "accounting", DOC_INFO);
	assert_found(f, "isod", "accounting", "proc (accounting = auto): this kernel has no BTF");
	snprintf(c->conf.accounting, sizeof(c->conf.accounting), "bpf");
	doc_report_free(&f->rep);
	doc_check_isod(&f->rep, c);
	assert_verdict(f, "isod", "accounting", DOC_FAIL);
	assert_fix(f, "isod", "accounting", "accounting = auto");
	put(f, "/sys/kernel/btf/vmlinux", "BTF");
	doc_report_free(&f->rep);
	doc_check_isod(&f->rep, c);
	assert_verdict(f, "isod", "accounting", DOC_INFO);
	assert_found(f, "isod", "accounting", "bpf (accounting = bpf)");
}

static void test_find_isod(void **state)
{
	struct fixture *f = *state;
	struct doc_isod_conf o;
	const char cmd[] = "isod\0--socket\0/tmp/a.sock\0--allow-users=alice\0-c\0/etc/iso.conf\0"
			   "--accounting=proc";

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
	assert_string_equal(o.accounting, "proc");
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
