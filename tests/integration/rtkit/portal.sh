#!/usr/bin/env bash
# The Realtime portal's case: xdg-desktop-portal calls the …WithPID forms
# with a sandboxed app's pid and thread, not its own. As rtkit, isod serves
# a process of the caller's own user — the app's thread becomes kernel RR in
# the band, tracked — and refuses another user's process or a pid the
# caller cannot see.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod

call() { # call METHOD SIG ARGS...: busctl call as nobody on the private bus
	as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call -- "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" "$@"
}

# the "app": a process of nobody, asleep; the "portal": busctl of nobody
"${AS_NOBODY[@]}" sleep 60 &
app=$!
ISO_CHILDREN+=("$app")
for _ in $(seq 100); do [ "$(stat -c %u "/proc/$app" 2>/dev/null)" = 65534 ] && break; sleep 0.05; done

call MakeThreadRealtimeWithPID ttu "$app" "$app" 20 >"$ISO_TMP/ok.out" 2>&1 ||
	fail "the portal's call for a process of its user was refused: $(cat "$ISO_TMP/ok.out")"
rr_in_band "$(kernel_sched "$app")" || fail "the app's thread is '$(kernel_sched "$app")', not SCHED_RR in the band"
"$ISOCTL" status --json | python3 -c '
import json,sys
s=json.load(sys.stdin)
assert any(t["tid"]=='"$app"' and t["uid"]==65534 and t["policy"]=="SCHED_ISO_RR" and t["prio"]==20 for t in s["threads"]), s
' || fail "isod does not track the app's thread as ISO_RR 20"
call MakeThreadHighPriorityWithPID tti "$app" "$app" -5 >"$ISO_TMP/nice.out" 2>&1 ||
	fail "MakeThreadHighPriorityWithPID for a process of the caller's user: $(cat "$ISO_TMP/nice.out")"

# another user's process: init (root), and root's own sleeper
sleep 60 &
rootp=$!
ISO_CHILDREN+=("$rootp")
for p in 1 "$rootp"; do
	if out=$(call MakeThreadRealtimeWithPID ttu "$p" "$p" 20 2>&1); then
		fail "a process of root ($p) was granted through another process"
	fi
	grep -q "Access denied" <<<"$out" || fail "root's process $p: $out"
	[ "$(kernel_sched "$p" | cut -d' ' -f1)" = 0 ] || fail "root's process $p changed: $(kernel_sched "$p")"
done
# a thread not in the named process: refused, nothing changed
"${AS_NOBODY[@]}" sleep 60 &
other=$!
ISO_CHILDREN+=("$other")
if out=$(call MakeThreadRealtimeWithPID ttu "$app" "$other" 20 2>&1); then
	fail "thread $other granted as if of process $app"
fi
[ "$(kernel_sched "$other" | cut -d' ' -f1)" = 0 ] || fail "thread $other changed: $(kernel_sched "$other")"
# a pid that does not exist (pid_max is at most 2^22)
if out=$(call MakeThreadRealtimeWithPID ttu 4194305 4194305 20 2>&1); then
	fail "a missing process was granted"
fi
grep -q "No such file or directory" <<<"$out" || fail "missing process: $out"
# from inside a PID namespace, a host pid is not visible: refused
out=$ISO_TMP/ns.out
if unshare -Urpf true 2>/dev/null; then
	as_nobody unshare -Urpf "$RTKIT_CLIENT" --method rtpid --pid "$app" --prio 40 >"$out" 2>&1 || true
	grep -q '^result error' "$out" || fail "a host pid named from a namespace: $(cat "$out")"
fi
grep -q "process $rootp belongs to another user" "$ISO_TMP/isod.log" ||
	fail "isod did not log why root's process was refused"
kill "$app" "$other" "$rootp" 2>/dev/null
echo PASS
