#!/usr/bin/env bash
# Refusals carry rtkit 0.13's error names (clients match on them) with
# isod's reason in the message; malformed calls (wrong signatures, huge
# arguments, unknown members) change nothing and isod stays up.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod --max-threads-per-user 2 --rate-limit 1 --rate-burst 40

AD=org.freedesktop.DBus.Error.AccessDenied
FAILED=org.freedesktop.DBus.Error.Failed
# expect NAME TEXT [client options]: the call is refused with NAME and a
# message starting with TEXT, and the client's thread is unchanged
expect() {
	local name=$1 text=$2 res
	shift 2
	rtclient "$ISO_TMP/e.out" "$@"
	res=$(field "$ISO_TMP/e.out" result)
	case "$res" in
	"error $name: $text"*) ;;
	*) fail "$*: got '$res', want $name '$text…'";;
	esac
	[ "$(field "$ISO_TMP/e.out" sched | cut -d' ' -f1)" = 0 ] || fail "$*: the thread changed: $(cat "$ISO_TMP/e.out")"
	log "$*: $res"
}

# a foreign thread: init's (root's), by both forms
expect $AD "Operation not permitted" --method rt --tid 1
expect $AD "Operation not permitted" --method rtpid --pid 1 --tid 1
expect $AD "Operation not permitted" --method nicepid --pid 1 --tid 1 --prio -5
# a pid that is not the caller's, with the caller's own thread
expect $AD "Operation not permitted" --method rtpid --pid 1
# bad priorities
expect $FAILED "Invalid argument" --method rt --prio 0
expect $FAILED "Invalid argument" --method rtpid --prio 100
expect $FAILED "Invalid argument" --method rtpid --prio 4294967295
expect $AD "Operation not permitted" --method nicepid --prio -16
expect $FAILED "Invalid argument" --method nice --prio 20
# a thread that does not exist (pid_max is at most 2^22)
expect $FAILED "No such file or directory" --method rt --tid 4194305
expect $FAILED "Invalid argument" --method rt --tid 99999999999
# Exit is root's
expect $AD "Operation not permitted" --method exit

# caps: the third thread of a user with max_threads_per_user 2
holders=()
for i in 1 2; do
	bg as_nobody "$RTKIT_CLIENT" --method rt --prio 10 --hold 3 >"$ISO_TMP/cap$i.out" 2>&1
	holders+=($!)
	for _ in $(seq 100); do grep -q '^sched' "$ISO_TMP/cap$i.out" && break; sleep 0.05; done
	[ "$(field "$ISO_TMP/cap$i.out" result)" = ok ] || fail "cap $i: $(cat "$ISO_TMP/cap$i.out")"
done
expect $AD "Device or resource busy" --method rt --prio 10

# malformed: wrong signatures, unknown members, huge arguments
before=$("$ISOCTL" status --json)
for args in "MakeThreadRealtime s x" "MakeThreadRealtime tuu 1 2 3" "MakeThreadRealtimeWithPID tu 1 2" \
	"MakeThreadHighPriority tu 1 2" "ResetKnown u 1" "Exit s now" "NoSuchMethod"; do
	# shellcheck disable=SC2086
	if out=$(as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" $args 2>&1); then
		fail "malformed call '$args' succeeded"
	fi
	log "malformed '$args': $out"
done
huge=$(head -c 1000000 /dev/zero | tr '\0' x)
as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" \
	MakeThreadRealtime s "$huge" >/dev/null 2>&1 && fail "a 1 MB string argument was accepted"
as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call "$RTKIT_NAME" "$RTKIT_PATH" \
	org.freedesktop.DBus.Properties Get ss "$RTKIT_NAME" "$huge" >/dev/null 2>&1 &&
	fail "a property named by 1 MB was found"
kill -0 "$ISOD_PID" || fail "isod died on malformed calls"
after=$("$ISOCTL" status --json)
python3 - "$before" "$after" <<'PY' || fail "malformed calls changed isod's threads"
import json, sys
b, a = (json.loads(x)["threads"] for x in sys.argv[1:3])
assert [(t["tid"], t["policy"], t["prio"]) for t in b] == [(t["tid"], t["policy"], t["prio"]) for t in a], (b, a)
PY

# the rate limit (shared with the socket): 1/s, 40 at once, then busy
wait "${holders[@]}" # their threads gone: the socket's refusal below is the rate's
# (MakeThreadHighPriority at nice 0: succeeds, changes nothing; the client
# stops at the first refusal)
rtclient "$ISO_TMP/r.out" --method nice --prio 0 --count 100
case "$(field "$ISO_TMP/r.out" result)" in
"error $AD: Device or resource busy: rate limited"*) ;;
*) fail "100 quick calls were not rate limited: $(cat "$ISO_TMP/r.out")";;
esac
# ... and the socket's clients of that user see the same bucket. The bucket
# refills a token a second, and a slow run (ASan) may take that long to get
# here, so the socket gets up to 20 tries: a bucket of its own would hold 40
# and grant them all, the shared one refuses one of them.
tries=0
while as_nobody "$ISOCTL" run --rr -p 5 -- true 2>"$ISO_TMP/sock.err"; do
	tries=$((tries + 1))
	[ "$tries" -lt 20 ] || fail "the socket did not share the D-Bus rate limit: 20 grants"
done
log "the socket was refused after $tries grants"
grep -qi "rate limited" "$ISO_TMP/sock.err" || fail "socket refusal is not the rate limit: $(cat "$ISO_TMP/sock.err")"
echo PASS
