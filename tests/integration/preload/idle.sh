#!/usr/bin/env bash
# Policy 5 is SCHED_IDLE and passes through the shim untouched, with isod
# running: the kernel runs the thread SCHED_IDLE and isod never sees it.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
start_isod
check_idle() {
	local out=$1 p=$2 tid
	wait_line "$out" '^tid='
	tid=$(field "$out" tid)
	[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 5 ] || fail "thread $tid: kernel policy $(kernel_sched "$tid")"
	[ "$(field "$out" getscheduler)" = 5 ] || fail "getscheduler $(field "$out" getscheduler)"
	! isod_tracks "$tid" || fail "isod took SCHED_IDLE thread $tid"
	wait "$p" || fail "exit status"
}
if command -v chrt >/dev/null; then
	out=$ISO_TMP/chrt-i.out
	with_shim chrt -i 0 "$SCHEDPROBE" show 1 >"$out" 2>&1 &
	p=$!; ISO_CHILDREN+=($p)
	check_idle "$out" "$p"
fi
out=$ISO_TMP/set5.out
with_shim "$SCHEDPROBE" set 5 0 1 >"$out" 2>&1 &
p=$!; ISO_CHILDREN+=($p)
check_idle "$out" "$p"
# and a bad priority with policy 5 is still the kernel's EINVAL
with_shim "$SCHEDPROBE" set 5 10 0 >"$ISO_TMP/bad5" 2>&1 && fail "policy 5 priority 10 succeeded"
[ "$(field "$ISO_TMP/bad5" errno)" = 22 ] || fail "policy 5 priority 10: $(cat "$ISO_TMP/bad5")"
echo PASS
