# desklib.sh — for the desktop tests (issue 31): a real PipeWire session as
# user nobody. Sourced by each test; on top of rtklib.sh (isod's
# RealtimeKit1 face on a private system bus). Everything is private to the
# test: a session bus (dbus-daemon --session as nobody), XDG_RUNTIME_DIR,
# XDG_CONFIG_HOME, XDG_STATE_HOME and HOME under the test's temp dir; the
# machine's buses, users and PipeWire (if any) are never touched.
#
# The session: Debian's stock pipewire.conf plus one drop-in (a null sink,
# support.null-audio-sink, driven by the graph's timer at 48 kHz),
# wireplumber (its stock configuration: it links the clients to the null
# sink, the default sink) and pipewire-pulse.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"

# desk_need WHY: skip with the reason; under CI=true fail (CI installs
# everything through scripts/install-deps.sh: a missing package there is
# a broken CI, not a test that may not run)
desk_need() {
	[ "${CI:-}" = true ] && fail "cannot run under CI: $*"
	skip "$*"
}
# desk_check_audio: PipeWire and its clients are installed, the JACK
# client built
desk_check_audio() {
	local c
	for c in pipewire wireplumber pipewire-pulse pw-jack pw-play pw-dump pw-metadata paplay; do
		command -v "$c" >/dev/null ||
			desk_need "$c is missing (apt-get install pipewire pipewire-bin pipewire-jack pipewire-pulse wireplumber pulseaudio-utils: scripts/install-deps.sh)"
	done
	[ -n "${JACK_LOAD:-}" ] || desk_need "jack_load not built: the JACK headers are missing (apt-get install libjack-jackd2-dev)"
}

DESK_X=$ISO_TMP/xdg
DESK_PIDS=()
DESK_ENV=()
# DESK_RT: who gives the session real time (xruns.sh compares them):
#   isod    isod --rtkit on the private system bus (the tests' case)
#   rtkit   Debian's rtkit-daemon ($RTKIT_DAEMON) there, fake_polkit
#           allowing its actions; no isod on the bus
#   none    nobody answers RealtimeKit1: no RT at all
#   fifo    as none; then root makes the busiest thread of PipeWire and
#           of the JACK client SCHED_FIFO 88 (desk_root_fifo): the
#           reference (RLIMIT_RTPRIO cannot be raised in the test VM's
#           container: no CAP_SYS_RESOURCE)
DESK_RT=${DESK_RT:-isod}

# nobody_env CMD...: CMD as nobody in the session's environment, and only it
nobody_env() { "${AS_NOBODY[@]}" "${DESK_ENV[@]}" "$@"; }

# desk_bg NAME CMD...: CMD as nobody in the background, its output in
# $ISO_TMP/NAME.log; DESK_LAST is its pid
desk_bg() {
	local name=$1
	shift
	"${AS_NOBODY[@]}" "${DESK_ENV[@]}" "$@" >"$ISO_TMP/$name.log" 2>&1 &
	DESK_LAST=$!
	DESK_PIDS+=("$DESK_LAST")
}

# wait_path PATH [SECONDS]: until PATH exists (a socket a daemon made)
wait_path() {
	local i
	for ((i = 0; i < 20 * ${2:-10} * ${ISOSCHED_TEST_TIME_SCALE:-1}; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# desk_session: isod with --rtkit (or DESK_RT's other source of RT) on
# the private system bus, the private session bus as nobody, and
# DESK_ENV: the environment of a desktop session of nobody, the only one
# its programs see
desk_session() {
	case "$DESK_RT" in
	isod) start_rtkit_isod;;
	rtkit)
		[ -x "${RTKIT_DAEMON:-}" ] || skip "RTKIT_DAEMON (an rtkit-daemon binary) not given"
		start_bus
		bg "$FAKE_POLKIT" 'org.freedesktop.RealtimeKit1.acquire-real-time:*' \
			'org.freedesktop.RealtimeKit1.acquire-high-priority:*' >"$ISO_TMP/pk.out" 2>&1
		wait_file_lines "$ISO_TMP/pk.out" ready 1 || fail "fake_polkit did not start"
		# as compare.sh runs it (its stderr must be a pipe)
		"$RTKIT_DAEMON" --stderr --no-drop-privileges --no-chroot \
			2> >(cat >"$ISO_TMP/rtkit.log") &
		ISO_CHILDREN+=($!)
		wait_rtkit;;
	none|fifo) start_bus;;
	*) fail "DESK_RT=$DESK_RT: isod, rtkit, none or fifo";;
	esac
	mkdir -p "$DESK_X" "$ISO_TMP/cfg" "$ISO_TMP/home"
	chown -R nobody:nogroup "$DESK_X" "$ISO_TMP/cfg" "$ISO_TMP/home"
	chmod 700 "$DESK_X"
	DESK_ENV=(env -i PATH=/usr/bin:/bin:/usr/games HOME="$ISO_TMP/home" XDG_RUNTIME_DIR="$DESK_X"
		XDG_CONFIG_HOME="$ISO_TMP/cfg" XDG_STATE_HOME="$ISO_TMP/home/state"
		XDG_DATA_HOME="$ISO_TMP/home/data" XDG_CACHE_HOME="$ISO_TMP/home/cache"
		DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS"
		DBUS_SESSION_BUS_ADDRESS="unix:path=$DESK_X/bus"
		PULSE_SERVER="unix:$DESK_X/pulse/native" LANG=C.UTF-8)
	desk_bg session-bus dbus-daemon --session --address="unix:path=$DESK_X/bus" --nofork --nosyslog
	wait_path "$DESK_X/bus" || fail "the session bus did not start: $(cat "$ISO_TMP/session-bus.log")"
}

# desk_start: desk_session, then pipewire, wireplumber, pipewire-pulse;
# returns when all of them answer. PW_PID, WP_PID, PULSE_PID are theirs.
desk_start() {
	desk_check_audio
	desk_session
	mkdir -p "$ISO_TMP/cfg/pipewire/pipewire.conf.d"
	cat >"$ISO_TMP/cfg/pipewire/pipewire.conf.d/isotest.conf" <<'CONF'
context.properties = { default.clock.rate = 48000 default.clock.allowed-rates = [ 48000 ] }
context.objects = [
  { factory = adapter
    args = { factory.name = support.null-audio-sink node.name = isotest-sink
             node.description = "isotest null sink" media.class = Audio/Sink
             audio.rate = 48000 audio.position = [ FL FR ]
             node.driver = true priority.driver = 30000 priority.session = 30000 } }
]
CONF
	chown -R nobody:nogroup "$ISO_TMP/cfg"
	# mod.rt at debug level: what PipeWire read from RealtimeKit1 and did
	desk_bg pipewire env PIPEWIRE_DEBUG="mod.rt:5,W" pipewire
	PW_PID=$DESK_LAST
	wait_path "$DESK_X/pipewire-0" || fail "pipewire did not start: $(cat "$ISO_TMP/pipewire.log")"
	desk_bg wireplumber env WIREPLUMBER_DEBUG=W wireplumber
	WP_PID=$DESK_LAST
	desk_bg pipewire-pulse env PIPEWIRE_DEBUG="mod.rt:5,W" pipewire-pulse
	PULSE_PID=$DESK_LAST
	wait_path "$DESK_X/pulse/native" || fail "pipewire-pulse did not start: $(cat "$ISO_TMP/pipewire-pulse.log")"
	# wireplumber is up when it has made the null sink the default sink
	for ((i = 0; i < 200; i++)); do
		nobody_env pw-metadata 0 default.audio.sink 2>/dev/null | grep -q isotest-sink && return 0
		kill -0 "$WP_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$ISO_TMP/wireplumber.log" >&2
	fail "wireplumber did not make isotest-sink the default sink"
}

# desk_root_fifo PID: the thread of PID that runs most (its data thread,
# in a running graph: the most CPU time over a 0.3 s window, a
# measurement, not a wait) becomes SCHED_FIFO 88 by root's hand
desk_root_fifo() {
	local t best='' most=-1 ran
	declare -A before
	for t in /proc/"$1"/task/*; do
		read -r ran _ <"$t/schedstat" 2>/dev/null && before[${t##*/}]=$ran
	done
	sleep 0.3
	for t in /proc/"$1"/task/*; do
		read -r ran _ <"$t/schedstat" 2>/dev/null || continue
		ran=$((ran - ${before[${t##*/}]:-0}))
		[ "$ran" -gt "$most" ] && { most=$ran; best=${t##*/}; }
	done
	[ -n "$best" ] && chrt -f -p 88 "$best" || fail "cannot make a thread of $1 SCHED_FIFO"
	log "root: thread $best of $1 ($(cat "/proc/$1/task/$best/comm")) SCHED_FIFO 88"
}

# desk_quantum N: force the graph's quantum (pw-metadata, as a user would)
desk_quantum() {
	nobody_env pw-metadata -n settings 0 clock.force-quantum "$1" >/dev/null ||
		fail "pw-metadata clock.force-quantum $1 failed"
}

# make_wav FILE SECONDS: 48 kHz stereo s16 sine, quiet
make_wav() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb")
w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
one = b"".join(struct.pack("<hh", v, v) for v in
              (int(3000 * math.sin(2 * math.pi * 440 * i / 48000)) for i in range(48000)))
w.writeframes(one * int(sys.argv[2]))
w.close()
PY
	chmod 644 "$1"
}

# node_running NAME-REGEX: a node of the graph whose node.name or
# application.name matches is in state "running" (pw-dump)
node_running() {
	nobody_env pw-dump 2>/dev/null | /usr/bin/python3 -c '
import json, re, sys
rx = re.compile(sys.argv[1])
for o in json.load(sys.stdin):
    if o.get("type") != "PipeWire:Interface:Node":
        continue
    i = o.get("info") or {}
    p = i.get("props") or {}
    if any(rx.search(str(p.get(k, ""))) for k in ("node.name", "application.name", "client.name")) \
            and i.get("state") == "running":
        sys.exit(0)
sys.exit(1)' "$1"
}

# wait_node_running NAME-REGEX [SECONDS]
wait_node_running() {
	local i
	for ((i = 0; i < 10 * ${2:-10} * ${ISOSCHED_TEST_TIME_SCALE:-1}; i++)); do
		node_running "$1" && return 0
		sleep 0.1
	done
	return 1
}

# iso_threads PID: "TID COMM KPOLICY KPRIO ISO-POLICY" for each thread of
# process PID that isod tracks (isoctl status --json)
iso_threads() {
	local t
	"$ISOCTL" status --json | /usr/bin/python3 -c '
import json, sys
for t in json.load(sys.stdin)["threads"]:
    if t["pid"] == int(sys.argv[1]):
        print(t["tid"], t["policy"])' "$1" | while read -r t pol; do
		printf '%s %s %s %s\n' "$t" "$(cat "/proc/$1/task/$t/comm" 2>/dev/null | tr ' ' _)" \
			"$(kernel_sched "$t")" "$pol"
	done
}

# assert_iso_in_band WHAT PID: at least one thread of PID is ISO in isod's
# status and kernel RR or FIFO inside the band 10..40; every kernel-RT
# thread of PID is one isod tracks
assert_iso_in_band() {
	local what=$1 pid=$2 lines tid comm pol prio iso t n=0
	lines=$(iso_threads "$pid")
	while read -r tid comm pol prio iso; do
		[ -n "$tid" ] || continue
		case "$iso" in SCHED_ISO_RR|SCHED_ISO_FIFO) ;; *) continue;; esac
		case "$pol" in 1|2) ;; *) continue;; esac
		[ "$prio" -ge 10 ] && [ "$prio" -le 40 ] || fail "$what: thread $tid ($comm) at kernel priority $prio, outside the band"
		log "$what: thread $tid ($comm) $iso, kernel policy $pol priority $prio"
		n=$((n + 1))
	done <<<"$lines"
	[ "$n" -ge 1 ] || fail "$what (pid $pid): no thread ISO in the band; isod tracks: ${lines:-nothing}"
	for t in /proc/"$pid"/task/*; do
		t=${t##*/}
		case "$(kernel_sched "$t" | cut -d' ' -f1)" in
		1|2|6) grep -q "^$t " <<<"$lines" || fail "$what: thread $t is kernel RT and isod does not track it";;
		esac
	done
}

# assert_rt_props_read NAME: PipeWire's module-rt (its log at debug level,
# $ISO_TMP/NAME.log) read isod's RealtimeKit1 properties and set its
# limits from them without a complaint: MinNiceLevel (-15) lets its
# nice.level -11 stand, RTTimeUSecMax (INT64_MAX) is what its
# RLIMIT_RTTIME was clamped to, MaxRealtimePriority (99) lets its rt.prio
# 88 stand unclamped; it went through RTKit (not the portal, not its own
# rlimits: nobody has RLIMIT_RTPRIO 0)
assert_rt_props_read() {
	local f=$ISO_TMP/$1.log l
	for l in "main thread nice level set to -11" \
		"clamping rt.time.soft from [0-9]* to 9223372036854775807 because of RTKit" \
		"initialized using RTKit" \
		"acquired realtime priority 88 for thread [0-9]* using RTKit"; do
		grep -q "$l" "$f" || fail "$1's module-rt did not say '$l': $(grep mod.rt "$f" | tail -n 20)"
	done
	if grep mod.rt "$f" | grep -qE "RTKit does not give us|setrlimit\(\) failed|Failed|could not|error|Clamp rtprio 88 to [1-9]"; then
		fail "$1's module-rt complained: $(grep mod.rt "$f" | grep -E 'RTKit does not|setrlimit|Failed|could not|error|Clamp')"
	fi
}

# desk_stop: the session ends: clients and daemons get SIGTERM (a user's
# logout), then are waited for; whatever is left gets SIGKILL
desk_stop() {
	local p
	for ((p = ${#DESK_PIDS[@]} - 1; p >= 0; p--)); do
		kill -TERM "${DESK_PIDS[p]}" 2>/dev/null
	done
	for p in "${DESK_PIDS[@]}"; do
		timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null || kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	DESK_PIDS=()
}

desk_cleanup() {
	local rc=$?
	desk_stop
	return $rc
}
trap 'desk_cleanup; rtk_cleanup; iso_cleanup' EXIT
