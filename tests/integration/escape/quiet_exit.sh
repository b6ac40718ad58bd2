#!/usr/bin/env bash
# No false alarms (issue 28, item 3): a thread isod granted that exits is
# still kernel FIFO for a moment after isod forgot it (at the kernel's
# exit report, or when its handle fails), and a leader that exits first
# stays a zombie with its policy while its process lives. The stray scan
# (the kernel's reports, the lost-process check, the audit) then saw an
# RT thread with no record: before, 81 such grants gave 32-35 "stray:"
# warnings about threads isod itself had granted. Here ~80 grants to
# short-lived programs — isoctl run -- timeout (the program and its
# adopted child killed while ISO), threads exiting while ISO, main
# threads exiting before the other — and not one "stray:" line may name a
# thread this isod granted; the auditor is clean afterwards, and no thread
# of theirs is left RT.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
: "${SHORTLIVED:?SHORTLIVED not set (run through meson test)}"

start_policing_isod

# (wait_audits, elib.sh: whatever is left of the exits has been looked at)

out=$ISO_TMP/short.out
: >"$out"
# isoctl run -- timeout: the program and its child (adopted: inherit) both
# killed while ISO, the child by timeout's SIGTERM, then timeout exits
for i in $(seq 12); do
	"${NOBODY[@]}" "$ISOCTL" run --fifo -p 50 -- timeout 0.1 sh -c 'while :; do :; done' || true
done
for i in $(seq 4); do
	"${NOBODY[@]}" "$ISOCTL" run --rr -p 20 -- timeout 0.15 sleep 5 || true
done
# threads that exit while ISO, two processes at once
for i in $(seq 3); do
	"${NOBODY[@]}" "$SHORTLIVED" threads 8 30 >>"$out" 2>&1 &
	"${NOBODY[@]}" "$SHORTLIVED" threads 4 20 >>"$out" 2>&1
	wait $!
done
# the main thread exits first, the other lives on ISO for 100 ms
for i in $(seq 8); do
	"${NOBODY[@]}" "$SHORTLIVED" main-first 100 >>"$out" 2>&1
done
grep -q grant-failed "$out" && fail "a grant failed: $(grep grant-failed "$out" | head -3)"
wait_audits 2

log_f=$ISO_TMP/isod.log
granted=$(grep -oE 'thread [0-9]+ \(pid [0-9]+, uid [0-9]+\): SCHED_ISO_(FIFO|RR) priority' "$log_f" |
	awk '{print $2}' | sort -u)
n=$(echo "$granted" | grep -c .)
log "$n threads granted ISO (isod's log)"
[ "$n" -ge 70 ] || fail "only $n grants: $(grep -c . "$out") lines of shortlived output"
false_alarms=0
while read -r tid; do
	if grep -qE "stray: thread $tid \(" "$log_f"; then
		false_alarms=$((false_alarms + 1))
		log "false alarm: $(grep -E "stray: thread $tid \(" "$log_f" | head -1)"
	fi
done <<<"$granted"
counts=$("$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["strays"])')
log "stray warnings about threads isod granted: $false_alarms of $n grants; counts $counts"
[ "$false_alarms" -eq 0 ] || fail "$false_alarms stray warnings about threads isod itself granted ($n grants)"
# and none of them left RT, none in the band untracked anywhere
for t in $granted; do
	p=$(policy_of "$t")
	case "$p" in 1|2) fail "granted thread $t still kernel RT ($p) after its program ended";; esac
done
audit_ok "after $n grants to short-lived programs"

# "Exiting" is decided per thread: a live thread beside a zombie leader
# (its process's main thread left through pthread_exit) is no exiting
# thread. Root makes both kernel FIFO in the band: both are demoted, the
# living one with its "stray:" line, the zombie without.
"${NOBODY[@]}" "$SHORTLIVED" zombie-leader 8000 >"$ISO_TMP/zombie.out" 2>&1 &
zpid=$!
ISO_CHILDREN+=($zpid)
wait_for "$ISO_TMP/zombie.out" '^survivor tid' || fail "no survivor: $(cat "$ISO_TMP/zombie.out")"
ztid=$(field "$ISO_TMP/zombie.out" survivor tid)
for _ in $(seq 50); do
	grep -q '^State:.*Z' "/proc/$zpid/task/$zpid/status" 2>/dev/null && break
	sleep 0.1
done
grep -q '^State:.*Z' "/proc/$zpid/task/$zpid/status" || fail "leader $zpid is no zombie"
chrt -f -p 85 "$zpid" 2>/dev/null || log "the kernel refused to change the zombie leader $zpid"
chrt -f -p 85 "$ztid" || fail "chrt on survivor $ztid"
wait_not_rt "$ztid" 50 || fail "live thread $ztid beside a zombie leader still kernel RT 5 s later"
wait_not_rt "$zpid" 50 || fail "zombie leader $zpid still kernel RT 5 s later"
wait_for "$ISO_TMP/isod.log" "stray: thread $ztid \\(process $zpid," 30 ||
	fail "live thread $ztid beside a zombie leader was demoted without its stray line: $(grep -E "thread $ztid " "$ISO_TMP/isod.log")"
! grep -qE "stray: thread $zpid \\(" "$ISO_TMP/isod.log" || fail "the zombie leader $zpid was called a stray"
log "live thread beside a zombie leader: a stray; the zombie: demoted, no line"
audit_ok "after the zombie leader's stray"
echo PASS
