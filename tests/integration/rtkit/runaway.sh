#!/usr/bin/env bash
# A runaway asked for over D-Bus is an ISO thread like any other: with a
# budget below one CPU it is demoted to SCHED_OTHER while it spins (not
# SIGKILLed: no RLIMIT_RTTIME is asked for), and regains SCHED_RR once it
# blocks.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
# one spinner is 1/nproc of the machine: a budget well below that
cpu=$((100 / $(nproc) / 3))
[ "$cpu" -ge 1 ] || cpu=1
start_rtkit_isod --iso-cpu "$cpu" --iso-period 2
out=$ISO_TMP/spin.out
bg as_nobody "$RTKIT_CLIENT" --method rtpid --prio 50 --spin 6 --hold 8 >"$out" 2>&1
for _ in $(seq 100); do grep -q '^sched' "$out" && break; sleep 0.05; done
[ "$(field "$out" result)" = ok ] || fail "grant: $(cat "$out")"
rr_in_band "$(field "$out" sched)" || fail "not RR in the band: $(cat "$out")"
tid=$(field "$out" tid)
demoted=0
for _ in $(seq 60); do # while it spins
	[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 0 ] && { demoted=1; break; }
	sleep 0.1
done
[ "$demoted" = 1 ] || fail "the spinning thread $tid was never demoted (policy $(kernel_sched "$tid"))"
"$ISOCTL" status | grep -q '^refractory: *yes' || log "(status no longer refractory)"
for _ in $(seq 120); do grep -q '^spun' "$out" && break; sleep 0.1; done
grep -q '^spun' "$out" || fail "the spinner did not finish: $(cat "$out")"
restored=0
for _ in $(seq 70); do # blocked now: below 90 % of the budget it is RR again
	rr_in_band "$(kernel_sched "$tid")" && { restored=1; break; }
	sleep 0.1
done
[ "$restored" = 1 ] || fail "thread $tid not restored to SCHED_RR: $(kernel_sched "$tid")"
kill -0 "${ISO_CHILDREN[0]}" 2>/dev/null || fail "the client was killed"
echo PASS
