#!/usr/bin/env bash
# isoctl run --preload: the started program runs under ISO and its own
# later SCHED_FIFO request (from chrt, unprivileged) becomes ISO too.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
command -v chrt >/dev/null || skip "no chrt"
start_isod
read_band
out=$ISO_TMP/run.out
timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	env ISOSCHED_PRELOAD="$PRELOAD" "$ISOCTL" run --rr -p 10 --preload -- \
	chrt -f 60 "$SCHEDPROBE" show 2 >"$out" 2>&1 &
p=$!
ISO_CHILDREN+=($p)
wait_line "$out" '^tid='
tid=$(field "$out" tid)
expect_kernel "$tid" 1
isod_tracks "$tid" || fail "isod does not list thread $tid"
[ "$(field "$out" getscheduler)" = 1 ] || fail "program sees policy $(field "$out" getscheduler), want 1"
[ "$(field "$out" getparam)" = 60 ] || fail "program sees priority $(field "$out" getparam), want 60"
wait "$p" || { cat "$out" >&2; fail "isoctl run --preload failed"; }
echo PASS
