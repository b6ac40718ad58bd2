#!/usr/bin/env bash
# One run of xruns.sh (by hand, not CI): the PipeWire session of
# desklib.sh with RT from DESK_RT (isod, rtkit, none, fifo), and in it, as
# nobody through pw-jack, `isobench --audio pipewire` (src/bench/audio/):
# it forces the graph to quantum XR_QUANTUM (and puts it back), runs its
# JACK client busy XR_WORK % of each period and reads PipeWire's profiler
# for XR_SECONDS; XR_LOAD=1 adds stress-ng --cpu 2 --vm 1 beside it. A
# profiler record counts as unfinished when it gives the client a status
# other than finished (3): it had not finished its period when the driver
# recorded the cycle (isobench reads what pw-profiler logs, in C).
# Prints "RESULT mode quantum load cycles late records unfinished".
source "$SRC_ROOT/tests/integration/desktop/desklib.sh"
[ -x "${ISOBENCH:-}" ] || desk_need "isobench is not built (ISOBENCH unset)"
# a build without libjack or libpipewire says so (exit 2), before any
# connection: here to a runtime dir that does not exist
rc=0
why=$(XDG_RUNTIME_DIR=/nonexistent PIPEWIRE_RUNTIME_DIR=/nonexistent \
	"$ISOBENCH" --audio pipewire --seconds 1 --warmup 0 2>&1) || rc=$?
[ "$rc" = 2 ] && desk_need "$why"
q=${XR_QUANTUM:-64} work=${XR_WORK:-30} secs=${XR_SECONDS:-20} load=${XR_LOAD:-1}
if [ "$load" = 1 ]; then
	command -v stress-ng >/dev/null || desk_need "stress-ng is missing"
fi
desk_start
# --warmup: the client runs 3 s before the window opens, time for root's
# chrt and for stress-ng to start
desk_bg bench pw-jack "$ISOBENCH" --audio pipewire --quantum "$q" --work "$work" \
	--seconds "$secs" --warmup 3 --json
bench=$DESK_LAST
wait_file_lines "$ISO_TMP/bench.log" '^isobench: ready' 1 20 ||
	fail "isobench's JACK client never ran: $(cat "$ISO_TMP/bench.log")"
ready=$(grep '^isobench: ready' "$ISO_TMP/bench.log")
grep -q "quantum $q at" <<<"$ready" || fail "the quantum is not $q: $ready"
tid=$(sed -n 's/.*process thread \([0-9]*\),.*/\1/p' <<<"$ready")
if [ "$DESK_RT" = fifo ]; then
	desk_root_fifo "$PW_PID"
	chrt -f -p 88 "$tid" || fail "cannot make the client's thread $tid SCHED_FIFO"
	log "root: the client's process thread $tid SCHED_FIFO 88"
fi
# what the kernel gave PipeWire (policy/priority of every thread not
# SCHED_OTHER); isobench reports its client's own thread
rt_of() {
	local t out=
	for t in /proc/"$1"/task/*; do
		read -r pol prio < <(kernel_sched "${t##*/}")
		[ "$pol" = 0 ] || out+="$pol/$prio "
	done
	echo "${out:-none}"
}
log "$DESK_RT: pipewire RT threads: $(rt_of "$PW_PID")"
if [ "$load" = 1 ]; then
	bg stress-ng --cpu 2 --vm 1 --timeout "$((secs + 10))" --quiet
	stress=${ISO_CHILDREN[-1]}
fi
rc=0
timeout $((secs + 60)) tail --pid="$bench" -f /dev/null || rc=$?
[ "$load" = 1 ] && kill -TERM "$stress" 2>/dev/null
[ "$rc" = 0 ] || fail "isobench did not end: $(cat "$ISO_TMP/bench.log")"
wait "$bench" || fail "isobench failed (rc $?): $(cat "$ISO_TMP/bench.log")"
json=$(grep '^{' "$ISO_TMP/bench.log") || fail "no JSON from isobench: $(cat "$ISO_TMP/bench.log")"
log "isobench: $json"
# the graph's cycles (distinct clock times) and those with a record of
# the client unfinished; then the records and the unfinished records
# (0.3.65 may send several records of one late cycle: benchmarks.md §7)
read -r cycles late records unfinished client < <(/usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
t = d["thread"]
print(d["graph_cycles"], d["late_cycles"], d["cycles"], d["unfinished"],
      "%s/%d" % (t["policy_start"], t["prio_start"]))' "$json")
log "$DESK_RT: the client's process thread: $client"
[ "$cycles" -gt 0 ] || fail "the profiler recorded no cycle: $json"
echo "RESULT $DESK_RT $q $load $cycles $late $records $unfinished"
echo PASS
