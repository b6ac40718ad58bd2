#!/usr/bin/env bash
# A reservation (issue 32) never escapes isod's books: its CPU time is
# charged to the ISO budget like any ISO thread's; its exit gives its
# bandwidth back; an exec in its thread keeps it tracked (isoctl run
# itself execs); an isod killed with SIGKILL finds it in the state file
# and counts it against the caps again; an isod that stops returns it to
# SCHED_OTHER; and a policing isod (sweep and audit every second) never
# takes a tracked reservation for a stray.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/reserve/rlib.sh"
need_root
command -v chrt >/dev/null || skip "no chrt"
ISOD_OPTS=(--reserve-cpu 30 --reserve-user "$RES_USER" --sweep-orphans yes --audit-interval 1)
start_isod "${ISOD_OPTS[@]}"

# exec: isoctl run asks for the reservation, then execs sh, which execs
# sleep: the same thread, DEADLINE and tracked throughout
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 1ms/5333us -- /bin/sh -c 'exec sleep 120' &
a=$!; ISO_CHILDREN+=($a)
wait_policy "$a" 6 || fail "reservation of $a: $(kernel_sched "$a") '$(reserve_of "$a")'"
for _ in $(seq 50); do [ "$(cat "/proc/$a/comm")" = sleep ] && break; sleep 0.1; done
[ "$(cat "/proc/$a/comm")" = sleep ] || fail "sh did not exec sleep"
[ "$(reserve_of "$a")" = reserved ] || fail "after exec: '$(reserve_of "$a")'"
[ "$(kernel_sched "$a" | cut -d' ' -f1)" = 6 ] || fail "after exec: $(kernel_sched "$a")"

# policing: two full audits later the tracked reservation is still
# DEADLINE, and isod demoted no stray
audits() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
s=json.load(sys.stdin)["strays"]; print(s["audits"], s["demoted"])'
}
read -r n0 d0 < <(audits)
for _ in $(seq 100); do
	read -r n d < <(audits)
	[ "$n" -ge $((n0 + 2)) ] && break
	sleep 0.1
done
[ "$n" -ge $((n0 + 2)) ] || fail "no two audits in 10 s ($n0 -> $n)"
[ "$(kernel_sched "$a" | cut -d' ' -f1)" = 6 ] || fail "policing isod demoted its own reservation: $(kernel_sched "$a")"
[ "$d" = "$d0" ] || fail "isod demoted $((d - d0)) strays: $(grep stray "$ISO_TMP/isod.log")"

# charged: a spinning reservation's time is ISO use (the kernel throttles
# it at 10 % of a CPU; the burst guard leaves it alone)
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 500us/5ms -- /bin/sh -c 'while :; do :; done' &
s=$!; ISO_CHILDREN+=($s)
wait_policy "$s" 6 || fail "spinner's reservation: $(kernel_sched "$s")"
used=0
for _ in $(seq 60); do
	used=$("$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["usage"])')
	/usr/bin/python3 -c "import sys; sys.exit(not $used >= 1.0)" && break
	sleep 0.1
done
/usr/bin/python3 -c "import sys; sys.exit(not $used >= 1.0)" || fail "ISO use $used %: the spinning reservation is not charged"
log "spinning reservation (10 % of a CPU): ISO use $used %"
grep -E "thread $s ran .* without blocking: burst guard" "$ISO_TMP/isod.log" &&
	fail "the burst guard demoted a reservation"
[ "$(kernel_sched "$s" | cut -d' ' -f1)" = 6 ] || fail "spinning reservation is $(kernel_sched "$s")"
kill -KILL "$s"; wait "$s" 2>/dev/null
wait_untracked "$s" || fail "exited spinner $s still listed"

# exit: the bandwidth comes back (nobody holds 18.75 % of its 30 %)
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 1ms/10ms -- sleep 120 &
b=$!; ISO_CHILDREN+=($b)
wait_policy "$b" 6 || fail "10 % more: $(kernel_sched "$b") '$(reserve_of "$b")'"
kill "$b"; wait "$b" 2>/dev/null
wait_untracked "$b" || fail "exited $b still listed"
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 1ms/10ms -- sleep 120 &
b=$!; ISO_CHILDREN+=($b)
wait_policy "$b" 6 || fail "the exited thread's 10 % not given back: $(reserve_of "$b")"

# restart: SIGKILL, then a new isod reads the state file
kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=
grep -E "^$a [0-9]+ 65534 [0-9]+ 261 99 0 1000000 5333000 5333000$" "$ISO_TMP/isod.state" >/dev/null ||
	fail "state file has no reservation record for $a: $(cat "$ISO_TMP/isod.state")"
start_isod "${ISOD_OPTS[@]}"
[ "$(reserve_of "$a")" = reserved ] || fail "after restart: '$(reserve_of "$a")'"
[ "$(reserve_of "$b")" = reserved ] || fail "after restart: $b '$(reserve_of "$b")'"
[ "$(kernel_sched "$a" | cut -d' ' -f1)" = 6 ] || fail "after restart: $(kernel_sched "$a")"
# the recovered reservations count: 18.75 + 10 of nobody's 30 %
if as_nobody "$ISOCTL" run --reserve 1ms/10ms -- true 2>"$ISO_TMP/err"; then
	fail "after restart nobody got 10 % more over its cap"
fi
grep -q "left" "$ISO_TMP/err" || fail "after restart: $(cat "$ISO_TMP/err")"
log "after restart: $(cat "$ISO_TMP/err")"

# an isod that stops returns them to SCHED_OTHER
stop_isod
[ "$(kernel_sched "$a" | cut -d' ' -f1)" = 0 ] || fail "isod stopped, $a is $(kernel_sched "$a")"
[ "$(kernel_sched "$b" | cut -d' ' -f1)" = 0 ] || fail "isod stopped, $b is $(kernel_sched "$b")"
start_isod "${ISOD_OPTS[@]}" # for the end-of-test audit
echo PASS
