# runlib.sh — counting, timing and reporting for tests/run-all.sh (sourced).
#
# Each lane of run-all.sh keeps its own counts (passed, failed, skipped)
# and appends one line per step to "$RUN_TIMES": "LANE<TAB>SECONDS<TAB>STEP".
# Every test runner's output is kept in "$RUN_LOGS/<n>-<label>.log", where
# report_slowest finds meson's per-test lines ("12/40 daemon-grant  OK  3.21s")
# of the host and of the guests alike.
#
# Under CI=true nothing may be skipped silently: a suite that cannot run
# (no kernel image, a package missing) is a failure with its reason;
# outside CI it counts as skipped, and the closing line says how many.

passed=0
failed=0
skipped=0
# reasons of skips and failures, printed at the end
RUN_NOTES=()

note() { RUN_NOTES+=("$*"); }

# unavailable WHAT WHY: a suite that cannot run here
unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "=== FAILED: $1 cannot run under CI: $2"
		note "FAILED (cannot run under CI): $1: $2"
		failed=$((failed + 1))
	else
		echo "=== SKIPPED: $1: $2"
		note "skipped: $1: $2"
		skipped=$((skipped + 1))
	fi
}

# timed NAME CMD...: run CMD, append its wall time to RUN_TIMES, return its status
timed() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@"
	rc=$?
	printf '%s\t%s\t%s\n' "$RUN_LANE" "$(($(date +%s) - t0))" "$name" >>"$RUN_TIMES"
	return $rc
}

# new_log LABEL: RUN_LOG, a fresh log file for one runner's output
RUN_LOG_SEQ=0
new_log() {
	RUN_LOG_SEQ=$((RUN_LOG_SEQ + 1))
	printf -v RUN_LOG '%s/%s-%02d-%s.log' "$RUN_LOGS" "$RUN_LANE" "$RUN_LOG_SEQ" "${1//[^A-Za-z0-9_.-]/_}"
}

# step NAME CMD...: run quietly, timed; on failure show the output's tail
# and count one failure
step() {
	local name=$1 log
	shift
	echo "=== $name"
	new_log "$name"; log=$RUN_LOG
	if ! timed "$name" "$@" >"$log" 2>&1; then
		tail -n 60 "$log"
		echo "=== FAILED: $name: $*"
		note "FAILED: $name"
		failed=$((failed + 1))
		return 1
	fi
}

# count_meson LOG NAME: add meson's summary (Ok, Expected Fail / Fail,
# Unexpected Pass, Timeout / Skipped) to the counts; no summary at all is
# one failure
count_meson() {
	local ok xf fl up to sk
	ok=$(awk '/^Ok:/{v=$2} END{print v+0}' "$1")
	xf=$(awk '/^Expected Fail:/{v=$3} END{print v+0}' "$1")
	fl=$(awk '/^Fail:/{v=$2} END{print v+0}' "$1")
	up=$(awk '/^Unexpected Pass:/{v=$3} END{print v+0}' "$1")
	to=$(awk '/^Timeout:/{v=$2} END{print v+0}' "$1")
	sk=$(awk '/^Skipped:/{v=$2} END{print v+0}' "$1")
	if ! grep -q '^Ok:' "$1"; then
		echo "=== FAILED: $2: no meson summary"
		note "FAILED: $2: no meson summary"
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + ok + xf))
	failed=$((failed + fl + up + to))
	skipped=$((skipped + sk))
	[ "$((fl + up + to))" = 0 ] || note "FAILED: $2: $((fl + up + to)) test(s), see above"
	if [ "$sk" != 0 ]; then
		# name them: a skip is never silent
		note "skipped in $2: $(test_lines "$1" | awk -F'\t' '$3 == "SKIP" {printf "%s ", $2}')"
	fi
}

# mtest NAME BUILDDIR [meson test args]: run meson test, timed, counted;
# its logs under the label NAME (--logbase), so runs on one build dir
# do not overwrite each other's
mtest() {
	local name=$1 dir=$2 log base
	shift 2
	new_log "$name"; log=$RUN_LOG
	base=$(basename "$log" .log)
	echo "=== $name"
	timed "$name" meson test -C "$dir" --no-rebuild --print-errorlogs --logbase "$base" "$@" >"$log" 2>&1
	# the per-test lines and the summary; the error logs only where one failed
	if grep -qE '^(Fail|Timeout|Unexpected Pass): +[1-9]' "$log" || ! grep -q '^Ok:' "$log"; then
		cat "$log"
	else
		grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):' "$log"
	fi
	count_meson "$log" "$name"
}

# guest_tests TAG NAME CMD...: a QEMU runner that prints a closing
# "TAG tests: N passed, M failed[, K skipped]" line; 77 is "cannot run
# here" (the runner said why); no closing line, or a failed runner with no
# failure counted, is one failure
guest_tests() {
	local tag=$1 name=$2 log rc res why
	shift 2
	new_log "$name"; log=$RUN_LOG
	echo "=== $name"
	timed "$name" "$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	res=$(grep "^$tag tests: [0-9]* passed" "$log" | tail -n1)
	if [ "$rc" = 77 ]; then
		why=$(grep -m1 "SKIPPED:" "$log" | sed 's/.*SKIPPED: //')
		unavailable "$name" "${why:-the runner exited 77}"
	elif [ -n "$res" ]; then
		set -- $res
		passed=$((passed + $3))
		failed=$((failed + $5))
		[ "$5" = 0 ] || note "FAILED: $name: $5 test(s)"
		if [ "$rc" != 0 ] && [ "$5" = 0 ]; then
			failed=$((failed + 1))
			note "FAILED: $name: exit $rc"
		fi
	else
		failed=$((failed + 1))
		note "FAILED: $name: no closing line (exit $rc)"
	fi
}

# save_counts FILE / load_counts FILE: hand a lane's counts and notes to
# the lane that prints the closing line
save_counts() {
	{
		echo "$passed $failed $skipped"
		printf '%s\n' "${RUN_NOTES[@]}"
	} >"$1"
}
load_counts() {
	local p f s line first=1
	[ -r "$1" ] || { failed=$((failed + 1)); note "FAILED: a lane left no counts ($1)"; return; }
	while IFS= read -r line; do
		if [ $first = 1 ]; then
			read -r p f s <<<"$line"
			passed=$((passed + p))
			failed=$((failed + f))
			skipped=$((skipped + s))
			first=0
		elif [ -n "$line" ]; then
			note "$line"
		fi
	done <"$1"
}

# test_lines LOG: "SECONDS<TAB>TEST<TAB>RESULT" for each of meson's
# per-test lines ("14/19 isosched:unit / policy   OK   0.04s")
test_lines() {
	sed -nE 's/^ *[0-9]+\/[0-9]+ +(.* \/ )?([^ ]+) +(OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR) +([0-9.]+)s.*/\4\t\2\t\3/p' "$1"
}

# report_durations: each step's wall time (per lane), then the ten
# slowest tests of every runner (meson's per-test lines: host and guests)
report_durations() {
	echo
	echo "=== durations: steps (lane, seconds, step)"
	sort -t$'\t' -k1,1 -s "$RUN_TIMES" | awk -F'\t' '{ printf "  %-7s %5d s  %s\n", $1, $2, $3; t[$1] += $2 }
		END { for (l in t) printf "  %-7s %5d s  (lane total)\n", l, t[l] }'
	echo "=== durations: the ten slowest tests (seconds, test, run)"
	for f in "$RUN_LOGS"/*.log; do
		test_lines "$f" | sed "s|\$|\t$(basename "$f" .log)|"
	done | awk -F'\t' '!seen[$2 FS $4]++' | sort -t$'\t' -k1,1 -gr | head -n 10 |
		awk -F'\t' '{ printf "  %7.1f  %-36s %s\n", $1, $2, $4 }'
}
