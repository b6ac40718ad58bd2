#!/usr/bin/env bash
# isoctl top against a private isod with real ISO threads and a runaway,
# driven in tmux: the bar shows, a spinner's state goes iso -> demoted
# (refractory), `s` changes the sort, an isod restart shows "isod not
# running" and then the view again, `q` quits. Then --once and --json as
# user nobody.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
command -v tmux >/dev/null || skip "tmux not installed"
start_isod --burst-ms 0 --stall-ms 0
n=$(nproc)
out=$ISO_TMP/spin.out
# they outlive the test (killed at its end): on a slow machine (the 6.1
# guest under TCG) its steps took longer than a fixed lifetime
"${AS_NOBODY[@]}" "$SPIN" --threads "$n" --seconds 100 --iso fifo --prio 30 >"$out" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
grep -q ready "$out" || fail "spinners not ready"

# --once: one plain frame, no terminal needed, readable by anyone
once=$(as_nobody env ISOSCHED_SOCKET="$ISOSCHED_SOCKET" "$ISOCTL" top --once) ||
	fail "top --once failed"
echo "$once" | grep -q '^ISO \[' || fail "--once has no bar: $once"
echo "$once" | grep -q 'TID *PID USER' || fail "--once has no thread table: $once"
echo "$once" | grep -q ' nobody ' || fail "--once does not list nobody's threads: $once"
# (the ring keeps the latest 32 events: on a slow machine the grants may
# have scrolled out behind demotions by now)
echo "$once" | grep -Eq 'grant|demote|restore' || fail "--once shows no event: $once"
# --json: -n frames, each a JSON object with the threads
as_nobody env ISOSCHED_SOCKET="$ISOSCHED_SOCKET" "$ISOCTL" top --json -n 2 -d 0.2 >"$ISO_TMP/top.json" ||
	fail "top --json failed"
/usr/bin/python3 - "$ISO_TMP/top.json" "$n" <<'PY' || fail "--json frames wrong"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for l in lines:
    f = json.loads(l)
    assert f["up"] and f["iso_cpu"] > 0, f
    assert len(f["threads"]) >= int(sys.argv[2]), f
    assert all(t["state"] in ("iso", "demoted", "refractory") for t in f["threads"]), f
    assert f["events"] and all(e["kind"] in ("grant", "demote", "restore", "refused", "stray")
                              for e in f["events"]), f
PY

sess=isotop$$
cap() { tmux capture-pane -p -t "$sess"; }
wait_for() { # wait_for PATTERN SECONDS
	local i
	# times ISOSCHED_TEST_TIME_SCALE, as lib.sh's waits (the 6.1 guest)
	for i in $(seq $((${2} * 10 * ${ISOSCHED_TEST_TIME_SCALE:-1}))); do
		cap | grep -q -- "$1" && return 0
		sleep 0.1
	done
	cap >&2
	return 1
}
tmux new-session -d -s "$sess" -x 80 -y 24 \
	"env ISOSCHED_SOCKET=$ISOSCHED_SOCKET TERM=xterm $ISOCTL top -d 0.3"
trap 'rc=$?; tmux kill-session -t "$sess" 2>/dev/null; (exit $rc); iso_cleanup' EXIT
wait_for '^ISO \[' 5 || fail "no bar on the screen"
wait_for 'sort: cpu' 2 || fail "no sort shown"
# the runaway: its threads end up demoted by the budget
wait_for 'refractory' 15 || fail "the spinners never showed refractory"
wait_for 'demote ' 3 || fail "no demote event shown"
tmux send-keys -t "$sess" s
wait_for 'sort: prio' 3 || fail "s did not change the sort"
tmux resize-window -t "$sess" -x 120 -y 40 2>/dev/null
wait_for '^ISO \[' 3 || fail "no bar after a resize"
stop_isod
wait_for 'isod not running' 5 || fail "no 'isod not running' without isod"
start_isod --burst-ms 0 --stall-ms 0
wait_for '^ISO \[' 5 || fail "did not recover after isod came back"
tmux send-keys -t "$sess" q
for _ in $(seq 30); do tmux has-session -t "$sess" 2>/dev/null || break; sleep 0.1; done
tmux has-session -t "$sess" 2>/dev/null && fail "q did not quit"
echo "PASS"
