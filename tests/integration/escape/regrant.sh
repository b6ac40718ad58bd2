#!/usr/bin/env bash
# Escape (issue 28 item 2): the budget evaded by release and re-ask. Two
# spinners as nobody, one pinned to each of CPUs 0 and 1, hold ISO for
# 150 ms, release it and ask again at once; how long a SCHED_OTHER thread
# was kept off both CPUs is the time both spinners were kernel RT at once
# (their own looks at their policy: regrant.c; its SCHED_OTHER probe's
# gaps are logged too, but count what other tests on a shared machine
# take as well). The control: the same two spinners holding ISO
# throughout. Every untrack
# charges and the burst guard's run and back-off follow a thread across
# its grants (leave.h), so cycling must gain nothing:
#     worst stalled(cycling) <= 1.2 * worst stalled(continuous) + 0.25 s
# and, more loosely (3x, below), the same for the two spinners' time as
# RT, summed (no more ISO CPU for letting go)
# (before: 7.2-7.7 s against 0.20-0.25 s of 13.5 s). Each run has an isod
# of its own (a fresh budget and guard memory), the modes interleaved;
# REGRANT_SECONDS (default 6) per run, REGRANT_TRIES (default 3) of each.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
: "${REGRANT:?REGRANT not set (run through meson test)}"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
secs=${REGRANT_SECONDS:-6}
tries=${REGRANT_TRIES:-3}

# run_one HOLD_MS: one run against a fresh isod; prints its result line
run_one() {
	local out
	start_policing_isod
	out=$(timeout $((secs + 10)) "${NOBODY[@]}" "$REGRANT" "$secs" "$1") ||
		fail "regrant $secs $1 failed: $out"
	stop_isod
	echo "$out"
}

cyc=() con=() cycp=() conp=() cycr=() conr=()
for ((i = 1; i <= tries; i++)); do
	c=$(run_one 150)
	grep -c "burst guard, SCHED_OTHER" "$ISO_TMP/isod.log" >"$ISO_TMP/guard.n"
	log "try $i cycling:    $c (burst guard lines so far: $(cat "$ISO_TMP/guard.n"))"
	set -- $c
	[ "${10}" -ge $((secs * 3)) ] || fail "cycling: only ${10} grants in $secs s: it did not cycle ($c)"
	cyc+=("$2") cycp+=("$4") cycr+=("$8")
	c=$(run_one 0)
	log "try $i continuous: $c"
	set -- $c
	con+=("$2") conp+=("$4") conr+=("$8")
done
log "the probe's own figures (with what other work took from it): cycling ${cycp[*]}, continuous ${conp[*]}"
# judge WHAT FACTOR CYCLING CONTINUOUS: the worst of cycling against
# FACTOR x the worst of continuous + 0.25 s
judge() {
	/usr/bin/python3 - "$@" <<'PY'
import sys
what = sys.argv[1]
factor = float(sys.argv[2])
cyc = [float(x) for x in sys.argv[3].split()]
con = [float(x) for x in sys.argv[4].split()]
bound = factor * max(con) + 0.25
print("%s: cycling %s, continuous %s: worst %.3f s against a bound of %.3f s -> %s" % (
    what, cyc, con, max(cyc), bound, "ok" if max(cyc) <= bound else "FAIL"))
PY
}
verdict=$(judge "both CPUs RT" 1.2 "${cyc[*]}" "${con[*]}")
log "$verdict"
case "$verdict" in *"-> ok") ;; *) fail "release and re-ask gained ISO CPU: $verdict";; esac
# and the spinners' own ISO time, summed: no more for letting go. Loose
# (3x): it is wall time with an RT policy, which higher RT work of other
# tests on a shared machine stretches (before issue 28: 10.5 s of 6 s
# against 0.5-0.6 s; now 0.44-0.67 s against 0.56-0.61 s when quiet)
verdict=$(judge "ISO time" 3 "${cycr[*]}" "${conr[*]}")
log "$verdict"
case "$verdict" in *"-> ok") ;; *) fail "release and re-ask gained ISO CPU: $verdict";; esac
audit_ok "regrant"
echo PASS
