#!/usr/bin/env bash
# Escape (issue 28, item 1): RR <-> FIFO. The kernel lets an RT thread
# change its own RT policy without privilege when its hard RLIMIT_RTPRIO
# is not 0 (an administrator's "rtprio 1") and it does not raise its
# priority; a granted FIFO thread thus turns itself kernel SCHED_RR, out
# of what its limit allows. Root here may lack CAP_SYS_RESOURCE (a
# container: no hard limit above 0 can be given), so root makes the
# owner's system call for it (chrt -p on the thread): the same change
# behind isod's back.
#  A. a tracked FIFO thread switched to RR at its priority: isod must put
#     its grant back (FIFO) or demote it, and keep it tracked while RT;
#  B. a granted non-main thread lowers itself to FIFO 9, is switched to
#     RR 9, and execs: the new image is kernel RR 9 below the band,
#     allowed by nothing — a stray, demoted with its line.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
command -v chrt >/dev/null || skip "no chrt"

start_policing_isod
# A
out=$ISO_TMP/rr-a.out
"${NOBODY[@]}" "$RTTOOL" lower "$ESC_LIFE" fifo 81 stay >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^lowered ' || fail "A: the client did not run: $(cat "$out")"
tid=$(field "$out" granted tid)
gp=$(awk '$1 == "granted" { print $6 }' "$out")
# its grant is back (it lowered itself to 81 first): then the switch
for _ in $(seq "$(esc_scale 30)"); do [ "$(kernel_sched "$tid")" = "1 $gp" ] && break; sleep 0.1; done
chrt -r -p "$gp" "$tid" || fail "A: root cannot switch $tid to RR"
log "A: $(tr '\n' ';' <"$out") switched: $(kernel_sched "$tid")"
isods_answer "A" "$tid" "$gp"
[ "$ok" = demoted ] || tracked_tids | grep -qx "$tid" || fail "A: thread $tid RT again but not tracked"
audit_ok "A: a tracked FIFO thread switched to RR"

# B
out=$ISO_TMP/rr-b.out fifo=$ISO_TMP/cmd
mkfifo "$fifo"; chmod 666 "$fifo"
"${NOBODY[@]}" "$RTTOOL" lower "$ESC_LIFE" fifo 9 wait <"$fifo" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
exec 7>"$fifo"
wait_for "$out" '^lowered ' || fail "B: the client did not run: $(cat "$out")"
[ "$(awk '$1 == "lowered" { print $2 }' "$out")" = 0 ] || fail "B: the kernel refused FIFO 9: $(cat "$out")"
tid=$(field "$out" granted tid)
chrt -r -p 9 "$tid" || fail "B: root cannot switch $tid to RR 9"
echo exec >&7
wait_for "$out" '^exec ' || fail "B: no exec: $(cat "$out")"
exec 7>&-
log "B: $(tr '\n' ';' <"$out")"
pid=$(field "$out" exec pid)
wait_not_rt "$pid" "$(esc_scale 30)" || fail "B: exec'd program $pid still kernel RT 3 s after the exec, untracked: $(kernel_sched "$pid")"
grep -E "stray: thread $pid .*was kernel SCHED_RR 9 " "$ISO_TMP/isod.log" >/dev/null ||
	fail "B: isod did not log the stray $pid as SCHED_RR 9: $(grep -i stray "$ISO_TMP/isod.log")"
audit_ok "B: RR 9 and exec from a non-main thread"
echo PASS
