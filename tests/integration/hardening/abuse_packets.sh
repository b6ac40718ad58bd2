#!/usr/bin/env bash
# Abuse: oversized, truncated and mislabelled packets that
# tests/integration/daemon/errors.sh does not send (it covers 1 and 15
# bytes, random bytes, a short or long body, a wrong version, an unknown
# type and 20000 bytes): an empty packet, header-only packets whose length
# field says 36, 16, 0 or 2^32-1, a valid GET whose length field lies,
# a reply type and type 0 as requests, 16384 / 16385 / 65536-byte packets,
# garbage of 64 KiB, and valid/malformed/valid pipelined on one connection
# (replies in order, seq echoed). Each gets an error reply or a close,
# never a hang. Then 200 requests each carrying 250 file descriptors
# (SCM_RIGHTS): isod must not keep any of them. After all of it isod is
# alive, serves, and no other user's thread changed.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
start_isod $(no_rate_limit)
start_victim 30
fd0=$(isod_fds)
as_nobody "$HARDTOOL" packets >"$ISO_TMP/packets" 2>&1
rc=$?
while read -r l; do log "$l"; done <"$ISO_TMP/packets"
[ $rc = 0 ] || fail "malformed packets: $(grep -E 'BAD|failed' "$ISO_TMP/packets" | tr '\n' ';')"
assert_victim_unchanged "malformed packets"
assert_serving "malformed packets"

as_nobody "$HARDTOOL" fdpass 200 >"$ISO_TMP/fdpass" 2>&1 || fail "fdpass failed"
log "$(cat "$ISO_TMP/fdpass")"
grep -q 'served 200' "$ISO_TMP/fdpass" || fail "requests with passed fds not served: $(cat "$ISO_TMP/fdpass")"
# the passed fds are closed as isod reads each request (a leak never goes
# back, so waiting for it, 5 s at most, is no leniency)
for _ in $(seq 100); do [ "$(isod_fds)" -le $((fd0 + 2)) ] && break; sleep 0.05; done
n=$(isod_fds)
log "isod fds: $fd0 at start, $n after 200 x 250 passed fds"
[ "$n" -le $((fd0 + 2)) ] || fail "isod kept passed file descriptors: $n fds, $fd0 at start"
assert_victim_unchanged "passed fds"
assert_serving "passed fds"
[ -z "$(log_errors)" ] || fail "error-level log lines: $(log_errors)"
echo "PASS"
