#!/usr/bin/env bash
# An unprivileged user gets SCHED_FIFO / SCHED_RR at the mapped band
# priority, through the library (spin) and through isoctl; the kernel's own
# view (/proc/TID/stat) proves it.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod

out=$ISO_TMP/spin.out
# ISO_FIFO priority 50 -> band 10..40 -> kernel 25 (10 + round(49*30/98))
"${AS_NOBODY[@]}" "$SPIN" --threads 2 --seconds 3 --duty 20 --iso fifo --prio 50 >"$out" &
pid=$!
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
grep -q ready "$out" || fail "spin did not start: $(cat "$out")"
for tid in $(awk '/^tid/{print $2}' "$out"); do
	read -r pol prio < <(kernel_sched "$tid")
	[ "$pol" = 1 ] || fail "thread $tid: kernel policy $pol, want 1 (SCHED_FIFO)"
	[ "$prio" = 25 ] || fail "thread $tid: kernel priority $prio, want 25"
	"$ISOCTL" get "$tid" | grep -q SCHED_ISO_FIFO || fail "isoctl get $tid does not say SCHED_ISO_FIFO"
done
"$ISOCTL" status --json | /usr/bin/python3 -c '
import json,sys
s=json.load(sys.stdin)
assert len(s["threads"])==2, s
assert all(t["policy"]=="SCHED_ISO_FIFO" and t["prio"]==50 and t["user_prio"]==-50 for t in s["threads"]), s
' || fail "status --json does not show the two ISO_FIFO threads"
wait $pid || fail "spin failed"

# ISO_RR priority 99 -> kernel 40 (band top), through isoctl run as nobody
as_nobody "$ISOCTL" run --rr -p 99 -- cat /proc/self/stat >"$out" || fail "isoctl run failed"
s=$(sed 's/.*) //' "$out")
set -- $s
[ "${39}" = 2 ] || fail "isoctl run: policy ${39}, want 2 (SCHED_RR)"
[ "${38}" = 40 ] || fail "isoctl run: priority ${38}, want 40"

# Release: isoctl set --normal puts a thread back to SCHED_OTHER, at the
# nice level it had before ISO (7 here: stated again with SCHED_OTHER)
# (a file of its own: the shell truncates it in the background child)
out=$ISO_TMP/spin.nice.out
"${AS_NOBODY[@]}" nice -n 7 "$SPIN" --seconds 3 --duty 10 --iso rr --prio 5 >"$out" &
pid=$!
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tid=$(awk '/^tid/{print $2}' "$out")
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 2 ] || fail "not SCHED_RR"
as_nobody "$ISOCTL" set --normal "$tid" >/dev/null || fail "isoctl set --normal failed"
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 0 ] || fail "set --normal left it RT"
nice_now=$(sed 's/.*) //' "/proc/$tid/stat" | awk '{print $17}')
[ "$nice_now" = 7 ] || fail "set --normal: nice $nice_now, want the 7 it had before ISO"
wait $pid
assert_no_rt_left $pid
echo "PASS"
