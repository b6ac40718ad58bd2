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

# mkstray: a nobody process made kernel FIFO 85 behind isod's back, while
# it sleeps: no switch-in, so only an audit can find it (the BPF program
# reports a stray at its switch-in: made RT while it still starts up —
# setpriv, exec — it is reported at once, audit or not; the 6.1 guest saw
# that). Bounded: it sleeps ESC_LIFE s, cleanup kills it.
mkstray() {
	local s i
	"${NOBODY[@]}" sleep "$ESC_LIFE" & STRAY=$!; ISO_CHILDREN+=($!)
	for ((i = 0; i < $(esc_scale 100); i++)); do
		read -r s <"/proc/$STRAY/stat" 2>/dev/null
		# "PID (sleep) S ...": sleep itself, asleep
		[[ "$s" == "$STRAY (sleep) S "* ]] && break
		sleep 0.05
	done
	[[ "$s" == "$STRAY (sleep) S "* ]] || fail "the stray-to-be never slept: $s"
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
chrt -f 86 sleep "$ESC_LIFE" & rootrt=$!; ISO_CHILDREN+=($!)
mkstray
wait_not_rt "$STRAY" "$(esc_scale 30)" || fail "the audit did not demote $STRAY in $(esc_scale 3) s: $(kernel_sched "$STRAY")"
stray_logged "$STRAY" "$STRAY" || fail "no stray line for $STRAY"
grep "stray: thread $STRAY " "$ISO_TMP/isod.log" | grep -q "uid 65534, comm sleep" || fail "the stray line does not name uid and comm"
[ "$(policy_of "$rootrt")" = 1 ] || fail "the audit demoted root's own RT thread"
audit_ok "after isod's audit"
echo PASS
