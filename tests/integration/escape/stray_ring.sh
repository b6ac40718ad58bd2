#!/usr/bin/env bash
# The kernel's stray ring overflows, and no stray hides behind the flood
# (issue 28, item 3): N sleeping threads of nobody's, made kernel FIFO 45
# by root, all wake at once (one broadcast). Running above isod's server,
# they switch in and are reported faster than isod can read the ring
# (64 KiB, about 2700 reports): the BPF program counts what it could not
# write, isod reads the count, says so, and audits every thread at once —
# here with the periodic audit off, so that only that audit can find the
# strays whose reports were lost. Every thread ends SCHED_OTHER; isoctl
# status and top show the lost reports. A band of its own (42..48): the
# escape suite's (81..90) is policed by any other test's isod running
# meanwhile, which would race this one for the herd.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
: "${SHORTLIVED:?SHORTLIVED not set (run through meson test)}"
N=3200

ESC_BAND_LO=42 ESC_BAND_HI=48 ESC_BAND=(--band 42:48)
start_policing_isod --audit-interval 0
grep -q "accounting bpf" "$ISO_TMP/isod.log" || skip "no BPF accounting here: no ring"
strays() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
s = json.load(sys.stdin).get("strays")
print("%d %d %d" % (s["lost"], s["audits"], s["demoted"]) if s else "none")'
}
[ "$(strays)" != none ] || fail "isoctl status --json has no stray counts"
read -r lost0 audits0 _ <<<"$(strays)"

out=$ISO_TMP/herd.out
mkfifo "$ISO_TMP/go"
"${NOBODY[@]}" "$SHORTLIVED" herd "$N" <"$ISO_TMP/go" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
exec 3>"$ISO_TMP/go"
wait_for "$out" '^ready pid' 300 || fail "the herd did not gather: $(cat "$out")"
pid=$(field "$out" ready pid)
# all at once, asleep: no switch-in yet, so no report yet
/usr/bin/python3 - "$pid" <<'PY' || fail "cannot make the herd FIFO"
import os, sys
pid = sys.argv[1]
for t in os.listdir("/proc/%s/task" % pid):
    if t != pid:
        os.sched_setscheduler(int(t), os.SCHED_FIFO, os.sched_param(45))
PY
echo go >&3
wait_for "$out" '^woken' 100 || fail "the herd did not wake"
# every thread SCHED_OTHER again (reported ones at once, lost ones by the
# audit the loss starts)
left=
for _ in $(seq 150); do
	left=$(/usr/bin/python3 - "$pid" <<'PY'
import os, sys
pid = sys.argv[1]
n = 0
for t in os.listdir("/proc/%s/task" % pid):
    try:
        if os.sched_getscheduler(int(t)) in (os.SCHED_FIFO, os.SCHED_RR):
            n += 1
    except OSError:
        pass
print(n)
PY
)
	[ "$left" = 0 ] && break
	sleep 0.1
done
read -r lost audits demoted <<<"$(strays)"
log "herd of $N: $((lost - lost0)) kernel reports lost, $((audits - audits0)) full audits, $demoted strays demoted, $left still RT"
[ "$left" = 0 ] || fail "$left threads of the herd still kernel RT 15 s later ($((lost - lost0)) reports lost)"
[ "$lost" -gt "$lost0" ] || skip "the ring did not overflow here (isod kept up with $N reports): nothing to check"
grep -qE "stray reports? lost \(the kernel's ring was full\): auditing every thread now" "$ISO_TMP/isod.log" ||
	fail "isod did not say it lost reports and audited: $(grep -i lost "$ISO_TMP/isod.log" | head -3)"
[ "$audits" -gt "$audits0" ] || fail "no full audit after the lost reports"
# the audit the loss started found strays the kernel could not report
# (with the periodic audit off nothing else looks for them), or this isod
# demoted the whole herd itself
after=$(grep -A1 -E "auditing every thread now" "$ISO_TMP/isod.log" | grep -oE "demoted [0-9]+ stray band" | awk '{s += $2} END {print s + 0}')
log "the audits after lost reports demoted $after"
[ "$after" -gt 0 ] || [ "$demoted" -ge "$N" ] ||
	fail "the audit after the lost reports demoted none ($demoted strays counted of $N)"
"$ISOCTL" top --once | grep -qE "strays: [0-9]+ demoted .*, [1-9][0-9]* kernel reports lost" ||
	fail "isoctl top does not show the lost reports: $("$ISOCTL" top --once | head -5)"
"$ISOCTL" status | grep -qE "^strays: .* [1-9][0-9]* kernel reports lost" || fail "isoctl status does not show the lost reports"
audit_ok "after the herd"
echo PASS
