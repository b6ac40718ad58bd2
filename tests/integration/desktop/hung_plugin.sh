#!/usr/bin/env bash
# A hung plugin (issue 31, item 5): in the PipeWire session of desklib.sh,
# a JACK client (through pw-jack) whose process callback starts spinning
# without end after 3 s — on the CPU of a SCHED_OTHER probe that wakes
# every millisecond (the desktop's ordinary work). isod must demote the
# client's RT thread (the burst guard), kill nothing — not the client, not
# PipeWire, not the other clients — and leave the desktop responsive; once
# the hung client is stopped, the graph runs JACK clients again.
#
# The probe's longest stall is reported (benchmark line "hung-plugin:"),
# and asserted only against a bound that holds as a worst case on a shared
# 2-CPU machine: under 900 ms, less than the kernel's RT throttling alone
# would give (sched_rt_runtime_us: 950 ms of each second to RT). The
# burst guard's own figure (burst_ms 200 + up to two 10 ms samples) is
# what the line shows; docs/rtkit.md has it.
#
# By hand, DESK_RT=rtkit RTKIT_DAEMON=... runs the same session on Debian's
# rtkit-daemon instead (desklib.sh) and records, not asserts, what happens
# to the hung client: the line "hung-plugin:" says how it ended.
source "$SRC_ROOT/tests/integration/desktop/desklib.sh"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the hung client and the probe share one, PipeWire has the other)"
cpu=$(($(nproc) - 1))
desk_start
desk_quantum 256
make_wav "$ISO_TMP/tone.wav" 60

# another client that must live through it: pw-play into the null sink
desk_bg pw-play pw-play "$ISO_TMP/tone.wav"
play=$DESK_LAST
wait_node_running pw-play 20 || fail "pw-play's stream never ran: $(cat "$ISO_TMP/pw-play.log")"
# and a healthy JACK client beside the hung one (10 % of each period): how
# the graph treats the others while one hangs
desk_bg jackok pw-jack "$JACK_LOAD" --name isotest-ok --work 10 --max-seconds 60
jackok=$DESK_LAST
wait_file_lines "$ISO_TMP/jackok.log" '^ready' 1 20 || fail "the healthy JACK client never ran: $(cat "$ISO_TMP/jackok.log")"
# last_tick FILE: "T C" of a client's last "at T cycles C" line
last_tick() { awk '/^at / {t = $2; c = $4} END {print t + 0, c + 0}' "$1"; }
desk_bg probe taskset -c "$cpu" "$STALL_PROBE" 60
probe=$DESK_LAST
wait_file_lines "$ISO_TMP/probe.log" '^ready' 1 || fail "the probe did not start"

# the plugin: 30 % of each period for 3 s, then a spin without end (the
# client's own bound: 60 s)
desk_bg jack taskset -c "$cpu" pw-jack "$JACK_LOAD" --name isotest-hung --work 30 \
	--hang-after 3 --max-seconds 60
jack=$DESK_LAST
wait_file_lines "$ISO_TMP/jack.log" '^ready' 1 20 || fail "the JACK client never ran: $(cat "$ISO_TMP/jack.log")"
wait_exec "$jack" jack_load || fail "pw-jack did not exec the client"
if [ "$DESK_RT" = isod ]; then
	assert_iso_in_band "JACK client" "$jack"
	rt_tid=$(iso_threads "$jack" | awk '{print $1; exit}')
fi
wait_file_lines "$ISO_TMP/jack.log" '^hung' 1 10 || fail "the client's callback did not hang"
mark=$(log_line_of .)
read -r ok_t0 ok_c0 <<<"$(last_tick "$ISO_TMP/jackok.log")"

# isod demotes its RT thread: the burst guard, SCHED_OTHER, not killed
if [ "$DESK_RT" = isod ]; then
wait_log_after "$mark" "thread $rt_tid ran [0-9]* ms without blocking: burst guard" ||
	fail "isod did not demote the hung client's thread $rt_tid: $(tail -n 20 "$ISO_TMP/isod.log")"
log "isod: $(grep "thread $rt_tid ran" "$ISO_TMP/isod.log" | head -n1)"
[ "$(kernel_sched "$rt_tid" | cut -d' ' -f1)" = 0 ] ||
	fail "the hung thread is '$(kernel_sched "$rt_tid")' after the guard's line, not SCHED_OTHER"
fi

# let it hang a while longer (the guard's trials: 1 s, then 2 s), then
# stop it as a user would; it answers SIGTERM, nothing was killed
for p in "$PW_PID" "$WP_PID" "$PULSE_PID" "$play"; do
	kill -0 "$p" 2>/dev/null || fail "process $p died while the plugin hung"
done
if [ "$DESK_RT" = isod ]; then
	kill -0 "$jack" 2>/dev/null || fail "the hung client died"
	wait_log_after "$mark" "thread $rt_tid: burst guard lifted (.*trial" ||
		log "no trial within 5 s (the back-off: 1 s, then 2 s)"
fi
node_running pw-play || fail "pw-play's stream stopped while the plugin hung"
# 3 s of the hang seen by the healthy client
wait_file_lines "$ISO_TMP/jackok.log" "^at $((ok_t0 + 3)) " 1 6 ||
	fail "the healthy JACK client stopped ticking while the other hung: $(tail -n 3 "$ISO_TMP/jackok.log")"
read -r ok_t1 ok_c1 <<<"$(last_tick "$ISO_TMP/jackok.log")"
kill -TERM "$jack" 2>/dev/null # (under rtkit, the kernel may have ended it)
wait "$jack"
rc=$?
if [ "$DESK_RT" = isod ]; then
	[ "$rc" = 0 ] || fail "the hung client exited with $rc (killed?), not 0 after SIGTERM"
	ended="processes killed: 0"
else
	ended="the hung client exited with status $rc ($( [ "$rc" -gt 128 ] && kill -l "$((rc - 128))" || echo "no signal"))"
fi
log "hung client: $(grep '^cycles' "$ISO_TMP/jack.log")"
kill -TERM "$probe"
wait_file_lines "$ISO_TMP/probe.log" '^longest_gap_ms' 1 || fail "the probe did not report"
gap=$(awk '/^longest_gap_ms/ {print $2}' "$ISO_TMP/probe.log")
ok_rate=$(awk -v c="$((ok_c1 - ok_c0))" -v t="$((ok_t1 - ok_t0))" 'BEGIN { printf "%.0f", (t > 0 ? c / t : -1) }')
echo "hung-plugin: longest SCHED_OTHER stall ${gap} ms on the hung client's CPU ($DESK_RT); $ended; the healthy JACK client ran $ok_rate cycles/s while the other hung (187.5 at quantum 256)"
awk -v g="$gap" 'BEGIN { exit !(g < 900) }' ||
	fail "the probe stalled ${gap} ms: as long as RT throttling alone would allow"

# the graph recovers: a new JACK client runs, pw-play still plays, the
# session's daemons live
desk_bg jack2 pw-jack "$JACK_LOAD" --name isotest-after --work 10 --max-seconds 30
jack2=$DESK_LAST
wait_file_lines "$ISO_TMP/jack2.log" '^ready' 1 20 ||
	fail "a JACK client after the hang never ran: $(cat "$ISO_TMP/jack2.log")"
wait_exec "$jack2" jack_load || fail "pw-jack did not exec the client"
[ "$DESK_RT" != isod ] || assert_iso_in_band "JACK client after the hang" "$jack2"
node_running pw-play || fail "pw-play's stream is not running after the hang"
# the healthy client runs on (it was never stopped)
read -r ok_t2 ok_c2 <<<"$(last_tick "$ISO_TMP/jackok.log")"
wait_file_lines "$ISO_TMP/jackok.log" "^at $((ok_t2 + 2)) " 1 5 ||
	fail "the healthy JACK client stopped ticking: $(tail -n 3 "$ISO_TMP/jackok.log")"
read -r ok_t3 ok_c3 <<<"$(last_tick "$ISO_TMP/jackok.log")"
[ "$ok_c3" -gt "$ok_c2" ] || fail "the healthy JACK client ran no cycle after the hang ($ok_c2 -> $ok_c3)"
log "healthy JACK client after the hang: $(((ok_c3 - ok_c2) / (ok_t3 - ok_t2))) cycles/s"
for p in "$PW_PID" "$WP_PID" "$PULSE_PID" "$play" "$jackok"; do
	kill -0 "$p" 2>/dev/null || fail "process $p died"
done
if grep -q "client too slow\|xrun" "$ISO_TMP/pipewire.log"; then
	log "pipewire: $(grep -c "client too slow\|xrun" "$ISO_TMP/pipewire.log") xrun lines (rate-limited)"
fi
echo PASS
