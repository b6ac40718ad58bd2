#!/usr/bin/env bash
# A caller in its own user and PID namespace (as a Flatpak app is) names
# its thread by its namespace's ids: isod maps them through NSpid, the
# WithPID form takes pids as the caller sees them (its own is 1 here), and
# a pid outside its namespace is no process.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod
unshare -Urpf true 2>/dev/null || skip "unshare -Urpf is not allowed here"
for m in rt rtpid; do
	out=$ISO_TMP/ns-$m.out
	bg as_nobody unshare -Urpf "$RTKIT_CLIENT" --method "$m" --prio 40 --hold 3 >"$out" 2>&1
	for _ in $(seq 100); do grep -q '^sched' "$out" && break; sleep 0.05; done
	[ "$(field "$out" result)" = ok ] || fail "$m in a namespace: $(cat "$out")"
	rr_in_band "$(field "$out" sched)" || fail "$m in a namespace: $(cat "$out")"
	nstid=$(field "$out" tid)
	[ "$nstid" -lt 10 ] || fail "the client is not in its own PID namespace (tid $nstid)"
	# isod tracks it under the host's id, owned by nobody
	"$ISOCTL" status --json | python3 -c '
import json,sys
s=json.load(sys.stdin)
assert any(t["uid"]==65534 and t["policy"]=="SCHED_ISO_RR" and t["prio"]==40 and t["tid"]!='"$nstid"' for t in s["threads"]), s
' || fail "$m: isod does not track the namespaced thread under its host id"
done
# a pid its namespace does not have (only the client, pid 1, is in it) is
# no process, whatever the host has under that number
out=$ISO_TMP/ns-bad.out
as_nobody unshare -Urpf "$RTKIT_CLIENT" --method rtpid --pid 2 --prio 40 >"$out" 2>&1
grep -q '^result error org.freedesktop.DBus.Error.Failed: No such file or directory' "$out" ||
	fail "WithPID with a pid outside the caller's namespace: $(cat "$out")"
echo PASS
