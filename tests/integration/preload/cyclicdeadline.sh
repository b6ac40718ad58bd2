#!/usr/bin/env bash
# cyclicdeadline (rt-tests) as nobody, unmodified, with the shim (issue
# 32): its sched_setattr(SCHED_DEADLINE), EPERM from the kernel, becomes a
# reservation from isod; the thread runs kernel SCHED_DEADLINE, isod lists
# it as reserved, and cyclicdeadline reports its latencies. Without the
# shim it gets nothing: the kernel's EPERM. cyclicdeadline asks for 60 %
# of a CPU (runtime 3 ms, deadline 5 ms at -i 5000), over the default
# reserve_cpu of two CPUs: this isod has more. cyclicdeadline mlockall()s,
# so its thread's stack (RLIMIT_STACK, 8 MB) must fit in the memory-lock
# limit — an audio user's is unlimited (limits.conf's @audio memlock), a
# container's root may not raise nobody's 8 MB: a 1 MB stack instead.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
command -v cyclicdeadline >/dev/null || skip "no cyclicdeadline (apt-get install rt-tests)"
command -v prlimit >/dev/null || skip "no prlimit"
start_isod --reserve-cpu 70 --reserve-user 100
out=$ISO_TMP/cd.out
prlimit --stack=1048576 -- \
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	env LD_PRELOAD="$PRELOAD" cyclicdeadline -t 1 -i 5000 -D 3 -q >"$out" 2>&1 &
p=$!
ISO_CHILDREN+=($p)
tid=
for _ in $(seq 100); do
	tid=$("$ISOCTL" status --json | /usr/bin/python3 -c '
import json, sys
print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]
               if t["uid"] == 65534 and t["reserve"] == "reserved"))')
	[ -n "$tid" ] && break
	sleep 0.05
done
[ -n "$tid" ] || { cat "$out" >&2; fail "isod lists no reservation of nobody"; }
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 6 ] || fail "thread $tid is $(kernel_sched "$tid"), not SCHED_DEADLINE"
chrt -p "$tid" | grep -q "3000000/5000000/5000000" || fail "DL parameters: $(chrt -p "$tid")"
wait "$p" || { cat "$out" >&2; fail "cyclicdeadline failed"; }
grep -qE "^T: *0 \( *$tid\) I:5000 C: *[0-9]+ Min: *[0-9]+ .*Max: *[0-9]+" "$out" ||
	{ cat "$out" >&2; fail "cyclicdeadline reported no latencies for $tid"; }
grep -E "^T: " "$out" >&2
# without the shim: the kernel's EPERM, no reservation
if command -v strace >/dev/null; then
	prlimit --stack=1048576 -- timeout 30 setpriv --reuid=nobody --regid=nogroup \
		--clear-groups -- strace -f -e trace=sched_setattr \
		cyclicdeadline -t 1 -i 5000 -D 1 -q >"$out" 2>&1 || true
	grep -q "SCHED_DEADLINE.*= -1 EPERM" "$out" || fail "without the shim: $(grep sched_setattr "$out")"
fi
echo PASS
