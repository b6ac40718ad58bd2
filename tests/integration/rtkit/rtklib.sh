# rtklib.sh — for the rtkit tests: a private system-like dbus-daemon in
# the test's temp dir (bus.conf.in), never the machine's bus, and isod
# with --rtkit on it. Sourced after tests/integration/lib.sh.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
command -v dbus-daemon >/dev/null || skip "dbus-daemon is missing (apt-get install dbus-daemon)"
command -v busctl >/dev/null || skip "busctl is missing (systemd)"
: "${RTKIT_CLIENT:?RTKIT_CLIENT not set (run through meson test)}"

RTKIT_NAME=org.freedesktop.RealtimeKit1
RTKIT_PATH=/org/freedesktop/RealtimeKit1
BUS_PID=

start_bus() {
	sed "s|@DIR@|$ISO_TMP|g" "$SRC_ROOT/tests/integration/rtkit/bus.conf.in" >"$ISO_TMP/bus.conf"
	dbus-daemon --config-file="$ISO_TMP/bus.conf" --nofork --nosyslog >"$ISO_TMP/dbus.log" 2>&1 &
	BUS_PID=$!
	for _ in $(seq 100); do
		[ -S "$ISO_TMP/system_bus_socket" ] && break
		sleep 0.05
	done
	[ -S "$ISO_TMP/system_bus_socket" ] || fail "private dbus-daemon did not start: $(cat "$ISO_TMP/dbus.log")"
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$ISO_TMP/system_bus_socket
	export DBUS_SYSTEM_BUS_ADDRESS
}

stop_bus() {
	[ -n "$BUS_PID" ] || return 0
	kill -TERM "$BUS_PID" 2>/dev/null
	wait "$BUS_PID" 2>/dev/null
	BUS_PID=
}

bus() { busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }

# Wait until someone answers RealtimeKit1 on the private bus.
wait_rtkit() {
	for _ in $(seq 100); do
		bus get-property "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_NAME" MaxRealtimePriority \
			>/dev/null 2>&1 && return 0
		sleep 0.05
	done
	cat "$ISO_TMP/isod.log" >&2
	fail "nobody answers $RTKIT_NAME on the private bus"
}

# start_rtkit_isod [isod options...]: the private bus, then isod on it.
start_rtkit_isod() {
	[ -n "$BUS_PID" ] || start_bus
	start_isod --rtkit "$@"
	wait_rtkit
}

# isod first, then its bus; then lib.sh's cleanup (children, log, temp
# dir) with the test's exit status.
rtk_cleanup() {
	local rc=$?
	stop_isod
	stop_bus
	return $rc
}
trap 'rtk_cleanup; iso_cleanup' EXIT

# rtclient OUT [rtkit_client options...]: the test client as nobody, its
# output to OUT; waits for it.
rtclient() {
	local out=$1
	shift
	as_nobody "$RTKIT_CLIENT" "$@" >"$out" 2>&1
}

# field OUT KEY -> the rest of the line "KEY ..." of a client's output
field() { sed -n "s/^$2 //p" "$1" | head -n1; }

# in_band "POLICY PRIO": SCHED_RR inside the default band 10..40?
rr_in_band() {
	local pol prio
	read -r pol prio _ <<<"$1"
	[ "$pol" = 2 ] && [ "$prio" -ge 10 ] && [ "$prio" -le 40 ]
}
