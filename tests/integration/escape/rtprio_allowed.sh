#!/usr/bin/env bash
# The administrator's exemption, outside the band (issue 28, item 1): a
# nobody process whose HARD RLIMIT_RTPRIO is 20 sets itself kernel
# SCHED_FIFO 15 — below the suite's band, allowed by its limit. The rule
# is every priority, and its exemption is the same: isod leaves it alone
# over several audits, and so does the auditor. Beside it, root makes a
# process with a hard limit of 10 kernel FIFO 15: allowed by nothing, a
# stray, demoted.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
# raising a hard limit needs CAP_SYS_RESOURCE, which a container's root
# may lack: then this runs only where it has it, as in the 6.1 guest
prlimit --rtprio=20:20 true 2>/dev/null || skip "root cannot raise a hard RLIMIT_RTPRIO here (no CAP_SYS_RESOURCE)"

start_policing_isod
ok=$ISO_TMP/ok.out bad=$ISO_TMP/bad.out
prlimit --rtprio=20:20 "${NOBODY[@]}" "$RTTOOL" self "$ESC_LIFE" fifo 15 >"$ok" 2>&1 &
ISO_CHILDREN+=($!); a=$!
prlimit --rtprio=10:10 "${NOBODY[@]}" "$RTTOOL" idle "$ESC_LIFE" >"$bad" 2>&1 &
ISO_CHILDREN+=($!); b=$!
wait_for "$ok" '^self ' || fail "the allowed client did not run: $(cat "$ok")"
wait_for "$bad" '^exec ' || fail "the other client did not run: $(cat "$bad")"
[ "$(awk '$1 == "self" { print $2 }' "$ok")" = 0 ] || fail "FIFO 15 under a hard RLIMIT_RTPRIO 20 refused: $(cat "$ok")"
chrt -f -p 15 "$b" || fail "root cannot make $b FIFO 15"
wait_not_rt "$b" "$(esc_scale 30)" || fail "FIFO 15 above its hard RLIMIT_RTPRIO 10 still $(kernel_sched "$b")"
stray_logged "$b" "$b" || fail "no stray line for $b"
# two audits (audit_interval 1) and more: the allowed one is left alone
n=$(grep -c "stray:" "$ISO_TMP/isod.log")
wait_audits 2
[ "$(kernel_sched "$a")" = "1 15" ] || fail "the allowed FIFO 15 thread was changed: $(kernel_sched "$a")"
! grep -qE "stray: thread $a " "$ISO_TMP/isod.log" || fail "isod called the allowed thread $a a stray"
log "allowed FIFO 15 left alone; stray lines: $n"
audit_ok "an RLIMIT_RTPRIO-allowed thread below the band"
echo PASS
