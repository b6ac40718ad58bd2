# Per-CPU refractory, as the 2005 patch: a runaway ISO task pinned to
# CPU 0 is demoted while a well-behaved ISO task (20 % duty) on CPU 1 keeps
# ISO: with the scx backend the budget is scx_iso's, per CPU.
. /t/lib.sh
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs"; exit 77; }
start_scx
# the burst guard off: this is scx_iso's own scheduling (07-burst has the guard)
start_isod --backend scx --burst-ms 0
spin_pinned_bg "$T/run.out" 0 --seconds 5 --idle-after 20 --iso fifo --prio 40
spin_pinned_bg "$T/good.out" 1 --seconds 5 --idle-after 20 --duty 20 --iso fifo --prio 40
wait_ready "$T/run.out"
wait_ready "$T/good.out"
run=$(tids "$T/run.out")
good=$(tids "$T/good.out")
seen=0
while ! grep -q '^cpu' "$T/run.out" || ! grep -q '^cpu' "$T/good.out"; do
	[ "$(dump_field "$run" demoted)" = 1 ] && seen=$((seen + 1))
	[ "$(dump_field "$good" demoted)" = 0 ] || fail "well-behaved task demoted: $(scx_iso --dump | grep "task $good")"
	sleep 0.2
done
d0=$(cpu_field 0 refractory_entries)
d1=$(cpu_field 1 refractory_entries)
rd=$(dump_field "$run" demotions)
gd=$(dump_field "$good" demotions)
log "cpu0 refractory_entries=$d0 cpu1=$d1; runaway demotions=$rd (seen demoted $seen times), well-behaved demotions=$gd"
log "$(scx_iso --dump)"
[ "${d0:-0}" -gt 0 ] || fail "CPU 0 never refractory"
[ "${rd:-0}" -gt 0 ] || fail "runaway on CPU 0 never demoted"
[ "$d1" = 0 ] || fail "CPU 1 went refractory"
[ "$gd" = 0 ] || fail "well-behaved task on CPU 1 lost ISO"
for p in $SPINS; do kill "$p"; done
wait_spins
pass
