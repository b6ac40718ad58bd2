#!/usr/bin/env bash
# Escape: the owner changes its granted thread's kernel policy itself
# (sched_setattr). What the kernel lets an unprivileged owner of an RT
# thread do with RLIMIT_RTPRIO 0 (recorded in the log):
#   raise the priority: EPERM; FIFO -> RR: EPERM (a new RT policy needs
#   RLIMIT_RTPRIO); clear RESET_ON_FORK: EPERM; util clamps: allowed (no
#   more CPU time, a frequency hint); LOWER the priority: allowed.
# The lowered thread is somewhere isod did not put it: isod must notice
# (isod_verify, every second) and put its grant back, and the thread must
# stay policed: then it spins, and with iso_cpu 10 isod demotes it.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod --iso-cpu 10 --iso-period 1
# it spins when told (a line on the fifo): after isod has put its grant back
fifo=$ISO_TMP/go
mkfifo "$fifo"
"${NOBODY[@]}" "$ESCAPETOOL" setattr "$ESC_LIFE" <"$fifo" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
exec 7>"$fifo"
wait_for "$out" '^after ' || fail "escape did not run: $(cat "$out")"
log "kernel's answers (0 or -errno): $(grep -v '^granted' "$out" | tr '\n' ';')"
tid=$(field "$out" granted tid)
kp=$(awk '$1 == "granted" { print $6 }' "$out")
for k in raise fifo-to-rr clear-reset-on-fork; do
	[ "$(awk -v k="$k" '$1 == k { print $2 }' "$out")" != 0 ] ||
		fail "the kernel let an unprivileged owner $k its RT thread"
done
# lowered: isod's check (every second) puts its grant back, and says so
# after it has
wait_for "$ISO_TMP/isod.log" "thread $tid .*was changed to kernel policy 1 priority $((kp - 1)) by its owner: isod's grant put back" \
	"$(esc_scale 100)" || fail "isod did not put its grant back: $(kernel_sched "$tid"), grant was FIFO $kp"
[ "$(kernel_sched "$tid")" = "1 $kp" ] || fail "thread $tid not at its grant after isod put it back: $(kernel_sched "$tid"), grant was FIFO $kp"
echo spin >&7
wait_for "$out" '^spinning ' "$(esc_scale 100)" || fail "the client did not start spinning"
# the spinning thread is still policed: demoted over budget
wait_not_rt "$tid" "$(esc_scale 50)" || fail "the runaway $tid was never demoted: $(kernel_sched "$tid")"
tracked_tids | grep -qx "$tid" || fail "thread $tid no longer tracked"
audit_ok "after the owner's own sched_setattr"
echo PASS
