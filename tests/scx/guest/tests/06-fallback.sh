# Failure safety: scx_iso reports an error (SIGUSR1 test hook), the kernel
# unloads it, isod notices and puts every ISO thread on kernel SCHED_FIFO /
# SCHED_RR in the band without losing one; loading scx_iso again moves
# them back (backend auto), also after a quick restart.
. /t/lib.sh
start_scx
start_isod --backend auto
spin_bg "$T/f.out" --threads 2 --seconds 20 --duty 10 --iso fifo --prio 50
spin_bg "$T/r.out" --seconds 20 --duty 10 --iso rr --prio 20
wait_ready "$T/f.out"
wait_ready "$T/r.out"
all="$(tids "$T/f.out") $(tids "$T/r.out")"
for tid in $all; do
	[ "$(kpolicy "$tid")" = 0 ] || fail "$tid not SCHED_NORMAL under scx"
	[ -n "$(dump_field "$tid" prio)" ] || fail "$tid not in the map"
done
kill -USR1 "$SCX_PID"
wait_for 50 is_disabled || fail "kernel did not unload the failing scheduler"
wait "$SCX_PID"
log "scx_iso exited $? after the error"
SCX_PID=
grep -q "failure requested" "$T/scx.log" || fail "scx_iso log lacks the error"
rt() { for t in $(tids "$T/f.out"); do [ "$(kpolicy "$t")" = 1 ] || return 1; done
       for t in $(tids "$T/r.out"); do [ "$(kpolicy "$t")" = 2 ] || return 1; done; }
wait_for 30 rt || fail "threads not on kernel RT after the unload: $(for t in $all; do kpolicy $t; done)"
grep -q "scx_iso gone: 3 ISO threads back on kernel" "$T/isod.log" || fail "no warning in isod's log"
[ "$(isoctl status | grep -c 'ISO_')" -ge 3 ] || fail "isod lost a thread"
# and back
start_scx
norm() { for t in $all; do [ "$(kpolicy "$t")" = 0 ] || return 1; [ -n "$(dump_field "$t" prio)" ] || return 1; done; }
wait_for 30 norm || fail "threads did not move back to scx_iso"
grep -q "scx_iso loaded: 3 ISO threads" "$T/isod.log" || fail "no move-back message"
# a quick restart (isod may never see it unloaded): the new instance's
# maps get every thread too
kill "$SCX_PID"; wait "$SCX_PID"
start_scx
wait_for 30 norm || fail "threads not marked in the restarted scx_iso's map"
killall spin
pass
