#!/usr/bin/env bash
# Escape (issue 28, item 1): a granted thread lowers itself below the band
# (raw sched_setattr to kernel SCHED_FIFO 9, then 1) and goes on running
# without exec. It is still isod's: isod's policy check (isod_verify)
# must see the change and put its grant back — or demote it — within
# 3 s; it must never be left kernel RT where its owner put it, and must
# stay tracked while it is RT.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root

start_policing_isod
for kp in 9 1; do
	out=$ISO_TMP/stay-$kp.out
	"${NOBODY[@]}" "$RTTOOL" lower "$ESC_LIFE" fifo "$kp" stay >"$out" 2>&1 &
	ISO_CHILDREN+=($!)
	wait_for "$out" '^lowered ' || fail "FIFO $kp: the client did not run: $(cat "$out")"
	log "FIFO $kp: $(tr '\n' ';' <"$out")"
	[ "$(awk '$1 == "lowered" { print $2 }' "$out")" = 0 ] || fail "FIFO $kp: the kernel refused the lowering"
	tid=$(field "$out" granted tid)
	gp=$(awk '$1 == "granted" { print $6 }' "$out")
	isods_answer "FIFO $kp" "$tid" "$gp"
	if [ "$ok" = "put back" ]; then
		tracked_tids | grep -qx "$tid" || fail "FIFO $kp: thread $tid RT again but not tracked"
		grep -q "thread $tid .*was changed to kernel policy 1 priority $kp by its owner: isod's grant put back" \
			"$ISO_TMP/isod.log" || fail "FIFO $kp: isod did not log putting its grant back"
	fi
	audit_ok "after a tracked thread lowered itself to FIFO $kp"
done
echo PASS
