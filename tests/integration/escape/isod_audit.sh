#!/usr/bin/env bash
# isod's own audit of the band (audit_interval): a stray that came by a
# path no event shows — here root makes a nobody process kernel FIFO in
# the band, as an unknown escape would — is demoted within the interval,
# with a log line naming it. Left alone: root's own RT thread in the band.
# With the lib's default (--sweep-orphans no, several test isods) and with
# audit_interval 0 there is no periodic audit: the stray stays.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
"$ISOD" --help | grep -q -- --audit-interval || fail "isod has no --audit-interval (no periodic audit)"

mkstray() { # a nobody process made kernel FIFO 85 behind isod's back
	"${NOBODY[@]}" sleep 6 & STRAY=$!; ISO_CHILDREN+=($!)
	sleep 0.1
	chrt -f -p 85 "$STRAY" || fail "chrt failed"
}

# off: the lib's default, and audit_interval 0
start_isod "${ESC_BAND[@]}"
mkstray; sleep 2.5
[ "$(policy_of "$STRAY")" = 1 ] || fail "an isod started with --sweep-orphans no demoted $STRAY"
kill "$STRAY"; stop_isod
start_isod "${ESC_BAND[@]}" --sweep-orphans yes --audit-interval 0
mkstray; sleep 2.5
[ "$(policy_of "$STRAY")" = 1 ] || fail "audit_interval 0 still audited"
kill "$STRAY"; stop_isod

# on
start_isod "${ESC_BAND[@]}" --sweep-orphans yes --audit-interval 1
chrt -f 86 sleep 6 & rootrt=$!; ISO_CHILDREN+=($!)
mkstray
wait_not_rt "$STRAY" 30 || fail "the audit did not demote $STRAY in 3 s: $(kernel_sched "$STRAY")"
stray_logged "$STRAY" "$STRAY" || fail "no stray line for $STRAY"
grep "stray: thread $STRAY " "$ISO_TMP/isod.log" | grep -q "uid 65534, comm sleep" || fail "the stray line does not name uid and comm"
[ "$(policy_of "$rootrt")" = 1 ] || fail "the audit demoted root's own RT thread"
audit_ok "after isod's audit"
echo PASS
