#!/usr/bin/env bash
# isod's crash handler with real faults (issue 11, item 10a), through
# crashprobe (isod's crash.c + actuator.c): a thread of user nobody is made
# kernel SCHED_FIFO, then the probe crashes; the thread must end
# SCHED_OTHER every time.
#  A. stack overflow in a second thread and in the main thread: the
#     handler runs on an alternate stack, or not at all;
#  B. SIGSEGV while another thread promotes the target in a loop, 100
#     times: no promotion may land after the handler started (the
#     actuator's dying flag).
# isod itself receiving SIGSEGV/SIGABRT is fault_kill.sh's part C.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
[ -n "${CRASHPROBE:-}" ] && [ -x "$CRASHPROBE" ] || skip "crashprobe not built"
# a sanitizer's own SEGV reporter would stand in for the default action
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:detect_stack_use_after_return=0"

"${AS_NOBODY[@]}" sleep 120 &
victim=$!; ISO_CHILDREN+=($victim)
# setpriv has exec'd sleep as nobody
wait_exec "$victim" sleep || fail "the victim did not start"

# probe MODE: run crashprobe MODE on the victim; it must die of SIGSEGV
# and leave the victim SCHED_OTHER.
probe() {
	local rc s
	timeout -s KILL 20 "$CRASHPROBE" "$1" "$victim" 30 2>"$ISO_TMP/probe.err"
	rc=$?
	s=$(kernel_sched "$victim") || fail "victim gone"
	[ "$rc" = 139 ] || fail "$1: crashprobe exit $rc, want death by SIGSEGV (139): $(cat "$ISO_TMP/probe.err")"
	[ "${s%% *}" = 0 ] || fail "$1: victim left kernel policy/prio '$s' after the crash"
}

for mode in overflow overflow-main; do
	for i in 1 2 3; do probe "$mode"; done
	log "$mode: 3 of 3 crashes demoted the victim"
done
for i in $(seq 100); do probe race; done
log "race: 100 of 100 crashes left the victim SCHED_OTHER"
assert_no_rt_left "$victim"
echo PASS
