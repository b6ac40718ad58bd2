# The burst guard on the scx backend: scx_iso keeps the budget (per CPU),
# but a spinner that never blocks loses ISO after burst_ms as on kernel RT —
# isod unmarks it, so it runs as a normal sched_ext task — and gets it back
# once it blocks. Nothing is killed.
. /t/lib.sh
start_scx --iso-period-ms 1000
start_isod --backend scx --burst-ms 200
spin_bg "$T/s.out" --seconds 3 --idle-after 20 --iso fifo --prio 30
wait_tids "$T/s.out" 1
tid=$(tids "$T/s.out")
marked() { [ -n "$(dump_field "$tid" policy)" ]; }
guarded() { grep -q "thread $tid ran .* without blocking: burst guard" "$T/isod.log"; }
wait_for 100 guarded || fail "no burst-guard line for the spinner"
# while it spins, it is not ISO in scx_iso (isod unmarked it), and isod
# reports it demoted
wait_for 20 sh -c "! scx_iso --dump | awk '\$1 == \"task\" && \$2 == $tid' | grep -q ."  ||
	fail "the spinner is still marked ISO in scx_iso"
isoctl get --json "$tid" >"$T/g.json" || fail "isoctl get $tid"
grep -q '"kernel_policy":7' "$T/g.json" && fail "isoctl shows the held spinner as SCHED_EXT ISO: $(cat "$T/g.json")"
# it blocks (idle after 3 s): the guard lifts, marked again
wait_for 100 grep -q "thread $tid: burst guard lifted (it blocked)" "$T/isod.log" || fail "the guard was not lifted when it blocked"
wait_for 50 marked || fail "the thread was not marked ISO again after it blocked"
[ "$(dump_field "$tid" policy)" = 2 ] || fail "marked again, but not FIFO: $(dump_field "$tid" policy)"
[ "$(kpolicy "$tid")" = 0 ] || fail "kernel policy $(kpolicy "$tid"), not SCHED_NORMAL (scx_iso runs it)"
for p in $SPINS; do kill "$p"; done
wait_spins
pass
