#!/usr/bin/env bash
# polkit = yes: isod asks polkit for rtkit's own action ids (for the
# pinned calling process) on top of its allow lists — both must agree —
# and without polkit on the bus says so once and uses its allow lists.
# polkit here is a stand-in on the private bus (fake_polkit) with fixed
# rules; the real polkitd is not touched.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
: "${FAKE_POLKIT:?FAKE_POLKIT not set}"
RT=org.freedesktop.RealtimeKit1.acquire-real-time
HP=org.freedesktop.RealtimeKit1.acquire-high-priority
start_rtkit_isod --polkit yes

# no polkit on the bus: the allow lists alone (everyone), said once
for i in 1 2; do
	rtclient "$ISO_TMP/n$i.out" --method rtpid --prio 30 || fail "without polkit: $(cat "$ISO_TMP/n$i.out")"
	rr_in_band "$(field "$ISO_TMP/n$i.out" sched)" || fail "without polkit: $(cat "$ISO_TMP/n$i.out")"
done
[ "$(grep -c "polkit is not on the bus" "$ISO_TMP/isod.log")" = 1 ] || fail "'polkit is not on the bus' not said exactly once"

# polkit allows nobody real time, not high priority
bg "$FAKE_POLKIT" "$RT:65534" >"$ISO_TMP/pk.out" 2>&1
for _ in $(seq 100); do grep -q ready "$ISO_TMP/pk.out" && break; sleep 0.05; done
grep -q ready "$ISO_TMP/pk.out" || fail "fake polkit did not start: $(cat "$ISO_TMP/pk.out")"
rtclient "$ISO_TMP/a.out" --method rtpid --prio 30 || fail "polkit yes: $(cat "$ISO_TMP/a.out")"
rr_in_band "$(field "$ISO_TMP/a.out" sched)" || fail "polkit yes: $(cat "$ISO_TMP/a.out")"
grep -q "^check $RT pid [0-9]* start [1-9][0-9]* uid 65534 yes" "$ISO_TMP/pk.out" ||
	fail "polkit was not asked for the pinned process: $(cat "$ISO_TMP/pk.out")"
rtclient "$ISO_TMP/b.out" --method nicepid --prio -5 && fail "high priority granted against polkit"
grep -q "^result error org.freedesktop.DBus.Error.AccessDenied: Operation not permitted: polkit does not allow $HP" "$ISO_TMP/b.out" ||
	fail "polkit no: $(cat "$ISO_TMP/b.out")"
[ "$(field "$ISO_TMP/b.out" sched)" = "0 0 0" ] || fail "the thread changed: $(cat "$ISO_TMP/b.out")"
# root is not asked
"$RTKIT_CLIENT" --method rtpid --prio 5 >"$ISO_TMP/root.out" 2>&1 || fail "root: $(cat "$ISO_TMP/root.out")"
grep -q "uid 0 " "$ISO_TMP/pk.out" && fail "polkit was asked about root"

# both must agree: allow_users root only refuses nobody whatever polkit says
stop_isod
start_rtkit_isod --polkit yes --allow-users root
rtclient "$ISO_TMP/c.out" --method rtpid --prio 30 && fail "allow_users ignored under polkit"
grep -q "AccessDenied: Operation not permitted: user 65534 is not allowed" "$ISO_TMP/c.out" ||
	fail "allow_users: $(cat "$ISO_TMP/c.out")"
echo PASS
