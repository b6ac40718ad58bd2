# hlib.sh — helpers of the hardening suite, on top of lib.sh (sourced by
# each test after lib.sh). meson passes HARDTOOL (this dir's hardtool).
: "${HARDTOOL:?HARDTOOL not set (run through meson test)}"

# The second unprivileged user: the "other client" and the victim.
as_daemon() { setpriv --reuid=daemon --regid=daemon --clear-groups -- "$@"; }
# For background jobs: a plain command (not a function), so that $! is the
# pid of the program itself (setpriv execs it) and cleanup can kill it.
AS_DAEMON=(setpriv --reuid=daemon --regid=daemon --clear-groups --)
# (AS_NOBODY, the same for nobody, is lib.sh's)

# isod options for tests that must not meet the per-uid rate limit (those
# that are not about it). Empty on an isod without the option.
no_rate_limit() {
	if "$ISOD" --help 2>&1 | grep -q -- '--rate-limit'; then
		echo "--rate-limit 0"
	fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_lines FILE REGEX COUNT [TENTHS]: until FILE has COUNT lines matching.
wait_lines() {
	local i
	for ((i = 0; i < ${4:-100}; i++)); do
		[ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# status_times [PREFIX...]: SERVING_TRIES (20) STATUS round trips to isod
# (connect, request, reply, close, as `isoctl status` does), run through
# PREFIX (e.g. "${AS_DAEMON[@]}"), one line each: the time in ms, or
# "fail ...". Timed inside one client process (status_rtt.py), so that
# process start-up on a loaded machine is not counted as isod's delay.
# With SERVING_CONTROL set (a control_echo.py socket), each line has a
# second figure: the round trip to the control right after.
SERVING_TRIES=20
SERVING_CONTROL=
status_times() {
	"$@" /usr/bin/python3 "$SRC_ROOT/tests/integration/hardening/status_rtt.py" \
		"$ISOSCHED_SOCKET" "$SERVING_TRIES" $SERVING_CONTROL 2>&1 || echo "fail client_exited"
}

# summary of status_times' lines [COLUMN, 1: isod's, 2: the control's]:
# "min/median/max ms (N tries)"
times_summary() {
	grep -v '^fail' | awk -v c="${1:-1}" '{print $c}' | sort -n |
		awk '{v[NR] = $1} END {printf "%s/%s/%s ms (%d tries)", v[1], v[int((NR + 1) / 2)], v[NR], NR}'
}

# The worst of status_times' lines [COLUMN], rounded up to a whole ms
# (999999 for isod's if one failed; the control's leaves failed ones out).
times_worst() {
	awk -v c="${1:-1}" '$1 == "fail" && c == 1 {w = 999999} $1 != "fail" && $c > w {w = $c}
		END {printf "%d\n", (w == int(w)) ? w : int(w) + 1}'
}

# The median of status_times' lines [COLUMN] (999999 for isod's if one
# failed; the control's leaves failed ones out).
times_median() {
	awk -v c="${1:-1}" '$1 == "fail" && c == 1 {f = 1} $1 != "fail" {print $c} END {if (f) print 999999}' |
		sort -n | awk '{v[NR] = $1} END {printf "%d\n", v[int((NR + 1) / 2)] + 0.999}'
}

# start_control: a control server (control_echo.py) for the round trips,
# up to 10 minutes, ended with the test; sets SERVING_CONTROL. Its clients
# wait what the machine's load alone makes them wait: that much of
# isod's round trips is not isod's.
start_control() {
	local sock=$ISO_TMP/control.sock
	[ -z "$SERVING_CONTROL" ] || return 0
	/usr/bin/python3 "$SRC_ROOT/tests/integration/hardening/control_echo.py" "$sock" 600 \
		>"$ISO_TMP/control.out" 2>&1 &
	ISO_CHILDREN+=($!)
	wait_file_lines "$ISO_TMP/control.out" '^ready' 1 ||
		fail "the control server did not start: $(cat "$ISO_TMP/control.out")"
	SERVING_CONTROL=$sock
}

# assert_serving LABEL: isod alive, and 20 status round trips of root AND
# of another user (daemon) all answered, the worst within 500 ms and the
# median within 20 ms of the control's (start_control: each try is paired
# with a round trip to a plain server beside isod): what one user does
# must not delay the others. The median catches a systematic delay
# (before issue 11 a connection flood gave a median of 187-225 ms); the
# worst-case bound only gross ones (then 316-1300 ms). It was 150 ms until
# a stress loop (stress-ng, ASan build) saw one try of 20 take 262 ms
# during a connect-garbage-close flood, median 3 ms. The likely cause
# (not yet shown): a client whose connect() waits for a place in isod's
# full listen queue is woken when one frees, and four flooders already on
# a CPU can take it first, again and again — the kernel's queue, not
# isod's rounds, which it reaches only once accepted. Each try's line now
# ends with its connect() time (c=MS), so a failure shows which part was
# slow. What the machine's load costs every
# server alike (stress-ng: 229 ms seen on an idle isod) is the
# control's, not isod's, and is not held against it. Both distributions
# are logged.
SERVING_WORST_MS=500
SERVING_MEDIAN_MS=20
assert_serving() {
	local who times worst median cworst cmedian
	kill -0 "$ISOD_PID" 2>/dev/null || fail "$1: isod died"
	start_control
	for who in root daemon; do
		if [ $who = root ]; then
			times=$(status_times)
		else
			times=$(status_times "${AS_DAEMON[@]}")
		fi
		worst=$(echo "$times" | times_worst 1)
		median=$(echo "$times" | times_median 1)
		cworst=$(echo "$times" | times_worst 2)
		cmedian=$(echo "$times" | times_median 2)
		log "$1: $who's status round trips: min/median/max $(echo "$times" | times_summary 1); the control's $(echo "$times" | times_summary 2)"
		! echo "$times" | grep -q '^fail' ||
			fail "$1: $who's status round trip failed: $(echo "$times" | grep -m1 '^fail')"
		[ "$worst" -le $((SERVING_WORST_MS + cworst)) ] ||
			fail "$1: $who's status round trip took $worst ms (worst of $SERVING_TRIES; 999999: failed: $(echo "$times" | grep -m1 fail)), want <= $SERVING_WORST_MS + the control's $cworst; the tries (isod's ms, the control's, isod's connect): $(echo "$times" | tr '\n' ';')"
		[ "$median" -le $((SERVING_MEDIAN_MS + cmedian)) ] ||
			fail "$1: $who's status round trips took $median ms (median of $SERVING_TRIES), want <= $SERVING_MEDIAN_MS + the control's $cmedian"
	done
}

isod_fds() { ls "/proc/$ISOD_PID/fd" 2>/dev/null | wc -l; }
isod_rss_kb() { awk '/^VmRSS:/{print $2}' "/proc/$ISOD_PID/status"; }
# An ASan build's RSS grows by design (quarantine, shadow): compare fds only.
isod_is_asan() { ldd "$ISOD" 2>/dev/null | grep -q libasan; }
# utime + stime of isod in clock ticks
isod_ticks() { local s; s=$(cat "/proc/$ISOD_PID/stat"); s=${s##*) }; set -- $s; echo $((${12} + ${13})); }

# TIDs isod tracks, one per line (all pages, via isoctl status --json)
tracked_tids() {
	"$ISOCTL" status --json | python3 -c 'import json,sys
for t in json.load(sys.stdin)["threads"]: print(t["tid"])'
}
tracked_total() {
	"$ISOCTL" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'
}

# "TID POLICY PRIO" for every thread of the given processes
sched_snapshot() {
	local p t
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			echo "${t##*/} $(kernel_sched "${t##*/}")"
		done
	done
}

# The victim: user daemon with two ISO_RR threads (kernel RR) and one plain
# thread, all mostly asleep, bounded by --seconds. Sets VICTIMS and
# VICTIM_SNAP (the policies before the abuse).
VICTIMS=()
VICTIM_SNAP=
start_victim() {
	local out=$ISO_TMP/victim
	"${AS_DAEMON[@]}" "$SPIN" --threads 2 --seconds "${1:-60}" --duty 1 --iso rr --prio 30 >"$out.iso" &
	VICTIMS+=($!); ISO_CHILDREN+=($!)
	"${AS_DAEMON[@]}" "$SPIN" --threads 1 --seconds "${1:-60}" --duty 1 >"$out.plain" &
	VICTIMS+=($!); ISO_CHILDREN+=($!)
	wait_lines "$out.iso" '^ready' 1 && wait_lines "$out.plain" '^ready' 1 ||
		fail "victim did not start: $(cat "$out.iso" "$out.plain")"
	VICTIM_SNAP=$(sched_snapshot "${VICTIMS[@]}")
	echo "$VICTIM_SNAP" | grep -q ' 2 [1-9][0-9]*$' || fail "victim not kernel RR: $VICTIM_SNAP"
	log "victim (uid daemon): $(echo "$VICTIM_SNAP" | tr '\n' ';')"
}

# assert_victim_unchanged LABEL
assert_victim_unchanged() {
	local now
	now=$(sched_snapshot "${VICTIMS[@]}")
	[ "$now" = "$VICTIM_SNAP" ] ||
		fail "$1: victim's threads changed: before [$(echo "$VICTIM_SNAP" | tr '\n' ';')] after [$(echo "$now" | tr '\n' ';')]"
}

# Error-level lines (<3>) in isod's log, minus the patterns given.
log_errors() {
	local f=$ISO_TMP/isod.log pat
	[ -f "$f" ] || return 0
	if [ $# -eq 0 ]; then
		grep '^<[0-3]>' "$f" || true
		return 0
	fi
	pat=$(printf '%s|' "$@")
	grep '^<[0-3]>' "$f" | grep -Ev -- "${pat%|}" || true
}

# kill_bg PID...: stop background helpers of this test (by their pid).
kill_bg() {
	local p
	for p in "$@"; do kill "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
	return 0
}

# police_report TID...: how the kernel and isod see these threads now:
# "rt_tracked N rt_untracked N other_tracked N other N gone N untracked: TIDS"
# (tracked = listed by isoctl status --json; rt = kernel FIFO/RR).
police_report() {
	"$ISOCTL" status --json 2>/dev/null | python3 -c '
import json, sys
try:
    tr = {t["tid"] for t in json.load(sys.stdin)["threads"]}
except Exception:
    tr = set()
c = dict(rt_tracked=0, rt_untracked=0, other_tracked=0, other=0, gone=0)
bad = []
for a in sys.argv[1:]:
    try:
        s = open("/proc/%s/stat" % a).read()
    except OSError:
        c["gone"] += 1
        continue
    pol = int(s.rsplit(")", 1)[1].split()[38])
    rt = pol in (1, 2)
    t = int(a) in tr
    k = ("rt_tracked" if t else "rt_untracked") if rt else ("other_tracked" if t else "other")
    c[k] += 1
    if rt and not t:
        bad.append(a)
print(" ".join("%s %d" % kv for kv in c.items()), "untracked:", " ".join(bad[:10]))
' "$@"
}

# use_tmpfs_state: put isod's state file on tmpfs (/dev/shm, removed on
# exit), as /run is in a normal installation. On a disk filesystem every
# grant waits for the state file's writeback (ext4 rename-over: ~20 ms on
# this VM; FINDINGS 4), which is not what the scale and soak tests
# measure. Sets STATE_OPTS for start_isod.
STATE_OPTS=()
use_tmpfs_state() {
	[ -d /dev/shm ] || return 0
	STATE_DIR=$(mktemp -d /dev/shm/isotest.XXXXXX) || return 0
	trap 'rc=$?; rm -rf "$STATE_DIR"; (exit $rc); iso_cleanup' EXIT
	STATE_OPTS=(--state-file "$STATE_DIR/isod.state")
}

# The auditor (audit_rt) runs at the end of every test: lib.sh's iso_cleanup.
