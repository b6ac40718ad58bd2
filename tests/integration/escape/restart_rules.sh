#!/usr/bin/env bash
# Escape (issue 28): the same rules after a restart. A SIGKILLed isod
# restarted on its state file re-grants only what a request could get now
# (admit.h): its records pass the allow lists, max_limit, the per-user
# count and the setuid rule of the configuration it starts with, and
# what fails is demoted, never left RT.
#  F. nobody's grant, then a restart with allow_users = root: not granted
#     again, demoted, said why;
#  G. two of nobody's threads granted, then a restart with
#     max_threads_per_user = 1: one recovered, the other demoted;
#  H. nobody's main thread granted, isod killed, the thread execs a
#     setuid copy of sleep (made in the test's temp dir): the restart does
#     not grant a program that changed identity (as the exec event would
#     have withdrawn it), demoted.
# The auditor runs after each restart.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root

# start_client NAME: a granted non-main thread of a new nobody process
# (until the test is over: elib.sh, ESC_LIFE); sets TID and CLIENT
start_client() {
	"${NOBODY[@]}" "$ESCAPETOOL" grant-wait "$ESC_LIFE" </dev/null >"$ISO_TMP/$1.out" 2>&1 &
	CLIENT=$!; ISO_CHILDREN+=($!)
	wait_for "$ISO_TMP/$1.out" '^granted ' || fail "$1: client did not start: $(cat "$ISO_TMP/$1.out")"
	TID=$(field "$ISO_TMP/$1.out" granted tid)
	[ "$(policy_of "$TID")" = 1 ] || fail "$1: thread $TID not kernel FIFO: $(kernel_sched "$TID")"
}
kill_isod() { kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=; }

# F
start_policing_isod
start_client f
kill_isod
[ "$(policy_of "$TID")" = 1 ] || fail "F: $TID lost FIFO with isod gone (nothing to test)"
start_policing_isod --allow-users root
tracked_tids | grep -qx "$TID" && fail "F: the restart granted $TID to a user allow_users no longer admits"
wait_not_rt "$TID" 20 || fail "F: $TID left RT: $(kernel_sched "$TID")"
grep -q "state file: thread $TID (pid $CLIENT, uid 65534) not granted again: user 65534 is not allowed" \
	"$ISO_TMP/isod.log" || fail "F: recovery did not say why $TID was not granted again"
audit_ok "F: restart with allow_users = root"
kill "$CLIENT"; wait "$CLIENT" 2>/dev/null
stop_isod

# G
rm -f "$ISO_TMP/isod.state"
start_policing_isod
start_client g1; t1=$TID
start_client g2; t2=$TID
kill_isod
start_policing_isod --max-threads-per-user 1
n=0
for t in $t1 $t2; do
	if tracked_tids | grep -qx "$t"; then
		n=$((n + 1))
		[ "$(policy_of "$t")" = 1 ] || fail "G: recovered $t not FIFO: $(kernel_sched "$t")"
	else
		wait_not_rt "$t" 20 || fail "G: $t neither recovered nor demoted: $(kernel_sched "$t")"
	fi
done
[ "$n" = 1 ] || fail "G: $n of nobody's 2 threads recovered with max_threads_per_user = 1"
audit_ok "G: restart with max_threads_per_user = 1"
stop_isod

# H
suid=$ISO_TMP/suid-sleep
if ! cp /usr/bin/sleep "$suid" || ! chown root:root "$suid" || ! chmod 4755 "$suid"; then
	log "H: skipped: cannot make a setuid copy"
	echo PASS
	exit 0
fi
case "$(findmnt -n -o OPTIONS -T "$ISO_TMP")" in
*nosuid*) log "H: skipped: $ISO_TMP is nosuid"; echo PASS; exit 0;;
esac
rm -f "$ISO_TMP/isod.state"
start_policing_isod
mkfifo "$ISO_TMP/go"
# the main thread of a nobody shell that execs the setuid program on cue
# (bounded: the program sleeps ESC_LIFE s, cleanup kills it); it says
# "ready" once it runs as nobody
"${NOBODY[@]}" bash -c 'echo ready; read -r _ <"$0"; exec "$1" "$2"' "$ISO_TMP/go" "$suid" "$ESC_LIFE" >"$ISO_TMP/h.out" &
h=$!; ISO_CHILDREN+=($!)
wait_for "$ISO_TMP/h.out" '^ready' || fail "H: the shell did not start"
as_nobody "$ISOCTL" set --fifo -p 10 "$h" >/dev/null || fail "H: cannot grant $h"
[ "$(policy_of "$h")" = 1 ] || fail "H: $h not FIFO: $(kernel_sched "$h")"
kill_isod
echo go >"$ISO_TMP/go"
for _ in $(seq 50); do
	grep -q '^Uid:.*[[:space:]]0[[:space:]]' "/proc/$h/status" 2>/dev/null && break
	sleep 0.1
done
grep -q '^Uid:.*[[:space:]]0[[:space:]]' "/proc/$h/status" || fail "H: setuid did not take: $(grep Uid "/proc/$h/status")"
[ "$(policy_of "$h")" = 1 ] || fail "H: the setuid program $h is not FIFO (nothing to test): $(kernel_sched "$h")"
start_policing_isod
tracked_tids | grep -qx "$h" && fail "H: the restart granted ISO to $h, a program that changed identity"
wait_not_rt "$h" 20 || fail "H: $h left RT: $(kernel_sched "$h")"
grep -q "state file: thread $h (pid $h, uid 65534) not granted again: it runs a program that changes its identity" \
	"$ISO_TMP/isod.log" || fail "H: recovery did not say why $h was not granted again"
audit_ok "H: setuid exec while isod was down"
echo PASS
