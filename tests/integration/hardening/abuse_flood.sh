#!/usr/bin/env bash
# Abuse: 10 000 requests per second from one user. isod's per-uid token
# bucket (rate_limit, default 200/s, burst rate_burst 400; root exempt)
# refuses the excess with EAGAIN "rate limited", while a client of another
# user (daemon) keeps being served during the flood, and root is never
# limited. Two flooding processes of the same user share one bucket.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
if ! "$ISOD" --help 2>&1 | grep -q -- '--rate-limit'; then
	log "isod has no --rate-limit yet: running with its defaults; the flood assertions will fail"
fi
start_isod
start_victim 30
secs=4

"${AS_NOBODY[@]}" "$HARDTOOL" flood 5000 $secs >"$ISO_TMP/flood1" 2>&1 &
f1=$!; ISO_CHILDREN+=($f1)
"${AS_NOBODY[@]}" "$HARDTOOL" flood 5000 $secs >"$ISO_TMP/flood2" 2>&1 &
f2=$!; ISO_CHILDREN+=($f2)
# the flood is on (both flooders connected); now the other user's client
wait_file_lines "$ISO_TMP/flood1" '^connected' 1 && wait_file_lines "$ISO_TMP/flood2" '^connected' 1 ||
	fail "the flooders did not connect: $(cat "$ISO_TMP/flood1" "$ISO_TMP/flood2")"
"${AS_DAEMON[@]}" "$HARDTOOL" client $((secs - 1)) 20 >"$ISO_TMP/client" 2>&1 &
cl=$!; ISO_CHILDREN+=($cl)
# beside it, the same user's round trips to the control server over the
# same time: what the machine's load alone makes a client wait
start_control
"${AS_DAEMON[@]}" /usr/bin/python3 "$SRC_ROOT/tests/integration/hardening/status_rtt.py" \
	"$SERVING_CONTROL" $(((secs - 1) * 60)) >"$ISO_TMP/control.times" 2>&1 &
ctl=$!; ISO_CHILDREN+=($ctl)
assert_serving "during the flood"
wait $f1 $f2 $cl $ctl
log "flooder 1: $(cat "$ISO_TMP/flood1")"
log "flooder 2: $(cat "$ISO_TMP/flood2")"
log "other user's client: $(cat "$ISO_TMP/client")"

field() { awk -v k="$2" '{for (i = 1; i < NF; i++) if ($i == k) {print $(i + 1); exit}}' "$1"; }
sent=$(( $(field "$ISO_TMP/flood1" sent) + $(field "$ISO_TMP/flood2" sent) ))
ok=$(( $(field "$ISO_TMP/flood1" ok) + $(field "$ISO_TMP/flood2" ok) ))
eagain=$(( $(field "$ISO_TMP/flood1" eagain) + $(field "$ISO_TMP/flood2" eagain) ))
log "flood: $sent requests in $secs s, $ok served, $eagain refused with EAGAIN"
[ "$sent" -gt 2000 ] || fail "the flood reached only $sent requests: not a flood"
[ "$eagain" -gt 0 ] || fail "no request of the flooding user was refused with EAGAIN ($ok of $sent served): no rate limit"
grep -q "rate_limited" "$ISO_TMP/flood1" "$ISO_TMP/flood2" ||
	fail "EAGAIN refusals do not say 'rate limited': $(cat "$ISO_TMP/flood1")"
# 200/s with a burst of 400 over $secs s: ~1200 at most; allow twice that
[ "$ok" -le $((2 * (400 + 200 * secs))) ] || fail "$ok of the flood served: the limit does not hold"

calls=$(field "$ISO_TMP/client" calls)
cok=$(field "$ISO_TMP/client" ok)
[ "$calls" -gt 10 ] || fail "the other user's client made only $calls calls"
[ "$cok" = "$calls" ] || fail "the other user's client was not always served during the flood: $(cat "$ISO_TMP/client")"
cworst=$(field "$ISO_TMP/client" worst_ms)
ctlworst=$(times_worst 1 <"$ISO_TMP/control.times")
log "the control server meanwhile: $(times_summary 1 <"$ISO_TMP/control.times")"
[ "${cworst%.*}" -le $((SERVING_WORST_MS + ctlworst)) ] ||
	fail "the other user's client waited $cworst ms during the flood, want <= $SERVING_WORST_MS + the control's $ctlworst"
assert_victim_unchanged "flood"
assert_serving "after the flood"

# root is exempt
"$HARDTOOL" flood 3000 1 >"$ISO_TMP/root" 2>&1
log "root flood: $(cat "$ISO_TMP/root")"
[ "$(field "$ISO_TMP/root" eagain)" = 0 ] || fail "root was rate limited: $(cat "$ISO_TMP/root")"
# and the flooding user is served again once it slows down (bucket refills)
sleep 1
as_nobody "$ISOCTL" get 1 >/dev/null || fail "nobody still refused after the flood stopped"
assert_serving "after root's flood"
echo "PASS"
