#!/usr/bin/env bash
# The installed D-Bus policy (packaging/rtkit/isosched-rtkit.conf) on a
# bus with system.conf's defaults: root's isod owns the name, anybody may
# ask for real time and read the properties, and Exit, ResetKnown and
# ResetAll are root's, as in rtkit's own policy.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
sed -e "s|@DIR@|$ISO_TMP|g" -e "s|@POLICY@|$SRC_ROOT/packaging/rtkit/isosched-rtkit.conf|" \
	"$SRC_ROOT/tests/integration/rtkit/system-bus.conf.in" >"$ISO_TMP/bus.conf"
dbus-daemon --config-file="$ISO_TMP/bus.conf" --nofork --nosyslog >"$ISO_TMP/dbus.log" 2>&1 &
BUS_PID=$!
for _ in $(seq 100); do [ -S "$ISO_TMP/system_bus_socket" ] && break; sleep 0.05; done
[ -S "$ISO_TMP/system_bus_socket" ] || fail "dbus-daemon refused the policy: $(cat "$ISO_TMP/dbus.log")"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$ISO_TMP/system_bus_socket
start_rtkit_isod
rtclient "$ISO_TMP/a.out" --method rtpid --prio 30 || fail "MakeThreadRealtimeWithPID as nobody: $(cat "$ISO_TMP/a.out")"
rr_in_band "$(field "$ISO_TMP/a.out" sched)" || fail "not RR: $(cat "$ISO_TMP/a.out")"
as_nobody busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property "$RTKIT_NAME" "$RTKIT_PATH" \
	"$RTKIT_NAME" MaxRealtimePriority >/dev/null || fail "nobody cannot read the properties"
for m in resetknown resetall exit; do
	rtclient "$ISO_TMP/$m.out" --method $m && fail "$m as nobody got through the bus policy"
	grep -q "AccessDenied" "$ISO_TMP/$m.out" || fail "$m: $(cat "$ISO_TMP/$m.out")"
done
grep -q "Exit requested" "$ISO_TMP/isod.log" && fail "Exit reached isod"
"$RTKIT_CLIENT" --method resetall >"$ISO_TMP/root.out" 2>&1 || fail "ResetAll as root: $(cat "$ISO_TMP/root.out")"
echo PASS
