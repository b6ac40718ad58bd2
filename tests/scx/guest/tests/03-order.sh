# Priority order on one CPU (iso_cpu 100: no budget in the way). Spinners
# pinned to CPU 1: ISO_FIFO 60, ISO_FIFO 10 and a normal one. Only ISO 60
# progresses; once it is gone, only ISO 10; then the normal one. Two ISO_RR
# at equal priority both progress; of two ISO_FIFO at equal priority only
# one does. Progress is read from scx_iso's per-task ktime counters (TCG's
# CPU clocks are useless for absolute figures): deltas over 1 s windows.
. /t/lib.sh
start_scx
# the burst guard off: this is scx_iso's own scheduling (07-burst has the guard)
start_isod --backend scx --iso-cpu 100 --burst-ms 0
# unpinned while they ask isod (a process pinned behind a FIFO spinner
# could not even send its request), pinned before they start spinning
spin_bg "$T/hi.out" --seconds 40 --sleep-first 2000 --iso fifo --prio 60
spin_bg "$T/lo.out" --seconds 40 --sleep-first 2000 --iso fifo --prio 10
spin_bg "$T/n.out" --seconds 40 --sleep-first 2000
for f in hi lo n; do wait_ready "$T/$f.out"; pin_all "$T/$f.out" 1; done
hi=$(tids "$T/hi.out") lo=$(tids "$T/lo.out") nn=$(tids "$T/n.out")
sleep 2.5
# window: who progresses on CPU 1?
window() {
	h0=$(dump_field "$hi" run_ms) l0=$(dump_field "$lo" run_ms) n0=$(sched_ns "$nn")
	sleep 1
	h1=$(dump_field "$hi" run_ms) l1=$(dump_field "$lo" run_ms) n1=$(sched_ns "$nn")
	dh=$(( ${h1:-0} - ${h0:-0} )) dl=$(( ${l1:-0} - ${l0:-0} )) dn=$(( (n1 - n0) / 1000000 ))
	log "$1: ISO 60 +$dh ms, ISO 10 +$dl ms, normal +$dn ms (cpu 1 rank $(cpu_field 1 cur_rank))"
}
window "all three"
[ "$dh" -gt 200 ] || fail "ISO 60 did not run"
[ "$dl" -lt 20 ] || fail "ISO 10 ran beside ISO 60 on one CPU"
[ "$dn" -lt 20 ] || fail "normal task ran beside ISO 60"
# (kernel RT threads, isod's enforcer among them, may interrupt it briefly)
rank60() { [ "$(cpu_field 1 cur_rank)" = 60 ]; }
wait_for 20 rank60 || fail "CPU 1 not running ISO 60"
set -- $SPINS
kill "$1"; wait "$1" 2>/dev/null
window "ISO 60 gone"
[ "$dl" -gt 200 ] || fail "ISO 10 did not take over"
[ "$dn" -lt 20 ] || fail "normal task ran beside ISO 10"
kill "$2"; wait "$2" 2>/dev/null
window "ISO 10 gone"
[ "$dn" -gt 100 ] || fail "normal task did not run on a CPU free of ISO"
kill "$3"; wait "$3" 2>/dev/null
SPINS=

# equal priority: ISO_RR round-robins, ISO_FIFO does not
for pol in rr fifo; do
	spin_bg "$T/$pol.out" --threads 2 --seconds 40 --sleep-first 2000 --iso $pol --prio 30
	wait_tids "$T/$pol.out" 2
	pin_all "$T/$pol.out" 1
	set -- $(tids "$T/$pol.out")
	sleep 2.5
	a0=$(dump_field "$1" run_ms) b0=$(dump_field "$2" run_ms)
	sleep 1.5
	a1=$(dump_field "$1" run_ms) b1=$(dump_field "$2" run_ms)
	da=$((a1 - a0)) db=$((b1 - b0))
	log "two ISO_$pol 30 on CPU 1: +$da ms and +$db ms"
	if [ $pol = rr ]; then
		[ "$da" -gt 100 ] && [ "$db" -gt 100 ] || fail "ISO_RR did not round-robin"
	else
		{ [ "$da" -lt 20 ] || [ "$db" -lt 20 ]; } || fail "ISO_FIFO at equal priority shared the CPU"
	fi
	for p in $SPINS; do kill "$p"; wait "$p" 2>/dev/null; done
	SPINS=
done
pass
