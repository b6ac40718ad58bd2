# A runaway: ISO_FIFO spinners on every CPU for 5 s with iso_cpu 70 over
# 1 s. scx_iso makes CPUs refractory and demotes spinners there, a normal
# competitor makes progress, nothing is killed; once they stop spinning
# the CPUs leave the refractory state.
. /t/lib.sh
start_scx
# the burst guard off: this is scx_iso's own scheduling (07-burst has the guard)
start_isod --backend scx --burst-ms 0
n=$(nproc)
spin_bg "$T/s.out" --threads "$n" --seconds 5 --idle-after 30 --iso fifo --prio 30
wait_tids "$T/s.out" "$n"
spin --seconds 9 >"$T/c.out" &
comp=$!
c0=
seen=0
while [ "$(grep -c '^cpu' "$T/s.out")" != "$n" ]; do
	scx_iso --dump >"$T/d"
	[ -n "$c0" ] || c0=$(sched_ns "$(tids "$T/c.out")")
	grep '^task' "$T/d" | grep -qv 'demoted=0' && seen=$((seen + 1))
	sleep 0.2
done
c1=$(sched_ns "$(tids "$T/c.out")")
scx_iso --dump >"$T/d"
log "$(cat "$T/d")"
log "demoted seen in $seen samples; competitor ran $(( (c1 - ${c0:-0}) / 1000000 )) ms meanwhile"
[ "$seen" -gt 0 ] || fail "no spinner was ever seen demoted"
# ISO tasks migrate, so which CPU's budget runs out first varies: at least
# one CPU went refractory and demoted at least one spinner
grep '^task' "$T/d" | grep -q 'demotions=[1-9]' || fail "no spinner was ever demoted"
grep -q 'refractory_entries=[1-9]' "$T/d" || fail "no CPU went refractory"
[ $(( (c1 - ${c0:-0}) / 1000000 )) -gt 50 ] || fail "competitor starved"
# idle now: below 90 % of iso_cpu the CPUs leave the refractory state.
# A CPU updates its iso_ticks only when it schedules, so wake each one.
calm() {
	spin --threads "$n" --seconds 0.2 >/dev/null
	! scx_iso --dump | grep -q 'refractory=1'
}
sleep 1
wait_for 20 calm || fail "CPUs stayed refractory after the spinners stopped"
for p in $SPINS; do kill "$p"; done
wait_spins
wait $comp || fail "competitor failed"
pass
