#!/usr/bin/env bash
# isoctl doctor as an unprivileged user against a private isod: the JSON
# parses, isod is reported OK with the band it really has, --test gives two
# latency figures (an ISO thread that really ran SCHED_FIFO in the band,
# and a SCHED_OTHER one), an allow_groups the user is not in is a FAIL
# with the fix, and an unreachable isod is a FAIL with exit status 1.
# The system bus is never asked (--no-bus).
. "$(dirname "$0")/../lib.sh"
need_root

PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs /usr/bin/python3"

start_isod --band 12:34
out="$ISO_TMP/doctor.json"

# doctor_json FILE [ARGS...]: run doctor --json as nobody; the exit status
# must be 0 or 1 and agree with the report's FAIL count.
doctor_json() {
	local f=$1 rc
	shift
	as_nobody "$ISOCTL" doctor --json --no-bus "$@" >"$f" 2>"$ISO_TMP/doctor.err"
	rc=$?
	[ $rc -le 1 ] || { cat "$ISO_TMP/doctor.err" >&2; fail "doctor exited $rc"; }
	"$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
fails = sum(1 for c in r["checks"] if c["verdict"] == "FAIL")
assert fails == r["summary"]["fail"], "summary disagrees with the checks"
assert (fails > 0) == (int(sys.argv[2]) == 1), "exit status %s with %d FAILs" % (sys.argv[2], fails)
for c in r["checks"]:
    assert c["verdict"] in ("OK", "INFO", "SKIP", "WARN", "FAIL"), c
    assert c["found"], c
' "$f" "$rc" || { cat "$f" >&2; fail "doctor --json: bad report"; }
}

# check FILE PYTHON-EXPR: assert on the report r (a dict); item(g, n)
# gives one check.
check() {
	"$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
def item(g, n):
    m = [c for c in r["checks"] if c["group"] == g and c["name"] == n]
    assert m, "no check %s/%s" % (g, n)
    return m[0]
assert eval(sys.argv[2]), sys.argv[2]
' "$1" "$2" || { cat "$1" >&2; fail "doctor: $2"; }
}

log "doctor --json as nobody"
doctor_json "$out"
check "$out" 'item("isod", "isod")["verdict"] == "OK"'
check "$out" '"band 12..34" in item("isod", "isod")["found"]'
check "$out" '"selftest" not in r'
check "$out" 'item("limits", "allowed")["verdict"] == "OK"'
check "$out" 'item("isod", "rtkit")["verdict"] in ("SKIP", "WARN")'
for g in kernel:version kernel:preempt kernel:sched_ext kernel:rt_throttle kernel:rt_group \
	 irq:threadirqs limits:rtprio limits:rttime limits:memlock power:governor power:swap; do
	check "$out" "item(\"${g%%:*}\", \"${g#*:}\") is not None"
done

log "doctor --test --json as nobody (5 s)"
t0=${EPOCHREALTIME/./}
doctor_json "$out" --test
elapsed_us=$((${EPOCHREALTIME/./} - t0))
check "$out" 'r["selftest"]["iso"] is not None and r["selftest"]["other"] is not None'
for t in iso other; do
	# no latency is longer than the whole self-test took: catches a unit
	# slip (ns for us), and no machine is too slow for it
	check "$out" "r['selftest']['$t']['samples'] >= 1000"
	check "$out" "0 <= r['selftest']['$t']['p50_us'] <= r['selftest']['$t']['p99_us'] <= r['selftest']['$t']['max_us'] <= $elapsed_us"
done
check "$out" 'item("test", "iso")["verdict"] in ("OK", "WARN")'
# the measuring thread really ran kernel SCHED_FIFO inside the band
check "$out" '__import__("re").search(r"kernel SCHED_FIFO (\d+),", item("test", "iso")["found"]) and 12 <= int(__import__("re").search(r"kernel SCHED_FIFO (\d+),", item("test", "iso")["found"]).group(1)) <= 34'
grep -q '"kernel_policy_name":"SCHED_FIFO"' < <("$ISOCTL" status --json) &&
	fail "the self-test's thread is still ISO after doctor exited"

log "text output"
as_nobody "$ISOCTL" doctor --no-bus >"$ISO_TMP/doctor.txt" 2>&1
grep -q '^isod$' "$ISO_TMP/doctor.txt" || fail "no isod section in the text"
grep -Eq '^  OK +isod +isod (\(pid [0-9]+\) )?answers at ' "$ISO_TMP/doctor.txt" || { cat "$ISO_TMP/doctor.txt" >&2; fail "isod not OK in the text"; }
grep -Eq '^[0-9]+ OK, [0-9]+ WARN, [0-9]+ FAIL' "$ISO_TMP/doctor.txt" || fail "no summary line"

if getent group audio >/dev/null; then
	log "allow_groups=audio, user not in it: FAIL with the fix, and the self-test refused"
	stop_isod
	start_isod --band 12:34 --allow-groups audio
	doctor_json "$out" --test
	check "$out" 'item("limits", "allowed")["verdict"] == "FAIL"'
	check "$out" '"allow_groups audio" in item("isod", "config")["found"]'
	check "$out" '"usermod -aG audio nobody" in item("limits", "allowed")["fix"]'
	check "$out" 'item("test", "iso")["verdict"] == "FAIL"'
	check "$out" 'r["summary"]["fail"] >= 2'
fi

log "isod unreachable: FAIL, exit 1"
ISOSCHED_SOCKET="$ISO_TMP/nothing.sock" as_nobody "$ISOCTL" doctor --json --no-bus >"$out" 2>/dev/null
rc=$?
[ $rc = 1 ] || fail "doctor with no isod exited $rc, not 1"
check "$out" 'item("isod", "isod")["verdict"] == "FAIL"'
check "$out" '"nothing.sock" in item("isod", "isod")["fix"]'

log "usage errors: exit 2"
"$ISOCTL" doctor --bogus >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "doctor --bogus exited $rc, not 2"
"$ISOCTL" doctor extra >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "doctor extra exited $rc, not 2"
"$ISOCTL" doctor --help | grep -q 'EXIT STATUS' || fail "no doctor --help"
exit 0
