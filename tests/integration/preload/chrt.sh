#!/usr/bin/env bash
# chrt -f 50 CMD and chrt -r 20 CMD as nobody, with the shim: they succeed,
# CMD runs kernel FIFO/RR inside the band under isod, and CMD's own
# sched_getscheduler/sched_getparam show what chrt asked for.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
command -v chrt >/dev/null || skip "no chrt"
start_isod
read_band
for spec in "-f 50 1" "-r 20 2"; do
	read -r opt prio pol <<<"$spec"
	out=$ISO_TMP/chrt$opt.out
	with_shim chrt "$opt" "$prio" "$SCHEDPROBE" show 2 >"$out" 2>&1 &
	p=$!
	ISO_CHILDREN+=($p)
	wait_line "$out" '^tid='
	tid=$(field "$out" tid)
	expect_kernel "$tid" "$pol"
	isod_tracks "$tid" || fail "isod does not list thread $tid"
	[ "$(field "$out" getscheduler)" = "$pol" ] || fail "chrt $opt: CMD sees policy $(field "$out" getscheduler)"
	[ "$(field "$out" getparam)" = "$prio" ] || fail "chrt $opt: CMD sees priority $(field "$out" getparam)"
	wait "$p" || { cat "$out" >&2; fail "chrt $opt $prio failed"; }
done
echo PASS
