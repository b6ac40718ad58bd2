#!/usr/bin/env bash
# The whole test suite, as CI runs it (README: "Test"). Needs root for the
# integration tests (they start isod and switch to user nobody themselves).
# Which suite runs in which configuration, and why: docs/testing.md.
#
# Two lanes run side by side, one per CPU of the 2-core test VM:
#   host   — the builds the host tests need and the tests themselves, one
#            after another (the integration tests are never parallel:
#            several look at every thread of the machine):
#            gcc (-O2, BPF): unit, preload, bench, install, the long
#              hardening tests; the desktop suite (a PipeWire session)
#              and the 'timing' tests confined as the unit;
#              the unit tests under valgrind;
#            ASan/UBSan (BPF): the unit tests, and the daemon, escape,
#              hardening, rtkit and reserve suites with isod confined exactly as
#              packaging/isod.service.in says, in one pass.
#            then the fuzzers, 60 s each, then the escape suite in a 6.1
#            guest (QEMU) of its own.
#   guests — what runs in QEMU (TCG: one host CPU each), longest first, and
#            the clang build: the daemon and reserve suites on Debian 12's
#            6.1 kernel (a guest each),
#            the .debs on a booted Debian 12, scx_iso on 6.12.
# At the end: a table of each step's wall time and the ten slowest tests,
# then the closing "N passed, N failed, N skipped" line. Under CI=true a
# suite that cannot run (a kernel image or package missing) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=${ISOSCHED_TEST_DIR:-$src/build-test}
source "$src/tests/runlib.sh"

rm -rf "$out"
mkdir -p "$out/logs"
RUN_LOGS=$out/logs
RUN_TIMES=$out/durations.tsv
: >"$RUN_TIMES"
RUN_LANE=host
t_all=$(date +%s)

# ---- the guests' lane (background; its output is printed at the end) ----
guests_lane() {
	local rc scx_deps=${ISOSCHED_SCX_DEPS:-$src/build-scx-deps}
	RUN_LANE=guests
	passed=0 failed=0 skipped=0 RUN_NOTES=()

	if step "clang build (-Werror, -Dbpf=disabled)" env CC=clang meson setup "$out/clang" \
		-Dwerror=true -Dtests=enabled -Dbpf=disabled &&
	   step "clang compile" ninja -C "$out/clang"; then
		passed=$((passed + 1))
	fi

	# Debian 12's kernel series (6.1: no PIDFD_THREAD, no sched_ext, no
	# fair server): the daemon suite on the gcc build (tests/kernel61/run.sh;
	# docs/kernel61.md); the escape suite's guest is the host lane's last step
	kernel61_suite "$out/gcc" daemon
	# the reservations' suite (SCHED_DEADLINE brokered by isod) on 6.1:
	# its kernel's DEADLINE rules (admission, affinity, no fair server)
	kernel61_suite "$out/gcc" reserve

	# The installed product (tests/system): the .debs built with
	# dpkg-buildpackage and checked by lintian, installed into a Debian 12
	# root filesystem (debootstrap, cached in ISOSCHED_CACHE, default
	# /var/cache/isosched-test: ~3 min the first time), booted with
	# systemd under QEMU on Debian 12's kernel series
	echo "=== Debian packages (dpkg-buildpackage, lintian)"
	new_log debs
	timed "Debian packages" bash tests/system/build-debs.sh "$out/debs" >"$RUN_LOG" 2>&1
	rc=$?
	case $rc in
	0)
		passed=$((passed + 1))
		guest_tests system "the packages on Debian 12 with systemd under QEMU" \
			bash tests/system/run.sh "$out/debs"
		;;
	77) unavailable "Debian packages and the system test" "cannot build Debian packages (scripts/install-deps.sh)";;
	*) tail -n 40 "$RUN_LOG"
	   echo "=== FAILED: tests/system/build-debs.sh (log: $out/debs/build.log, $out/debs/lintian.log)"
	   note "FAILED: Debian packages"
	   failed=$((failed + 1));;
	esac

	# sched_ext backend (docs/scx.md): scx_iso built against the Debian
	# linux-source-6.12 tree (deps cached outside $out: ~30 s the first
	# time), its tests and isod's on the 6.12 test kernel
	echo "=== scx_iso dependencies"
	new_log scx-deps
	timed "scx dependencies" bash scripts/build-scx-deps.sh "$scx_deps" >"$RUN_LOG" 2>&1
	rc=$?
	case $rc in
	0)
		if step "scx build (-Dscx=enabled)" meson setup "$out/scx" -Dwerror=true -Dtests=enabled \
			-Dscx=enabled -Dscx_deps="$scx_deps" &&
		   step "scx compile" ninja -C "$out/scx"; then
			guest_tests scx "scx_iso on 6.12 under QEMU" bash tests/scx/run.sh "$out/scx"
		fi
		;;
	77) unavailable "scx_iso on 6.12 under QEMU" "scripts/build-scx-deps.sh: dependencies missing (scripts/install-deps.sh --scx)";;
	*) tail -n 40 "$RUN_LOG"; echo "=== FAILED: scripts/build-scx-deps.sh $scx_deps"; note "FAILED: scx dependencies"; failed=$((failed + 1));;
	esac

	save_counts "$out/guests.counts"
}

# kernel61_suite BUILDDIR SUITE: one suite in a 6.1 guest of its own (one
# guest for all would run past its bound: ~15 min each under TCG)
kernel61_suite() {
	local log rc why name="$2 suite on the 6.1 kernel under QEMU"
	if [ ! -x "$1/src/daemon/isod" ]; then
		unavailable "$name" "no gcc build"
		return
	fi
	new_log "kernel61-$2"; log=$RUN_LOG
	echo "=== $name"
	# bound: 25 min (the daemon guest took 866 s beside the host lane of
	# December's first runs, 1081 s — past run.sh's default 18 min — once
	# the desktop and reserve suites joined the host lane)
	ISOSCHED_KERNEL61_SUITES=$2 ISOSCHED_KERNEL61_TIMEOUT=${ISOSCHED_KERNEL61_TIMEOUT:-1500} \
		timed "$name" bash tests/kernel61/run.sh "$1" >"$log" 2>&1
	rc=$?
	cat "$log"
	if [ "$rc" = 77 ]; then
		why=$(grep -m1 "SKIPPED:" "$log" | sed 's/.*SKIPPED: //')
		unavailable "$name" "${why:-tests/kernel61/run.sh exited 77}"
		return
	fi
	count_meson "$log" "$name"
	# a guest that did not finish has no failure counted: one failure
	if [ "$rc" != 0 ] && ! grep -qE '^(Fail|Timeout): +[1-9]' "$log"; then
		failed=$((failed + 1))
		note "FAILED: $name: exit $rc"
	fi
}

# the fuzzers (clang libFuzzer): the request parser + dispatcher and the
# input parsers, each for a bounded time from the seed corpus (copied: the
# repo stays clean)
fuzz_all() {
	local fuzz_secs=${ISOSCHED_FUZZ_SECONDS:-60} t
	if step "fuzz build (clang, libFuzzer)" env CC=clang meson setup "$out/fuzz" -Dfuzz=true \
		-Dwerror=true -Db_lundef=false &&
	   step "fuzz compile" ninja -C "$out/fuzz" tests/fuzz/fuzz_proto tests/fuzz/fuzz_input tests/fuzz/fuzz_rtkit; then
		for t in proto input rtkit; do
			mkdir -p "$out/corpus-$t"
			cp "$src/tests/fuzz/corpus/$t/"* "$out/corpus-$t/"
			step "fuzz $t for ${fuzz_secs}s" "$out/fuzz/tests/fuzz/fuzz_$t" \
				-max_total_time="$fuzz_secs" -max_len=20000 -print_final_stats=1 "$out/corpus-$t" &&
				passed=$((passed + 1))
		done
	fi
}

# desktop_missing BUILDDIR: print why the desktop suite cannot run here
# (a program or the JACK client missing: scripts/install-deps.sh), status
# 0; status 1 when it can
desktop_missing() {
	local c
	for c in pipewire wireplumber pipewire-pulse pw-jack pw-play pw-dump pw-metadata paplay \
		gamemoded /usr/games/gamemoderun /usr/libexec/xdg-desktop-portal bwrap; do
		if ! command -v "$c" >/dev/null; then
			echo "$c is missing (scripts/install-deps.sh)"
			return 0
		fi
	done
	if [ ! -x "$1/tests/integration/desktop/jack_load" ]; then
		echo "the JACK client was not built: libjack-jackd2-dev is missing (scripts/install-deps.sh)"
		return 0
	fi
	return 1
}

# ---- the host lane ----
# the gcc build: -O2 as the packages build it, with the BPF accounting
# (libbpf-dev, bpftool and clang from install-deps.sh, the kernel's BTF)
gcc_ok=no
if step "gcc build (-O2, -Werror, -Dbpf=enabled)" meson setup "$out/gcc" --buildtype=debugoptimized \
	-Dwerror=true -Dtests=enabled -Dbpf=enabled &&
   step "gcc compile" ninja -C "$out/gcc"; then
	gcc_ok=yes
fi

guests_lane >"$out/guests.log" 2>&1 &
guests_pid=$!

if [ $gcc_ok = yes ]; then
	mtest "unit tests (gcc)" "$out/gcc" --suite unit --num-processes 2
	# the long hardening tests (scale, soak, fault_churn) measure isod,
	# not a sanitizer: here, once
	mtest "preload, bench, install and long hardening tests (gcc)" "$out/gcc" \
		--suite preload --suite bench --suite install --suite long \
		--suite rtkit-compare --no-suite timing
	# the desktop audio stack for real (tests/integration/desktop, issue
	# 31): PipeWire, WirePlumber, pipewire-jack and pipewire-pulse as
	# nobody against isod's RealtimeKit1 face, isod confined as the unit
	if desktop_why=$(desktop_missing "$out/gcc"); then
		unavailable "desktop suite (PipeWire, JACK, Pulse clients)" "$desktop_why"
	else
		mtest "desktop suite: PipeWire session, isod confined as the unit (gcc)" "$out/gcc" \
			--setup unit --suite desktop
	fi
	# CPU shares and reaction times, on the optimised build, isod
	# confined as the unit
	mtest "timing tests, isod confined as the unit (gcc)" "$out/gcc" --setup unit --suite timing
	if command -v valgrind >/dev/null; then
		mtest "unit tests under valgrind" "$out/gcc" --suite unit \
			--wrapper "valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --suppressions=$src/tests/unit/valgrind.supp"
	else
		unavailable "unit tests under valgrind" "valgrind not installed (scripts/install-deps.sh)"
	fi
fi

if step "ASan/UBSan build (-Dbpf=enabled)" meson setup "$out/asan" -Dwerror=true -Dtests=enabled \
	-Dbpf=enabled -Db_sanitize=address,undefined -Db_lundef=false &&
   step "ASan/UBSan compile" ninja -C "$out/asan"; then
	# The daemon's suites, once: the real isod under ASan/UBSan, confined
	# as the unit confines it, serving real clients. Every report goes to
	# a file in a directory the confined isod may write
	# (ISOSCHED_TEST_RW_DIRS: lib.sh) and the clients, as nobody, too.
	san=$out/sanitizer-reports
	mkdir -p "$san"
	chmod 1777 "$san"
	ISOSCHED_TEST_RW_DIRS=$san \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$san/ubsan \
	ASAN_OPTIONS=detect_leaks=1:log_path=$san/asan \
		mtest "unit, daemon, escape, hardening and rtkit tests: ASan/UBSan, isod confined as the unit" \
		"$out/asan" --setup unit --suite unit --suite daemon --suite escape --suite hardening --suite rtkit --suite reserve \
		--no-suite timing --no-suite long
	echo "=== sanitizer reports"
	if [ -n "$(ls -A "$san")" ]; then
		head -n 80 "$san"/*
		echo "=== FAILED: sanitizer reports above"
		note "FAILED: sanitizer reports"
		failed=$((failed + 1))
	else
		echo "none"
		passed=$((passed + 1))
	fi
fi

fuzz_all
# the escape suite on 6.1, in a guest of its own beside the guests' lane
kernel61_suite "$out/gcc" escape

echo "=== waiting for the guests' lane"
wait "$guests_pid"
echo "=== the guests' lane (clang, fuzzers, QEMU guests)"
cat "$out/guests.log"
load_counts "$out/guests.counts"

RUN_LANE=all
printf '%s\t%s\t%s\n' all "$(($(date +%s) - t_all))" "the whole run" >>"$RUN_TIMES"
report_durations
if [ ${#RUN_NOTES[@]} -gt 0 ]; then
	echo "=== notes"
	printf '  %s\n' "${RUN_NOTES[@]}"
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
