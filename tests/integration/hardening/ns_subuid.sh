#!/usr/bin/env bash
# Per-user bounds are charged to the person, not to each of its kernel
# uids (issue 28, item 5). nobody makes a user namespace, and root writes
# into it exactly the map newuidmap writes for a subordinate range
# nobody:200000:2 ("0 65534 1", "1 200000 2"; no /etc/subuid is touched).
# As uid 0, 1 and 2 of that namespace (kernel uids 65534, 200000, 200001)
# three processes ask ISO for 4 threads each, with max_threads_per_user 4.
# Each kernel uid used to get its own 4: 12 threads. All of them are
# nobody's (the namespace's owner): 4 in all.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
: "${NSTOOL:?NSTOOL not set (run through meson test)}"
need_root
as_nobody unshare -U true 2>/dev/null || skip "unprivileged user namespaces are not available"
CAP=4
PER_UID=4
BASE=200000

start_isod --max-threads-per-user "$CAP"
"$NSTOOL" subuid 20 "$PER_UID" "$BASE" >"$ISO_TMP/subuid" 2>&1 &
tool=$!
ISO_CHILDREN+=($tool)
wait_lines "$ISO_TMP/subuid" '^subuid' 1 150 || fail "the namespaced clients did not report: $(cat "$ISO_TMP/subuid")"
log "$(tr '\n' ';' <"$ISO_TMP/subuid")"
grep -c '^uid [012] granted' "$ISO_TMP/subuid" | grep -qx 3 ||
	fail "not every uid of the namespace asked: $(cat "$ISO_TMP/subuid")"
granted=$(awk '/^subuid/{print $3}' "$ISO_TMP/subuid")
# and what the kernel says: SCHED_FIFO threads of the three processes
fifo=0 uids=""
for p in $(pgrep -P "$(pgrep -P "$tool" | head -1)"); do
	uids="$uids $(awk '/^Uid:/{print $2}' "/proc/$p/status")"
	for t in /proc/"$p"/task/*; do
		[ "$(kernel_sched "${t##*/}" | cut -d' ' -f1)" = 1 ] && fifo=$((fifo + 1))
	done
done
echo "bench ns_subuid: kernel uids$uids (one person), max_threads_per_user $CAP: granted $granted, kernel SCHED_FIFO $fifo"
[ "$granted" -le "$CAP" ] ||
	fail "one person held $granted ISO threads through its subordinate uids, max_threads_per_user is $CAP"
[ "$fifo" -le "$CAP" ] || fail "$fifo threads of one person are SCHED_FIFO, max_threads_per_user is $CAP"
[ "$granted" = "$CAP" ] || fail "want exactly $CAP grants (the cap), got $granted"
kill "$tool" 2>/dev/null
wait "$tool" 2>/dev/null
stop_isod
