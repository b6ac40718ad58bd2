#!/usr/bin/env bash
# cyclictest -p 80 -t 2 (5 s) as nobody with the shim: it runs, its two
# measuring threads are ISO (kernel FIFO in the band, listed by isod) and it
# reports latencies.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
command -v cyclictest >/dev/null || skip "no cyclictest (apt-get install rt-tests)"
start_isod
read_band
out=$ISO_TMP/cyclictest.out
with_shim cyclictest -p 80 -t 2 -l 5000 -q >"$out" 2>&1 &
p=$!
ISO_CHILDREN+=($p)
tids=
for _ in $(seq 100); do
	tids=$("$ISOCTL" status --json | python3 -c '
import json, sys
print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]
               if t["uid"] == 65534 and t["prio"] == 80))')
	[ "$(wc -w <<<"$tids")" -ge 2 ] && break
	sleep 0.05
done
[ "$(wc -w <<<"$tids")" -ge 2 ] || { cat "$out" >&2; fail "isod has not 2 ISO threads at 80: '$tids'"; }
for t in $tids; do
	expect_kernel "$t" 1
done
wait "$p" || { cat "$out" >&2; fail "cyclictest failed"; }
n=$(grep -cE '^T: *[01] .*Max: *[0-9]+' "$out")
[ "$n" = 2 ] || { cat "$out" >&2; fail "cyclictest reported $n threads"; }
for t in $tids; do
	grep -qE "^T: *[01] \( *$t\) P:80" "$out" || fail "thread $t not in cyclictest's report"
done
cat "$out" >&2
echo PASS
