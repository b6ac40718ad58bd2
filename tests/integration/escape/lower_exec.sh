#!/usr/bin/env bash
# Escape (issue 28, item 1): a granted NON-MAIN thread lowers itself below
# the band — a raw sched_setattr to kernel SCHED_FIFO 9, then 1: the
# kernel lets any RT thread lower its own priority without privilege —
# and calls execve. The new image runs under the process id with the
# lowered policy. Before issue 28 isod asked only "RT in the band?" and
# left it kernel FIFO 9 untracked, with no budget, for good. The rule is
# every priority: isod must demote it as a stray, with its log line, and
# the auditor must find nothing.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root

start_policing_isod
for kp in 9 1; do
	out=$ISO_TMP/lower-$kp.out
	"${NOBODY[@]}" "$RTTOOL" lower "$ESC_LIFE" fifo "$kp" exec >"$out" 2>&1 &
	ISO_CHILDREN+=($!)
	wait_for "$out" '^exec ' || fail "FIFO $kp: escape did not run: $(cat "$out")"
	log "FIFO $kp: $(tr '\n' ';' <"$out")"
	[ "$(awk '$1 == "lowered" { print $2 }' "$out")" = 0 ] || fail "FIFO $kp: the kernel refused the lowering: $(cat "$out")"
	granted=$(field "$out" granted tid)
	pid=$(field "$out" exec pid)
	[ "$granted" != "$pid" ] || fail "FIFO $kp: the granted thread was the main thread"
	[ "$(field "$out" exec policy)" = 1 ] || log "FIFO $kp: the kernel did not keep FIFO across exec here"
	wait_not_rt "$pid" "$(esc_scale 30)" || fail "FIFO $kp: exec'd program $pid still kernel RT 3 s after the exec, untracked: $(kernel_sched "$pid")"
	stray_logged "$pid" "$pid" || fail "FIFO $kp: isod did not log the stray $pid: $(grep -i stray "$ISO_TMP/isod.log")"
	grep -E "stray: thread $pid .*was kernel SCHED_FIFO $kp " "$ISO_TMP/isod.log" >/dev/null ||
		fail "FIFO $kp: the stray line does not name its policy and priority"
	audit_ok "after lowering to FIFO $kp and exec from a non-main thread"
done
echo PASS
