#!/usr/bin/env bash
# Abuse: a client that sends many requests and never reads the replies,
# eight of them at once. isod must not block on
# them: their connections are dropped when a reply cannot be sent, and
# other users are served all the while. The non-readers keep sending for
# 5 s whenever their socket takes more.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
start_isod $(no_rate_limit)
start_victim 40
fd0=$(isod_fds)
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"${AS_NOBODY[@]}" "$HARDTOOL" noread 100000 5 >"$ISO_TMP/noread$i" 2>&1 &
	pids+=($!); ISO_CHILDREN+=($!)
done
# the non-readers are connected and sending; now the other user's client
for i in 1 2 3 4 5 6 7 8; do
	wait_file_lines "$ISO_TMP/noread$i" '^connected' 1 || fail "non-reader $i did not connect: $(cat "$ISO_TMP/noread$i")"
done
as_daemon "$HARDTOOL" client 3 20 >"$ISO_TMP/client" 2>&1 || fail "client failed"
log "other user's client meanwhile: $(cat "$ISO_TMP/client")"
grep -q ' other 0 ' "$ISO_TMP/client" || fail "other user's client not served: $(cat "$ISO_TMP/client")"
assert_serving "8 clients that never read"
wait "${pids[@]}"
for i in 1 2 3 4 5 6 7 8; do
	log "non-reader $i: $(tr '\n' ' ' <"$ISO_TMP/noread$i")"
done
sent=$(awk '/^sent/{print $2}' "$ISO_TMP/noread1")
[ "$sent" -gt 10 ] || fail "the non-reader sent only $sent requests"
# a client that never reads loses its connection (docs/protocol.md)
for i in 1 2 3 4 5 6 7 8; do
	grep -q 'closed_by_isod yes' "$ISO_TMP/noread$i" || fail "isod kept non-reader $i connected: $(cat "$ISO_TMP/noread$i")"
done
# isod closes their connections when it sees them gone: a leak never goes
# back, so waiting for it (5 s at most) is no leniency
for _ in $(seq 100); do [ "$(isod_fds)" -le $((fd0 + 2)) ] && break; sleep 0.05; done
n=$(isod_fds)
[ "$n" -le $((fd0 + 2)) ] || fail "isod has $n fds after the non-readers left, $fd0 at start"
assert_victim_unchanged "non-readers"
assert_serving "after the non-readers"
echo "PASS"
