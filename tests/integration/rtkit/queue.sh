#!/usr/bin/env bash
# Only one process can own org.freedesktop.RealtimeKit1. An isod started
# while another owner (rtkit-daemon; here: a first isod) holds the name
# says so and waits in the bus's queue; calls go to the owner; once the
# owner exits, the waiting isod takes the name and answers.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod
first=$ISOD_PID
# the second isod: its own socket and state file
ISOSCHED_SOCKET=$ISO_TMP/second.sock
"$ISOD" --rtkit --socket "$ISOSCHED_SOCKET" --state-file "$ISO_TMP/second.state" --log-level debug \
	--sweep-orphans no >"$ISO_TMP/second.log" 2>&1 &
second=$!
ISO_CHILDREN+=($second)
for _ in $(seq 100); do grep -q "waits in the queue" "$ISO_TMP/second.log" && break; sleep 0.05; done
grep -q "is owned by another process" "$ISO_TMP/second.log" || fail "the second isod does not say the name is taken: $(cat "$ISO_TMP/second.log")"
rtclient "$ISO_TMP/1.out" --method rt --prio 10 || fail "call to the first: $(cat "$ISO_TMP/1.out")"
grep -q "SCHED_ISO_RR priority 10" "$ISO_TMP/isod.log" || fail "the first isod did not serve the call"
grep -q "SCHED_ISO_RR" "$ISO_TMP/second.log" && fail "the queued isod served a call"
stop_isod # the first goes: the name passes to the second
for _ in $(seq 100); do grep -q "isod owns $RTKIT_NAME" "$ISO_TMP/second.log" && break; sleep 0.05; done
grep -q "isod owns $RTKIT_NAME" "$ISO_TMP/second.log" || fail "the second isod did not take the name: $(cat "$ISO_TMP/second.log")"
rtclient "$ISO_TMP/2.out" --method rt --prio 11 || fail "call to the second: $(cat "$ISO_TMP/2.out")"
grep -q "SCHED_ISO_RR priority 11" "$ISO_TMP/second.log" || fail "the second isod did not serve the call"
kill -TERM "$second"
wait "$second" || fail "the second isod exited $?"
[ -n "$first" ]
echo PASS
