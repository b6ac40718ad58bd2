#!/usr/bin/env bash
# A real PipeWire session as user nobody (issue 31, item 1): pipewire,
# wireplumber and pipewire-pulse on private buses, a null sink at 48 kHz,
# and three kinds of client: pw-play (native), the project's JACK client
# through pw-jack (pipewire-jack, 30 % of each period), paplay (through
# pipewire-pulse). What a user expects: PipeWire's data thread and each
# client's RT thread are ISO in isod's status, in the band; PipeWire read
# isod's RTTimeUSecMax, MaxRealtimePriority and MinNiceLevel and set its
# limits from them without a complaint; nothing is killed; after the
# session ends nothing stays RT and isod tracks nothing (lib.sh's auditor
# runs at the end too).
DESK_RT=isod # what this test checks is isod's
source "$SRC_ROOT/tests/integration/desktop/desklib.sh"
desk_start
desk_quantum 256
make_wav "$ISO_TMP/tone.wav" 30

# --- PipeWire itself: its data thread, and what it read -------------------
assert_iso_in_band pipewire "$PW_PID"
assert_rt_props_read pipewire
assert_iso_in_band wireplumber "$WP_PID"
assert_iso_in_band pipewire-pulse "$PULSE_PID"
assert_rt_props_read pipewire-pulse
# what PipeWire set from them, as the kernel has it: RLIMIT_RTTIME
# clamped to RTTimeUSecMax (INT64_MAX: isod polices by budget, not by
# SIGKILL), the main thread's nice -11
lim=$(awk '/^Max realtime timeout/ {print $4, $5}' "/proc/$PW_PID/limits")
[ "$lim" = "9223372036854775807 9223372036854775807" ] ||
	fail "pipewire's RLIMIT_RTTIME is '$lim', not RTTimeUSecMax"
nice=$(ps -o nice= -p "$PW_PID" | tr -d ' ')
[ "$nice" = -11 ] || fail "pipewire's main thread has nice $nice, not -11"

# --- the clients ----------------------------------------------------------
desk_bg pw-play pw-play "$ISO_TMP/tone.wav"
play=$DESK_LAST
desk_bg jack pw-jack "$JACK_LOAD" --name isotest-load --work 30 --max-seconds 60
jack=$DESK_LAST
desk_bg paplay paplay "$ISO_TMP/tone.wav"
paplay=$DESK_LAST
wait_file_lines "$ISO_TMP/jack.log" '^ready' 1 20 ||
	fail "the JACK client never ran 50 cycles: $(cat "$ISO_TMP/jack.log")"
log "JACK client: $(grep '^ready' "$ISO_TMP/jack.log")"
wait_node_running pw-play 20 || fail "pw-play's stream never ran: $(cat "$ISO_TMP/pw-play.log")"
wait_node_running paplay 20 || fail "paplay's stream never ran: $(cat "$ISO_TMP/paplay.log")"
# each client's RT thread: pw-play's data thread (libpipewire's module-rt
# in the client), the JACK client's process thread (pipewire-jack). The
# jack wrapper pw-jack execs the client: the pid is the client's.
wait_exec "$jack" jack_load || fail "pw-jack did not exec the client"
assert_iso_in_band pw-play "$play"
assert_iso_in_band "JACK client" "$jack"
# paplay is a PulseAudio client: libpulse asks for no RT, its audio is
# mixed in pipewire-pulse's data thread (checked above); paplay stays
# SCHED_OTHER and untracked
for t in /proc/"$paplay"/task/*; do
	case "$(kernel_sched "${t##*/}" | cut -d' ' -f1)" in
	1|2|6) grep -q "^${t##*/} " <<<"$(iso_threads "$paplay")" || fail "paplay thread ${t##*/} is RT, untracked";;
	esac
done
"$ISOCTL" status >&2

# --- nothing killed, nothing demoted --------------------------------------
for p in "$PW_PID" "$WP_PID" "$PULSE_PID" "$play" "$jack" "$paplay"; do
	kill -0 "$p" 2>/dev/null || fail "process $p died during the session"
done
if grep -E "demot|kill" "$ISO_TMP/isod.log" | grep -qv "debug"; then
	log "isod: $(grep -E 'demot|kill' "$ISO_TMP/isod.log" | head -n 5)"
fi

# --- the session ends: nothing stays RT, isod tracks nothing -------------
kill -TERM "$jack"
wait_file_lines "$ISO_TMP/jack.log" '^cycles' 1 10 || fail "the JACK client did not stop"
log "JACK client: $(grep '^cycles' "$ISO_TMP/jack.log")"
desk_stop
for ((i = 0; i < 100; i++)); do
	n=$("$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))')
	[ "$n" = 0 ] && break
	sleep 0.05
done
[ "$n" = 0 ] || fail "isod still tracks $n threads after the session ended: $("$ISOCTL" status)"
echo PASS
