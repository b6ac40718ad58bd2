# lib.sh — shared helpers for the integration tests (sourced by each test).
# Every test: a private temp dir, a private isod socket, cleanup on exit,
# and a check that nothing it started is left running real-time.
#
# meson passes: ISOD, ISOCTL, SPIN (tests/integration/spin), BUILD_ROOT.
# Exit codes: 0 pass, 1 fail, 77 skip (meson's convention).

set -u

: "${ISOD:?ISOD not set (run through meson test)}"
: "${ISOCTL:?ISOCTL not set}"

ISO_TMP=$(mktemp -d /tmp/isotest.XXXXXX)
chmod 755 "$ISO_TMP"
ISOSCHED_SOCKET="$ISO_TMP/isod.sock"
export ISOSCHED_SOCKET
ISOD_PID=
ISO_CHILDREN=()

# Development only: ISOSCHED_TEST_LOCK=FILE runs the integration tests of
# several trees on one machine one at a time (a policing isod demotes every
# RT thread it did not grant, another tree's test's too). A holder process
# keeps the lock until this shell exits, so the test's own children never
# hold it. CI runs one tree at a time and leaves it unset.
if [ -n "${ISOSCHED_TEST_LOCK:-}" ]; then
	# the wait counts against meson's timeout: run such trees with a
	# --timeout-multiplier (tests/stress-loop.sh does)
	mkfifo "$ISO_TMP/lock"
	lock_t0=$SECONDS
	flock -w 3600 "$ISOSCHED_TEST_LOCK" \
		sh -c 'echo held >"$1"; exec tail --pid="$2" -f /dev/null' sh "$ISO_TMP/lock" $$ &
	read -r _ <"$ISO_TMP/lock" || fail "could not take the test lock $ISOSCHED_TEST_LOCK"
	printf '# waited %d s for the test lock %s\n' $((SECONDS - lock_t0)) "$ISOSCHED_TEST_LOCK" >&2
fi

log() { printf '# %s\n' "$*" >&2; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
skip() { printf 'SKIP: %s\n' "$*" >&2; exit 77; }

# Run a command as an unprivileged user, with no supplementary groups.
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
# The same as a command prefix: "${AS_NOBODY[@]}" prog & makes $! the
# program itself (as_nobody ... & is a subshell, which a kill of $! leaves
# the program behind) — for long-lived background programs.
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

need_root() { [ "$(id -u)" = 0 ] || skip "needs root (to start isod and switch users)"; }

# kernel_sched TID -> "POLICY RTPRIO" as the kernel reports them
# (/proc/TID/stat fields 41 and 40; the comm field may hold spaces).
kernel_sched() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	# after "comm) ", field 3 is state; policy is field 41, rt_priority 40
	set -- $s
	shift 37
	printf '%s %s\n' "$2" "$1"
}

# Write a config file for isod; arguments are extra "key = value" lines.
write_config() {
	local f="$ISO_TMP/isod.conf"
	{
		echo "[isod]"
		for l in "$@"; do echo "$l"; done
	} >"$f"
	echo "$f"
}

# start_isod [isod options...]: start a private isod, wait until it answers.
# Stray policing (strays.h: the start-up sweep and the periodic audit)
# looks at every thread of the machine in the band, so it would demote the
# threads of other tests' isods running in parallel: off unless a test asks
# for it (with its own band).
# With ISOSCHED_TEST_CONFINED=unit (meson test --setup unit), isod runs
# confined as packaging/isod.service.in confines it (unit_confine.sh).
start_isod() {
	local confine=()
	if [ "${ISOSCHED_TEST_CONFINED:-}" = unit ]; then
		declare -F unit_confine_cmd >/dev/null ||
			source "$SRC_ROOT/tests/integration/unit_confine.sh"
		# ISOSCHED_TEST_RW_DIRS: more directories the confined isod
		# may write (run-all.sh: the sanitizers' reports)
		unit_confine_cmd "$ISO_TMP" ${STATE_DIR:+"$STATE_DIR"} ${ISOSCHED_TEST_RW_DIRS:-}
		confine=("${UNIT_CONFINE[@]}")
	fi
	"${confine[@]}" "$ISOD" --socket "$ISOSCHED_SOCKET" --state-file "$ISO_TMP/isod.state" \
		--log-level debug --sweep-orphans no "$@" >>"$ISO_TMP/isod.log" 2>&1 &
	ISOD_PID=$!
	for _ in $(seq 1 100); do
		if "$ISOCTL" status >/dev/null 2>&1; then
			[ ${#confine[@]} -eq 0 ] || unit_confine_check "$ISOD_PID"
			return 0
		fi
		kill -0 "$ISOD_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$ISO_TMP/isod.log" >&2
	fail "isod did not come up"
}

stop_isod() {
	[ -n "$ISOD_PID" ] || return 0
	kill -TERM "$ISOD_PID" 2>/dev/null
	wait "$ISOD_PID" 2>/dev/null
	ISOD_PID=
}

# The watchdog tests starve isod's enforcer with a root SCHED_FIFO 90 hog
# on the CPU isod is pinned to (start_isod_on_cpu0): that needs a second
# CPU for the ISO thread, and the kernel's RT throttling, which leaves
# SCHED_OTHER (isod's server, where the watchdog runs) its 5 %.
need_starvable_enforcer() {
	local rt
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us 2>/dev/null)
	[ -n "$rt" ] && [ "$rt" -ge 0 ] && [ "$rt" -lt 1000000 ] ||
		skip "RT throttling is off (sched_rt_runtime_us=$rt): a hog would starve isod's server too"
}
start_isod_on_cpu0() {
	start_isod "$@"
	taskset -a -cp 0 "$ISOD_PID" >/dev/null || fail "cannot pin isod"
}

# wait_log [grep options] PATTERN: wait up to 5 s for isod's log to hold a
# line. isod says what it did after doing it (a refractory line follows
# the demotions of every thread), so a test that saw the effect in the
# kernel must wait for the words, not grep once.
wait_log() {
	for _ in $(seq 100); do
		grep -q "$@" "$ISO_TMP/isod.log" && return 0
		sleep 0.05
	done
	return 1
}

# Start something in the background and remember it for cleanup.
bg() { "$@" & ISO_CHILDREN+=($!); }

# Any thread of the given processes (and their children) still kernel RT?
assert_no_rt_left() {
	local p t pol
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			pol=$(kernel_sched "${t##*/}" | cut -d' ' -f1)
			case "$pol" in
			1|2|6) fail "thread ${t##*/} of $p left real-time (policy $pol)";;
			esac
		done
	done
}

# The auditor (tests/integration/audit.sh, issues 11 and 28): no thread of
# a user may be kernel RT — FIFO/RR at any priority, or DEADLINE — without
# an isod tracking it or its hard RLIMIT_RTPRIO allowing it. audit_rt LABEL
# fails the test when one is. Every integration test runs it at its end
# (iso_cleanup, while the test's isod still runs: what it tracks is
# policed); the soak also throughout.
audit_rt() {
	local out
	out=$(ISOCTL=$ISOCTL bash "$SRC_ROOT/tests/integration/audit.sh" 2>&1) && return 0
	printf 'FAIL: %s: the auditor found threads kernel RT that no isod polices:\n%s\n' "$1" "$out" >&2
	return 1
}

iso_cleanup() {
	local rc=$?
	if [ $rc -eq 0 ] && ! audit_rt "end of test"; then
		rc=1
	fi
	for p in "${ISO_CHILDREN[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	stop_isod
	if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -f "$ISO_TMP/isod.log" ]; then
		echo "--- isod log (tail) ---" >&2
		tail -n 40 "$ISO_TMP/isod.log" >&2
	fi
	rm -rf "$ISO_TMP"
	exit $rc
}
trap iso_cleanup EXIT
trap 'exit 1' INT TERM

# --- waiting on events, not on time (issue 30) ---

# log_line_of [grep options] PATTERN: the number of the last line of
# isod's log that matches (0 if none): a mark for wait_log_after.
log_line_of() {
	local n
	n=$(grep -n "$@" "$ISO_TMP/isod.log" | tail -n1 | cut -d: -f1)
	echo "${n:-0}"
}

# wait_log_after N [grep options] PATTERN: as wait_log (5 s, times
# ISOSCHED_TEST_TIME_SCALE), for a line past the first N lines of the log:
# an event that came after the one at line N.
wait_log_after() {
	local n=$1 i
	shift
	for ((i = 0; i < 100 * ${ISOSCHED_TEST_TIME_SCALE:-1}; i++)); do
		tail -n +"$((n + 1))" "$ISO_TMP/isod.log" | grep -q "$@" && return 0
		sleep 0.05
	done
	return 1
}

# wait_enforcer_asleep N THREADS: the enforcer went to sleep for long (no
# check planned, or the next one a second or more away: enforcer.c's
# debug line) with THREADS ISO threads in its plan, after line N of the
# log — it has planned with them, and sleeps.
wait_enforcer_asleep() {
	wait_log_after "$1" "enforcer: sleeps with $2 ISO threads"
}

# wait_file_lines FILE REGEX COUNT [SECONDS]: until FILE has COUNT lines
# that match REGEX (SECONDS, 5 by default, times ISOSCHED_TEST_TIME_SCALE):
# a "ready" line a child writes after reaching the state the test needs.
wait_file_lines() {
	local i
	for ((i = 0; i < 20 * ${4:-5} * ${ISOSCHED_TEST_TIME_SCALE:-1}; i++)); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.05
	done
	return 1
}

# wait_exec PID COMM: until process PID runs COMM (/proc/PID/comm), 5 s at
# most (times ISOSCHED_TEST_TIME_SCALE): a wrapper such as chrt or setpriv
# has set the process up and exec'd the program.
wait_exec() {
	local i
	for ((i = 0; i < 100 * ${ISOSCHED_TEST_TIME_SCALE:-1}; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# still_running GLOB: "PID CMD" of a process whose command line matches
# GLOB, if one has not exited after 100 looks 0.05 s apart (a killed child may still be
# exiting); status 1 when none is left
still_running() {
	local p cmd left
	for _ in $(seq 100); do
		left=
		for p in /proc/[0-9]*; do
			{ cmd=$(tr '\0' ' ' <"$p/cmdline"); } 2>/dev/null || continue
			# shellcheck disable=SC2053 # GLOB is a pattern
			if [[ $cmd == $1 ]]; then
				left="${p#/proc/} $cmd"
				break
			fi
		done
		[ -n "$left" ] || return 1
		sleep 0.05
	done
	echo "$left"
}
