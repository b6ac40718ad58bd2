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
"${NOBODY[@]}" "$ESCAPETOOL" setattr "$(esc_scale 6)" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^after ' || fail "escape did not run: $(cat "$out")"
log "kernel's answers (0 or -errno): $(grep -v '^granted' "$out" | tr '\n' ';')"
tid=$(field "$out" granted tid)
kp=$(awk '$1 == "granted" { print $6 }' "$out")
for k in raise fifo-to-rr clear-reset-on-fork; do
	[ "$(awk -v k="$k" '$1 == k { print $2 }' "$out")" != 0 ] ||
		fail "the kernel let an unprivileged owner $k its RT thread"
done
# lowered: put back within two seconds (before it starts spinning)
ok=
for _ in $(seq 20); do
	[ "$(kernel_sched "$tid")" = "1 $kp" ] && { ok=1; break; }
	sleep 0.1
done
[ -n "$ok" ] || fail "thread $tid left where its owner put it: $(kernel_sched "$tid"), grant was FIFO $kp"
grep -q "thread $tid .*was changed to kernel policy 1 priority $((kp - 1)) by its owner: isod's grant put back" \
	"$ISO_TMP/isod.log" || fail "isod did not log putting its grant back"
wait_for "$out" '^spinning ' 30 || fail "the client did not start spinning"
# the spinning thread is still policed: demoted over budget
wait_not_rt "$tid" 50 || fail "the runaway $tid was never demoted: $(kernel_sched "$tid")"
tracked_tids | grep -qx "$tid" || fail "thread $tid no longer tracked"
audit_ok "after the owner's own sched_setattr"
echo PASS
