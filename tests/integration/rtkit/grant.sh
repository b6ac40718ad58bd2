#!/usr/bin/env bash
# isod answers RealtimeKit1 as rtkit does: its interface as in Debian's
# org.freedesktop.RealtimeKit1.xml, its properties, and an unprivileged
# caller's thread becomes kernel SCHED_RR in the band (busctl itself, and
# a client that checks its own thread); high priority sets nice; ResetKnown
# returns the caller's threads; Exit is root's and stops isod cleanly.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod

# --- the interface, method by method, argument by argument ---------------
bus introspect --xml-interface "$RTKIT_NAME" "$RTKIT_PATH" >"$ISO_TMP/intro.xml" ||
	fail "introspection failed"
python3 - "$ISO_TMP/intro.xml" <<'PY' || fail "the interface differs from rtkit's"
import sys, xml.etree.ElementTree as ET
want = {
 "MakeThreadRealtime": [("thread","t"),("priority","u")],
 "MakeThreadRealtimeWithPID": [("process","t"),("thread","t"),("priority","u")],
 "MakeThreadHighPriority": [("thread","t"),("priority","i")],
 "MakeThreadHighPriorityWithPID": [("process","t"),("thread","t"),("priority","i")],
 "ResetKnown": [], "ResetAll": [], "Exit": [],
}
props = {"RTTimeUSecMax":"x", "MaxRealtimePriority":"i", "MinNiceLevel":"i"}
root = ET.parse(sys.argv[1]).getroot()
i = [x for x in root.iter("interface") if x.get("name") == "org.freedesktop.RealtimeKit1"][0]
got = {m.get("name"): [(a.get("name"), a.get("type")) for a in m.iter("arg")
                       if a.get("direction", "in") == "in"] for m in i.iter("method")}
outs = [a for m in i.iter("method") for a in m.iter("arg") if a.get("direction") == "out"]
gp = {p.get("name"): (p.get("type"), p.get("access")) for p in i.iter("property")}
assert got == want, got
assert not outs, outs
assert gp == {k: (v, "read") for k, v in props.items()}, gp
PY

# --- properties: Get and GetAll ------------------------------------------
[ "$(bus get-property "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" RTTimeUSecMax)" = "x 9223372036854775807" ] ||
	fail "RTTimeUSecMax is not INT64_MAX"
[ "$(bus get-property "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" MaxRealtimePriority)" = "i 99" ] ||
	fail "MaxRealtimePriority is not 99"
[ "$(bus get-property "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" MinNiceLevel)" = "i -15" ] ||
	fail "MinNiceLevel is not -15"
all=$(as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call "$RTKIT_NAME" "$RTKIT_PATH" \
	org.freedesktop.DBus.Properties GetAll s "$RTKIT_NAME") || fail "GetAll as nobody failed"
for p in '"RTTimeUSecMax" x 9223372036854775807' '"MaxRealtimePriority" i 99' '"MinNiceLevel" i -15'; do
	grep -qF "$p" <<<"$all" || fail "GetAll lacks $p: $all"
done

# --- busctl as nobody: its own main thread, by the WithPID form ----------
# (exec: the shell's pid is busctl's, and its main thread's id)
out=$(as_nobody bash -c 'exec busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" call '"$RTKIT_NAME $RTKIT_PATH $RTKIT_NAME"' MakeThreadRealtimeWithPID ttu $$ $$ 15; echo $$' 2>&1) ||
	fail "busctl MakeThreadRealtimeWithPID as nobody failed: $out"
grep -q "uid 65534): SCHED_ISO_RR priority 15" "$ISO_TMP/isod.log" ||
	fail "isod did not grant busctl's thread ISO_RR 15"

# --- a client's own thread: kernel RR in the band, tracked by isod -------
for m in rt rtpid; do
	bg as_nobody "$RTKIT_CLIENT" --method "$m" --prio 88 --hold 15 >"$ISO_TMP/$m.out" 2>&1
	for _ in $(seq 100); do grep -q '^sched' "$ISO_TMP/$m.out" && break; sleep 0.05; done
	[ "$(field "$ISO_TMP/$m.out" result)" = ok ] || fail "$m: $(cat "$ISO_TMP/$m.out")"
	tid=$(field "$ISO_TMP/$m.out" tid)
	# ISO 88 -> band 10..40 -> kernel 37: PipeWire's 88 is honoured, not clamped
	[ "$(kernel_sched "$tid")" = "2 37" ] || fail "$m: thread $tid is '$(kernel_sched "$tid")', want '2 37' (SCHED_RR 37)"
	rr_in_band "$(field "$ISO_TMP/$m.out" sched)" || fail "$m: the client saw '$(field "$ISO_TMP/$m.out" sched)'"
	"$ISOCTL" status --json | python3 -c '
import json,sys
s=json.load(sys.stdin)
assert any(t["tid"]=='"$tid"' and t["policy"]=="SCHED_ISO_RR" and t["prio"]==88 for t in s["threads"]), s
' || fail "$m: isoctl status does not track thread $tid as ISO_RR 88"
done

# --- ResetKnown: the caller's ISO threads back to SCHED_OTHER -------------
rtclient "$ISO_TMP/reset.out" --method resetknown || fail "ResetKnown: $(cat "$ISO_TMP/reset.out")"
for m in rt rtpid; do
	tid=$(field "$ISO_TMP/$m.out" tid)
	[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 0 ] || fail "ResetKnown left $tid '$(kernel_sched "$tid")'"
done
[ "$("$ISOCTL" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))')" = 0 ] ||
	fail "isod still tracks threads after ResetKnown"

# --- high priority: nice, not below MinNiceLevel --------------------------
rtclient "$ISO_TMP/nice.out" --method nicepid --prio -10 || fail "nice: $(cat "$ISO_TMP/nice.out")"
[ "$(field "$ISO_TMP/nice.out" sched)" = "0 0 -10" ] || fail "nice: $(cat "$ISO_TMP/nice.out")"
rtclient "$ISO_TMP/nice.out" --method nice --prio -5 || fail "nice: $(cat "$ISO_TMP/nice.out")"
[ "$(field "$ISO_TMP/nice.out" sched)" = "0 0 -5" ] || fail "nice: $(cat "$ISO_TMP/nice.out")"

# --- Exit: root only; isod demotes everything and exits 0 ----------------
bg as_nobody "$RTKIT_CLIENT" --method rt --prio 20 --hold 5 >"$ISO_TMP/last.out" 2>&1
for _ in $(seq 100); do grep -q '^sched' "$ISO_TMP/last.out" && break; sleep 0.05; done
tid=$(field "$ISO_TMP/last.out" tid)
rr_in_band "$(kernel_sched "$tid")" || fail "Exit setup: $(cat "$ISO_TMP/last.out")"
"$RTKIT_CLIENT" --method exit >"$ISO_TMP/exit.out" 2>&1 || fail "Exit as root: $(cat "$ISO_TMP/exit.out")"
wait "$ISOD_PID"
rc=$?
ISOD_PID=
[ "$rc" = 0 ] || fail "isod exited $rc after Exit"
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 0 ] || fail "Exit left $tid '$(kernel_sched "$tid")'"
echo PASS
