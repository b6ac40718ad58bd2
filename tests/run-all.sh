#!/usr/bin/env bash
# The whole test suite, as CI runs it (README: "Test"): a gcc -Werror build
# with unit and integration tests, a clang -Werror build, the unit tests
# under ASan/UBSan and under valgrind, scx_iso under QEMU, and the Debian
# packages on a booted Debian 12 (tests/system). Needs root for the integration tests
# (they start isod and switch to user nobody themselves).
# Prints a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=${ISOSCHED_TEST_DIR:-$src/build-test}
passed=0
failed=0

count() { # count LOGFILE: add meson's Ok/Fail/Timeout totals
	local ok fl to
	ok=$(awk '/^Ok:/{print $2}' "$1" | tail -n1)
	fl=$(awk '/^Fail:/{print $2}' "$1" | tail -n1)
	to=$(awk '/^Timeout:/{print $2}' "$1" | tail -n1)
	passed=$((passed + ${ok:-0}))
	failed=$((failed + ${fl:-0} + ${to:-0}))
}

step() { # step NAME CMD...: run quietly, show the output and count a failure if it fails
	local log
	echo "=== $1"
	shift
	log=$(mktemp)
	if ! "$@" >"$log" 2>&1; then
		tail -n 60 "$log"
		echo "=== FAILED: $*"
		failed=$((failed + 1))
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}

mtest() { # mtest NAME BUILDDIR [meson test args]: run and count
	local name=$1 dir=$2 log
	shift 2
	log=$(mktemp)
	echo "=== $name"
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	if ! grep -q '^Ok:' "$log"; then
		failed=$((failed + 1))
	fi
	count "$log"
	rm -f "$log"
}

# guest_tests TAG CMD...: run a QEMU test runner and count the closing
# "TAG tests: N passed, M failed" line it prints; 77 is a skip (the runner
# said why), no closing line or a failed runner with no failure counted
# is one failure
guest_tests() {
	local tag=$1 log rc res
	shift
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	res=$(grep "^$tag tests: [0-9]* passed" "$log" | tail -n1)
	if [ "$rc" = 77 ]; then
		:
	elif [ -n "$res" ]; then
		set -- $res
		passed=$((passed + $3))
		failed=$((failed + $5))
		[ "$rc" = 0 ] || [ "$5" -gt 0 ] || failed=$((failed + 1))
	else
		failed=$((failed + 1))
	fi
	rm -f "$log"
}

rm -rf "$out"
mkdir -p "$out"

# the gcc build carries the BPF accounting (-Dbpf=enabled: libbpf-dev,
# bpftool and clang from install-deps.sh, the kernel's BTF); the clang
# build is the one without it (-Dbpf=disabled), so both paths compile
if step "gcc build (-Werror)" meson setup "$out/gcc" -Dwerror=true -Dtests=enabled -Dbpf=enabled &&
   step "gcc compile" ninja -C "$out/gcc"; then
	mtest "unit + integration tests (gcc)" "$out/gcc" --num-processes 2
	# Again with isod confined as packaging/isod.service.in confines it
	# (capabilities, no_new_privs, LimitNOFILE, read-only file system:
	# tests/integration/unit_confine.sh): the daemon suite and the
	# hardening tests of suite 'confined' (every abuse and fault test but
	# fault_churn; scale and soak would add minutes without exercising
	# anything the confinement changes). About 4 minutes: the daemon suite
	# ~80 s, those hardening tests ~160 s (the whole hardening suite with
	# scale, soak and fault_churn would add as much again).
	mtest "daemon + hardening tests, isod confined as the unit (gcc)" "$out/gcc" \
		--setup unit --suite confined
fi

if step "clang build (-Werror, -Dbpf=disabled)" env CC=clang meson setup "$out/clang" -Dwerror=true -Dtests=enabled -Dbpf=disabled; then
	step "clang compile" ninja -C "$out/clang" && passed=$((passed + 1))
fi

if step "ASan/UBSan build" meson setup "$out/asan" -Dwerror=true -Dtests=enabled \
	-Db_sanitize=address,undefined -Db_lundef=false &&
   step "ASan/UBSan compile" ninja -C "$out/asan"; then
	# the unit tests and the daemon's integration suites: the real isod
	# under ASan/UBSan serving real clients. Every report goes to a file
	# (the clients run as nobody: the directory is world-writable).
	san=$out/sanitizer-reports
	mkdir -p "$san"
	chmod 1777 "$san"
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$san/ubsan \
	ASAN_OPTIONS=detect_leaks=1:log_path=$san/asan \
		mtest "unit, daemon, hardening, escape and rtkit tests under ASan/UBSan" "$out/asan" \
		--suite unit --suite daemon --suite hardening --suite escape --suite rtkit --no-suite timing
	echo "=== sanitizer reports"
	if [ -n "$(ls -A "$san")" ]; then
		head -n 80 "$san"/*
		echo "=== FAILED: sanitizer reports above"
		failed=$((failed + 1))
	else
		echo "none"
		passed=$((passed + 1))
	fi
fi

if command -v valgrind >/dev/null && [ -d "$out/gcc" ]; then
	mtest "unit tests under valgrind" "$out/gcc" --suite unit \
		--wrapper 'valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect'
fi

# libFuzzer: the request parser + dispatcher and the input parsers, each
# for a bounded time from the seed corpus (copied: the repo stays clean).
fuzz_secs=${ISOSCHED_FUZZ_SECONDS:-60}
if step "fuzz build (clang, libFuzzer)" env CC=clang meson setup "$out/fuzz" -Dfuzz=true \
	-Dwerror=true -Db_lundef=false &&
   step "fuzz compile" ninja -C "$out/fuzz" tests/fuzz/fuzz_proto tests/fuzz/fuzz_input tests/fuzz/fuzz_rtkit; then
	for t in proto input rtkit; do
		mkdir -p "$out/corpus-$t"
		cp "$src/tests/fuzz/corpus/$t/"* "$out/corpus-$t/"
		if step "fuzz $t for ${fuzz_secs}s" "$out/fuzz/tests/fuzz/fuzz_$t" \
			-max_total_time="$fuzz_secs" -max_len=20000 -print_final_stats=1 "$out/corpus-$t"; then
			passed=$((passed + 1))
		fi
	done
fi

# Debian 12's kernel series (6.1: no PIDFD_THREAD, no sched_ext, no fair
# server) under QEMU (TCG): the daemon suite, and the escape suite if the
# build has one, on the gcc build (tests/kernel61/run.sh; docs/kernel61.md).
# Skips, counting nothing, where qemu, busybox or the kernel is missing.
if [ -x "$out/gcc/src/daemon/isod" ]; then
	echo "=== daemon suite on the 6.1 kernel under QEMU"
	log=$(mktemp)
	bash tests/kernel61/run.sh "$out/gcc" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 77 ]; then # 77: run.sh printed why it skipped
		count "$log"
		# a guest that did not finish has no meson summary: one failure
		if [ "$rc" != 0 ] && ! grep -qE '^(Fail|Timeout): +[1-9]' "$log"; then
			failed=$((failed + 1))
		fi
	fi
	rm -f "$log"
fi

# sched_ext backend (docs/scx.md): build scx_iso against the Debian
# linux-source-6.12 tree (deps cached outside $out: ~30 s the first time)
# and run its tests and isod's on it in the test kernel under QEMU (TCG).
# Skips, counting nothing, where the packages or qemu are missing.
scx_deps=${ISOSCHED_SCX_DEPS:-$src/build-scx-deps}
echo "=== scx_iso under QEMU"
bash scripts/build-scx-deps.sh "$scx_deps" >/dev/null 2>&1
case $? in
0)
	if step "scx build (-Dscx=enabled)" meson setup "$out/scx" -Dwerror=true -Dtests=enabled \
		-Dscx=enabled -Dscx_deps="$scx_deps" &&
	   step "scx compile" ninja -C "$out/scx"; then
		guest_tests scx bash tests/scx/run.sh "$out/scx"
	fi
	;;
77) echo "scx tests SKIPPED: scripts/build-scx-deps.sh: dependencies missing (scripts/install-deps.sh --scx)";;
*) echo "=== FAILED: scripts/build-scx-deps.sh $scx_deps"; failed=$((failed + 1));;
esac

# The installed product (tests/system): the Debian packages built with
# dpkg-buildpackage and checked by lintian, then installed into a Debian 12
# root filesystem (debootstrap, cached in ISOSCHED_CACHE, default
# /var/cache/isosched-test: ~3 min the first time), booted with systemd
# under QEMU (TCG) on Debian 12's kernel series, and checked from inside.
# Skips, counting nothing, where dpkg-dev/debhelper, qemu or debootstrap
# cannot run.
echo "=== Debian packages (dpkg-buildpackage, lintian)"
t_sys=$(date +%s)
bash tests/system/build-debs.sh "$out/debs"
case $? in
0)
	passed=$((passed + 1))
	echo "=== system test: the packages on Debian 12 with systemd under QEMU"
	guest_tests system bash tests/system/run.sh "$out/debs"
	echo "=== system test step: $(($(date +%s) - t_sys)) s"
	;;
77) echo "system test SKIPPED: cannot build Debian packages (scripts/install-deps.sh)";;
*) echo "=== FAILED: tests/system/build-debs.sh (log: $out/debs/build.log, $out/debs/lintian.log)"
   failed=$((failed + 1));;
esac

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
