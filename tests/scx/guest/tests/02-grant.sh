# isod with backend=scx marks ISO threads in scx_iso's map instead of the
# band: the kernel policy stays SCHED_NORMAL, isoctl shows SCHED_EXT (7) at
# the ISO priority, the map holds policy/prio/limit; release unmarks.
. /t/lib.sh
start_scx --iso-period-ms 1000
start_isod --backend scx
grep -q "backend scx: scx_iso schedules ISO threads" "$T/isod.log" || fail "isod did not pick scx"
spin_bg "$T/s.out" --threads 2 --seconds 30 --duty 10 --iso fifo --prio 50 --limit 60
wait_ready "$T/s.out"
for tid in $(tids "$T/s.out"); do
	[ "$(kpolicy "$tid")" = 0 ] || fail "thread $tid has kernel policy $(kpolicy "$tid"), not SCHED_NORMAL"
	[ "$(dump_field "$tid" policy)" = 2 ] || fail "thread $tid not marked FIFO in the map"
	[ "$(dump_field "$tid" prio)" = 50 ] || fail "thread $tid: map prio $(dump_field "$tid" prio)"
	[ "$(dump_field "$tid" limit)" = 60 ] || fail "thread $tid: map limit"
	isoctl get --json "$tid" >"$T/g.json" || fail "isoctl get $tid"
	grep -q '"kernel_policy":7' "$T/g.json" || fail "isoctl get: $(cat "$T/g.json")"
	grep -q '"kernel_prio":50' "$T/g.json" || fail "isoctl get: $(cat "$T/g.json")"
	grep -q '"user_prio":-50' "$T/g.json" || fail "isoctl get: $(cat "$T/g.json")"
done
isoctl status >"$T/st" 2>&1
[ "$(grep -c "ISO_FIFO" "$T/st")" -ge 2 ] || fail "isoctl status does not list them: $(cat "$T/st")"
# an ISO_RR thread through isoctl run
isoctl run --rr -p 20 -- spin --seconds 1 --duty 10 >"$T/r.out" || fail "isoctl run failed"
for p in $SPINS; do kill "$p"; done
wait_spins
# threads exited: isod and the scheduler forget them
wait_for 50 sh -c '! scx_iso --dump | grep -q "^task"' || fail "map entries left: $(scx_iso --dump | grep task)"
pass
