#!/usr/bin/env bash
# Escape: prlimit games. An unprivileged process may set RLIMIT_RTTIME
# (rtkit's mark on its clients, which the old start-up sweep exempted:
# issue 11 item 9) and raise soft limits up to the hard ones, never
# RLIMIT_RTPRIO above a hard 0.
#  A. escapetool raises its soft RLIMIT_RTTIME, fails to raise
#     RLIMIT_RTPRIO, then escapes by exec from a non-main thread: demoted.
#  B. the same under `prlimit --rttime`, with isod SIGKILLed before the
#     exec: the restarted isod's start-up sweep must demote the stray
#     though RLIMIT_RTTIME is set (it exempted it before issue 11).
#  C. the administrator's exemption: a nobody process whose HARD
#     RLIMIT_RTPRIO (limits.conf's "@audio - rtprio 95", LimitRTPRIO=)
#     allows its priority sets kernel SCHED_FIFO in the band itself. isod
#     leaves it alone over several audits (the kernel's own rule let it,
#     and docs/security.md says so); beside it, the same with a hard limit
#     below its priority is a stray and is demoted.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod
# A
"${NOBODY[@]}" "$ESCAPETOOL" prlimit "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!); a=$!
wait_for "$out" '^exec ' || fail "A did not run: $(cat "$out")"
log "A: $(tr '\n' ';' <"$out")"
[ "$(awk '$1 == "raise-rtprio" { print $2 }' "$out")" != 0 ] || fail "A: soft RLIMIT_RTPRIO raised above a hard 0"
grep -q '^Max realtime timeout *[0-9]' "/proc/$a/limits" || log "A: RLIMIT_RTTIME not set: $(grep timeout "/proc/$a/limits")"
wait_not_rt "$a" 20 || fail "A: stray $a with RLIMIT_RTTIME still RT: $(kernel_sched "$a")"
stray_logged "$a" "$a" || fail "A: no stray line for $a"
audit_ok "A: RLIMIT_RTTIME set, exec from a non-main thread"

# B
fifo=$ISO_TMP/cmd
mkfifo "$fifo"; chmod 666 "$fifo"
"${NOBODY[@]}" prlimit --rttime=200000 "$ESCAPETOOL" grant-wait "$ESC_LIFE" <"$fifo" >"$ISO_TMP/b.out" 2>&1 &
ISO_CHILDREN+=($!); b=$!
exec 7>"$fifo"
wait_for "$ISO_TMP/b.out" '^granted ' || fail "B did not run: $(cat "$ISO_TMP/b.out")"
kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=
echo exec >&7
wait_for "$ISO_TMP/b.out" '^exec ' || fail "B: no exec: $(cat "$ISO_TMP/b.out")"
[ "$(policy_of "$b")" = 1 ] || log "B: the exec'd program is not RT: $(kernel_sched "$b")"
grep -q '^Max realtime timeout *200000' "/proc/$b/limits" || fail "B: RLIMIT_RTTIME not set: $(grep timeout "/proc/$b/limits")"
start_policing_isod
wait_not_rt "$b" 20 || fail "B: the restarted isod left the prlimit'd stray $b RT: $(kernel_sched "$b")"
stray_logged "$b" "$b" || fail "B: no stray line for $b"
audit_ok "B: restart after a stray with RLIMIT_RTTIME"
exec 7>&-

# C (raising a hard limit needs CAP_SYS_RESOURCE, which a container's
# root may lack: then C runs only where it has it, as in the 6.1 guest)
prio=$((ESC_BAND_LO + 2))
if ! prlimit --rtprio="$prio:$prio" true 2>/dev/null; then
	log "C skipped: root cannot raise a hard RLIMIT_RTPRIO here (no CAP_SYS_RESOURCE)"
else
	# each says "ready" once it runs as nobody, kernel FIFO (exec keeps
	# the policy), then becomes sleep: until the test is over
	ready='echo ready; exec sleep "$0"'
	prlimit --rtprio="$prio:$prio" "${NOBODY[@]}" chrt -f "$prio" sh -c "$ready" "$ESC_LIFE" >"$ISO_TMP/allowed.out" &
	ISO_CHILDREN+=($!); allowed=$!
	# root puts it there, then it becomes nobody: its hard limit is below
	prlimit --rtprio="$((prio - 1)):$((prio - 1))" chrt -f "$prio" "${NOBODY[@]}" sh -c "$ready" "$ESC_LIFE" >"$ISO_TMP/over.out" &
	ISO_CHILDREN+=($!); over=$!
	wait_for "$ISO_TMP/allowed.out" '^ready' "$(esc_scale 100)" || fail "C: the allowed program did not start"
	wait_for "$ISO_TMP/over.out" '^ready' "$(esc_scale 100)" || fail "C: the other program did not start"
	[ "$(policy_of "$allowed")" = 1 ] || fail "C: chrt under a hard RLIMIT_RTPRIO $prio did not get SCHED_FIFO: $(kernel_sched "$allowed")"
	wait_audits 3
	[ "$(policy_of "$allowed")" = 1 ] || fail "C: isod demoted $allowed, which its hard RLIMIT_RTPRIO $prio allows: $(kernel_sched "$allowed")"
	! stray_logged "$allowed" "$allowed" || fail "C: isod called $allowed a stray"
	wait_not_rt "$over" 20 || fail "C: $over is RT $prio above its hard RLIMIT_RTPRIO $((prio - 1)), not demoted: $(kernel_sched "$over")"
	stray_logged "$over" "$over" || fail "C: no stray line for $over"
	audit_ok "C: the administrator's RLIMIT_RTPRIO"
	log "C: $allowed kept SCHED_FIFO $prio under its hard RLIMIT_RTPRIO $prio"
fi
echo PASS
