# lib.sh — helpers for the scx guest tests (busybox sh). Each test sources
# this, starts what it needs and leaves through fail/pass.
T=/tmp/scxt.$$
mkdir -p "$T"
export ISOSCHED_SOCKET=/run/isosched/isod.sock
SCX_PID= ISOD_PID=

log() { echo "$*"; }
cleanup() {
	[ -n "$ISOD_PID" ] && kill "$ISOD_PID" 2>/dev/null && wait "$ISOD_PID" 2>/dev/null
	[ -n "$SCX_PID" ] && kill "$SCX_PID" 2>/dev/null && wait "$SCX_PID" 2>/dev/null
	killall spin 2>/dev/null
}
fail() {
	echo "FAIL: $*"
	echo "--- isod log"; tail -n 30 "$T/isod.log" 2>/dev/null
	echo "--- scx_iso log"; tail -n 20 "$T/scx.log" 2>/dev/null
	echo "--- scx_iso --dump"; scx_iso --dump 2>&1
	cleanup
	exit 1
}
pass() { cleanup; echo "PASS"; exit 0; }

scx_state() { cat /sys/kernel/sched_ext/state; }
scx_ops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }

# wait_for N CMD...: retry CMD every 0.1 s, N times
# (busybox sh has no "local": helper variables start with _)
wait_for() {
	_wn=$1
	shift
	while [ "$_wn" -gt 0 ]; do
		"$@" && return 0
		_wn=$((_wn - 1))
		sleep 0.1
	done
	return 1
}

is_enabled() { [ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = iso ]; }
is_disabled() { [ "$(scx_state)" = disabled ]; }

start_scx() {
	scx_iso "$@" >"$T/scx.log" 2>&1 &
	SCX_PID=$!
	wait_for 100 is_enabled || fail "scx_iso did not load (state $(scx_state), ops $(scx_ops))"
	wait_for 50 test -e /sys/fs/bpf/isosched/tasks || fail "scx_iso maps not pinned"
}

isod_up() { isoctl status >/dev/null 2>&1; }
start_isod() {
	isod --socket "$ISOSCHED_SOCKET" --state-file "$T/isod.state" --log-level debug \
		--iso-period 1 "$@" >"$T/isod.log" 2>&1 &
	ISOD_PID=$!
	wait_for 100 isod_up || fail "isod did not come up"
}

# kpolicy TID: the kernel's policy number (/proc/TID/stat field 41)
kpolicy() {
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	shift 38
	echo "$1"
}

# dump_field TID FIELD: a field of the task's line in scx_iso --dump
dump_field() {
	scx_iso --dump 2>/dev/null | awk -v t="$1" -v f="$2" \
		'$1 == "task" && $2 == t { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }'
}
# cpu_field CPU FIELD
cpu_field() {
	scx_iso --dump 2>/dev/null | awk -v c="$1" -v f="$2" \
		'$1 == "cpu" && $2 == c { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }'
}
# tids FILE: the "tid N" lines spin printed
tids() { awk '/^tid/{print $2}' "$1"; }
wait_ready() { wait_for 100 grep -q ready "$1" || fail "spin did not get ready: $(cat "$1")"; }
# cpu_of FILE TID: seconds of CPU spin reported for TID
cpu_of() { awk -v t="$2" '$1 == "cpu" && $2 == t {print $3}' "$1"; }
# fgt A B: A > B (floats)
fgt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
# spin_bg OUT ARGS...: spin in the background (recorded for wait_spins;
# a bare `wait` would wait for isod and scx_iso too)
SPINS=
spin_bg() {
	_o=$1
	shift
	spin "$@" >"$_o" &
	SPINS="$SPINS $!"
}
# spin_pinned_bg OUT CPUS ARGS...: the same, pinned with taskset
spin_pinned_bg() {
	_o=$1 _c=$2
	shift 2
	taskset -c "$_c" spin "$@" >"$_o" &
	SPINS="$SPINS $!"
}
wait_spins() {
	_rc=0
	for _p in $SPINS; do wait "$_p" || _rc=1; done
	SPINS=
	return $_rc
}
# sched_ns TID: the kernel's CPU time of TID (schedstat field 1). Under TCG
# it is not in the same clock as iso_ms/run_ms (those are ktime), so tests
# only compare deltas of one clock.
sched_ns() {
	_v=$(cat "/proc/$1/schedstat" 2>/dev/null)
	_v=${_v%% *}
	echo "${_v:-0}"
}
# pin_all FILE CPU: pin every thread spin listed in FILE
pin_all() { for _t in $(tids "$1"); do taskset -p -c "$2" "$_t" >/dev/null || fail "taskset $_t"; done; }
# wait_tids FILE N: until spin has listed N threads
wait_tids() { wait_for 100 sh -c "[ \$(grep -c '^tid' $1) -ge $2 ]" || fail "spin not ready: $(cat "$1")"; }
