#!/usr/bin/env bash
# Escape (issue 28, item 1): SCHED_DEADLINE. No user can make itself
# DEADLINE (the kernel wants CAP_SYS_NICE whatever RLIMIT_RTPRIO says),
# but a thread may be made one by a privileged helper, or keep it from
# some path nobody thought of: to the rule it is kernel RT like FIFO and
# RR. Root makes a nobody thread SCHED_DEADLINE (10 % of a CPU); isod —
# the start-up sweep, the audit, or the BPF program's report — must demote
# it within the audit interval with its stray line, even with a hard
# RLIMIT_RTPRIO of 99 (which allows FIFO/RR, never DEADLINE). And a
# thread isod tracks, made DEADLINE behind its back, is put back to its
# grant (isod_verify) or demoted — never left DEADLINE.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
command -v chrt >/dev/null || skip "no chrt"

hards=0
# a hard limit above 0 needs CAP_SYS_RESOURCE, which a container's root
# may lack (then only 0 here; the 6.1 guest has it)
if prlimit --rtprio=99:99 true 2>/dev/null; then hards="0 99"; else log "hard RLIMIT_RTPRIO 99 skipped: no CAP_SYS_RESOURCE"; fi
start_policing_isod
for hard in $hards; do
	out=$ISO_TMP/dl-$hard.out
	prlimit --rtprio="$hard:$hard" "${NOBODY[@]}" "$RTTOOL" idle "$ESC_LIFE" >"$out" 2>&1 &
	ISO_CHILDREN+=($!); pid=$!
	wait_for "$out" '^exec ' || fail "hard $hard: the client did not run: $(cat "$out")"
	chrt --deadline --sched-runtime 1000000 --sched-deadline 10000000 \
		--sched-period 10000000 -p 0 "$pid" 2>"$ISO_TMP/chrt.err" ||
		skip "cannot make a thread SCHED_DEADLINE here: $(cat "$ISO_TMP/chrt.err")"
	log "hard $hard: thread $pid made SCHED_DEADLINE: $(kernel_sched "$pid")"
	wait_not_rt "$pid" "$(esc_scale 30)" || fail "hard $hard: DEADLINE thread $pid of nobody still $(kernel_sched "$pid") 3 s on"
	[ "$(policy_of "$pid")" = 0 ] || fail "hard $hard: demoted to $(kernel_sched "$pid"), not SCHED_OTHER"
	grep -E "stray: thread $pid .*was kernel SCHED_DEADLINE " "$ISO_TMP/isod.log" >/dev/null ||
		fail "hard $hard: isod did not log the DEADLINE stray $pid: $(grep -i stray "$ISO_TMP/isod.log")"
	audit_ok "after a DEADLINE stray (hard RLIMIT_RTPRIO $hard)"
done

out=$ISO_TMP/dl-tracked.out
"${NOBODY[@]}" "$RTTOOL" lower "$ESC_LIFE" fifo 81 stay >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^lowered ' || fail "tracked: the client did not run: $(cat "$out")"
tid=$(field "$out" granted tid)
gp=$(awk '$1 == "granted" { print $6 }' "$out")
for _ in $(seq "$(esc_scale 30)"); do [ "$(kernel_sched "$tid")" = "1 $gp" ] && break; sleep 0.1; done
chrt --deadline --sched-runtime 1000000 --sched-deadline 10000000 \
	--sched-period 10000000 -p 0 "$tid" || fail "tracked: cannot make $tid SCHED_DEADLINE"
log "tracked: thread $tid made $(kernel_sched "$tid")"
isods_answer "tracked" "$tid" "$gp"
[ "$ok" = demoted ] || tracked_tids | grep -qx "$tid" || fail "tracked: thread $tid RT again but not tracked"
audit_ok "after a tracked thread was made DEADLINE"
echo PASS
