#!/usr/bin/env bash
# 1000 requests over D-Bus (one connection, and 100 connections of their
# own) leave isod's open files and memory where they were.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
start_rtkit_isod --rate-limit 0
fds() { ls "/proc/$ISOD_PID/fd" | wc -l; }
rss() { awk '/^VmRSS/{print $2}' "/proc/$ISOD_PID/status"; }
# warm up: sd-bus and malloc reach their steady state
rtclient "$ISO_TMP/w.out" --method rtpid --prio 20 --count 200 || fail "warm-up: $(cat "$ISO_TMP/w.out")"
f0=$(fds) r0=$(rss)
rtclient "$ISO_TMP/a.out" --method rtpid --prio 20 --count 1000 || fail "1000 calls: $(cat "$ISO_TMP/a.out")"
for _ in $(seq 100); do
	rtclient "$ISO_TMP/b.out" --method rt --prio 30 || fail "a call: $(cat "$ISO_TMP/b.out")"
done
# and 100 refusals
rtclient "$ISO_TMP/c.out" --method rt --tid 1 --count 100
grep -q AccessDenied "$ISO_TMP/c.out" || fail "refusals: $(cat "$ISO_TMP/c.out")"
# the exited clients' threads are forgotten (isod says so in its status),
# and then the open files are back where they were: a leak never goes
# back, so waiting for it (5 s at most) is no leniency
for _ in $(seq 100); do "$ISOCTL" status | grep -q '^ISO threads: *0$' && break; sleep 0.05; done
"$ISOCTL" status | grep -q '^ISO threads: *0$' || fail "the exited clients' threads are still tracked: $("$ISOCTL" status | head -5)"
for _ in $(seq 100); do [ "$(fds)" -le "$f0" ] && break; sleep 0.05; done
f1=$(fds) r1=$(rss)
log "isod: $f0 -> $f1 open files, VmRSS $r0 -> $r1 kB"
[ "$f1" -le "$f0" ] || fail "open files grew from $f0 to $f1"
# (under ASan freed memory sits in its quarantine: RSS says nothing there,
# and LeakSanitizer checks at exit instead)
if grep -q libasan "/proc/$ISOD_PID/maps" 2>/dev/null || nm "$ISOD" 2>/dev/null | grep -q __asan_init; then
	log "isod is built with ASan: RSS not compared"
else
	[ "$r1" -le $((r0 + 1024)) ] || fail "VmRSS grew by more than 1 MB: $r0 -> $r1 kB"
fi
echo PASS
