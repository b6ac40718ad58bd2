#!/usr/bin/env bash
# stress-loop.sh — are the integration tests deterministic under load?
# Runs the given suites (default: daemon, escape, hardening, rtkit) ROUNDS
# times in a row while `stress-ng --cpu 2 --vm 1` loads the machine, then
# each test named with --repeat REPEAT times more under the same load, and
# prints every test's failure count. Exit 0 when no test failed at all.
#
#   tests/stress-loop.sh [-C BUILDDIR] [--rounds N] [--repeat M] [--setup unit]
#                        [--timeout-multiplier K] [--suite S]... [--test T]...
#
# With ISOSCHED_TEST_LOCK set (several trees testing on one machine:
# docs/testing.md) a test's wait for the lock counts against its meson
# timeout, so K defaults to 5 there (1 otherwise); each test's log says how
# long it waited.
#
# BUILDDIR: a configured and built tree (default build-test/asan, the
# configuration CI runs these suites in; build it with tests/run-all.sh or
# meson setup ... -Db_sanitize=address,undefined). Needs root, stress-ng.
# Each failed test's meson log is kept under BUILDDIR/meson-logs/stress-*.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-test/asan
rounds=3
repeat=20
setup=(--setup unit)
multiplier=1
[ -n "${ISOSCHED_TEST_LOCK:-}" ] && multiplier=5
suites=()
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	-C) build=$2; shift 2;;
	--rounds) rounds=$2; shift 2;;
	--repeat) repeat=$2; shift 2;;
	--setup) setup=(--setup "$2"); shift 2;;
	--no-setup) setup=(); shift;;
	--timeout-multiplier) multiplier=$2; shift 2;;
	--suite) suites+=("$2"); shift 2;;
	--test) tests+=("$2"); shift 2;;
	*) echo "stress-loop.sh: unknown argument $1" >&2; exit 2;;
	esac
done
[ ${#suites[@]} -gt 0 ] || suites=(daemon escape hardening rtkit)
[ -d "$build" ] || { echo "stress-loop.sh: no build directory $build" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "stress-loop.sh: stress-ng not installed" >&2; exit 2; }

stress-ng --cpu 2 --vm 1 --vm-bytes 256M --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT

declare -A runs fails
# one_run LABEL MESON-ARGS...: run meson test, tally each test's result
one_run() {
	local label=$1 log
	shift
	log=$(mktemp)
	meson test -C "$build" --no-rebuild "${setup[@]}" --timeout-multiplier "$multiplier" \
		--logbase "stress-$label" "$@" >"$log" 2>&1
	while IFS=$'\t' read -r _ name result; do
		runs[$name]=$((${runs[$name]:-0} + 1))
		case $result in
		OK|SKIP|EXPECTEDFAIL) ;;
		*) fails[$name]=$((${fails[$name]:-0} + 1))
		   echo "  $label: $name $result (log: $build/meson-logs/stress-$label.txt)";;
		esac
	done < <(sed -nE 's/^ *[0-9]+\/[0-9]+ +(.* \/ )?([^ ]+) +(OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR) +([0-9.]+)s.*/\4\t\2\t\3/p' "$log")
	rm -f "$log"
}

sargs=()
for s in "${suites[@]}"; do sargs+=(--suite "$s"); done
for ((r = 1; r <= rounds; r++)); do
	echo "round $r of $rounds: ${suites[*]} (under stress-ng)"
	one_run "round$r" "${sargs[@]}" --no-suite timing --no-suite long
done
for t in "${tests[@]}"; do
	echo "$t: $repeat times (under stress-ng)"
	for ((i = 1; i <= repeat; i++)); do
		one_run "$t-$i" "$t"
	done
done

total=0
echo
echo "test                                runs  failed"
for name in $(printf '%s\n' "${!runs[@]}" | sort); do
	printf '%-36s %4d  %4d\n' "$name" "${runs[$name]}" "${fails[$name]:-0}"
	total=$((total + ${fails[$name]:-0}))
done
echo "$total failure(s)"
[ "$total" = 0 ]
