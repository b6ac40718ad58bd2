#!/usr/bin/env bash
# One run of xruns.sh (by hand, not CI): the PipeWire session of
# desklib.sh with RT from DESK_RT (isod, rtkit, none, fifo), the graph
# forced to quantum XR_QUANTUM, the project's JACK client busy XR_WORK % of
# each period, XR_LOAD=1 for stress-ng --cpu 2 --vm 1 beside it; PipeWire's
# profiler (pw-profiler) records XR_SECONDS of cycles. A cycle counts as
# unfinished when the profiler's record of it gives the client a status
# other than finished (3): it had not finished its period when the driver
# ended the cycle. Prints "RESULT mode quantum load cycles unfinished".
source "$SRC_ROOT/tests/integration/desktop/desklib.sh"
command -v pw-profiler >/dev/null || desk_need "pw-profiler is missing (pipewire-bin)"
q=${XR_QUANTUM:-64} work=${XR_WORK:-30} secs=${XR_SECONDS:-20} load=${XR_LOAD:-1}
if [ "$load" = 1 ]; then
	command -v stress-ng >/dev/null || desk_need "stress-ng is missing"
fi
desk_start
desk_quantum "$q"
desk_bg jack pw-jack "$JACK_LOAD" --name isotest-xrun --work "$work" --max-seconds "$((secs + 60))"
jack=$DESK_LAST
wait_file_lines "$ISO_TMP/jack.log" '^ready' 1 20 || fail "the JACK client never ran: $(cat "$ISO_TMP/jack.log")"
grep -q "period $q\$" "$ISO_TMP/jack.log" || fail "the quantum is not $q: $(cat "$ISO_TMP/jack.log")"
if [ "$DESK_RT" = fifo ]; then
	desk_root_fifo "$PW_PID"
	desk_root_fifo "$jack"
fi
# what the kernel gave them (policy/priority of every thread not SCHED_OTHER)
rt_of() {
	local t out=
	for t in /proc/"$1"/task/*; do
		read -r pol prio < <(kernel_sched "${t##*/}")
		[ "$pol" = 0 ] || out+="$pol/$prio "
	done
	echo "${out:-none}"
}
log "$DESK_RT: pipewire RT threads: $(rt_of "$PW_PID"); JACK client: $(rt_of "$jack")"
if [ "$load" = 1 ]; then
	bg stress-ng --cpu 2 --vm 1 --timeout "$((secs + 10))" --quiet
	stress=${ISO_CHILDREN[-1]}
fi
mkdir -p "$ISO_TMP/prof"
chown nobody:nogroup "$ISO_TMP/prof"
(cd "$ISO_TMP/prof" && nobody_env timeout -s INT "$secs" pw-profiler -o "$ISO_TMP/prof/profiler.log" \
	>"$ISO_TMP/prof.out" 2>&1)
[ "$load" = 1 ] && kill -TERM "$stress" 2>/dev/null
kill -0 "$jack" 2>/dev/null || fail "the JACK client died (rc: $(wait "$jack"; echo $?))"
# one follower: 4 driver columns, then id, signal, awake, finish,
# awake-signal, finish-awake, status, 0 (pw-profiler 0.3.65)
read -r cycles unfinished < <(awk -F'\t' 'NF >= 12 && $5 ~ /^[0-9]+$/ { n++; if ($11 != 3) u++ }
	END { print n + 0, u + 0 }' "$ISO_TMP/prof/profiler.log")
[ "$cycles" -gt 0 ] || fail "the profiler recorded no cycle: $(cat "$ISO_TMP/prof.out")"
echo "RESULT $DESK_RT $q $load $cycles $unfinished"
echo PASS
