#!/usr/bin/env bash
# A flood of genuine strays is rate-limited in the journal but counted
# whole (issue 28, item 3): root makes 30 of nobody's sleeping processes
# kernel FIFO in the band (isod polices none of them); isod demotes all
# 30, writes at most STRAY_LOG_BURST (10) "stray:" lines in a window of
# 10 s, then one "N more stray warnings suppressed" line when the window
# ends — and isoctl status counts every one: lines written plus lines
# suppressed is what it says it demoted.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
N=30
BURST=10

start_policing_isod
counts() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
s = json.load(sys.stdin).get("strays")
print("%d %d" % (s["demoted"], s["suppressed"]) if s else "none")'
}
[ "$(counts)" != none ] || fail "isoctl status --json has no stray counts"
pids=()
for i in $(seq $N); do
	"${NOBODY[@]}" sleep 30 &
	pids+=($!)
	ISO_CHILDREN+=($!)
done
# sleeping: the kernel never switches them in, so the audit finds them;
# all at once (one process, not 30 chrt: a slow machine, the 6.1 guest,
# would spread them over more than a window)
t0=$(date +%s)
/usr/bin/python3 - "${pids[@]}" <<'PY' || fail "cannot make the sleepers FIFO"
import os, sys
for p in sys.argv[1:]:
    os.sched_setscheduler(int(p), os.SCHED_FIFO, os.sched_param(85))
PY
for p in "${pids[@]}"; do
	wait_not_rt "$p" 50 || fail "stray $p still kernel RT 5 s later: $(kernel_sched "$p")"
done
# the windows the demotions can fall in: one more than the whole windows
# they took (a window may have opened just before)
windows=$(( ($(date +%s) - t0 + 1) / 10 + 2 ))
mine=0
for p in "${pids[@]}"; do
	stray_logged "$p" "$p" && mine=$((mine + 1))
done
log "$N strays demoted; $mine of them have a line so far"
# the window's end: one line with the rest (another test's strays in the
# band may share the window: the sums below take them in)
wait_for "$ISO_TMP/isod.log" 'more stray warnings? suppressed' 150 ||
	fail "no 'suppressed' line 15 s after the flood: $(grep -c 'stray: thread' "$ISO_TMP/isod.log") stray lines"
# a line is written before its count can be read: read the lines before
# and after the counts (another test's stray may come meanwhile)
lines0=$(grep -c 'stray: thread' "$ISO_TMP/isod.log")
read -r demoted suppressed <<<"$(counts)"
lines=$(grep -c 'stray: thread' "$ISO_TMP/isod.log")
said=$(grep -oE 'stray: [0-9]+ more stray warnings? suppressed' "$ISO_TMP/isod.log" | awk '{s += $2} END {print s + 0}')
log "isoctl status: $demoted demoted, $suppressed suppressed; log: $lines stray lines, $said said suppressed"
[ "$demoted" -ge "$N" ] || fail "isod counted $demoted strays, $N were demoted"
[ "$mine" -le $((BURST * windows)) ] && [ "$mine" -lt "$N" ] ||
	fail "$mine stray lines for a flood of $N in at most $windows windows (at most $BURST each): not rate-limited"
[ "$((lines0 + suppressed))" -le "$demoted" ] && [ "$((lines + suppressed))" -ge "$demoted" ] ||
	fail "lines ($lines0..$lines) + suppressed ($suppressed) != demoted ($demoted): a stray went uncounted"
[ "$said" -ge $((N - BURST * windows)) ] && [ "$said" -le "$suppressed" ] ||
	fail "the log says $said suppressed, isoctl status $suppressed (flood of $N, $BURST lines a window)"
audit_ok "after a flood of $N strays"
echo PASS
