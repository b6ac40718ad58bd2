#!/usr/bin/env bash
# The connection libisosched keeps from one call to the next (conn.c): it
# is reused, renewed after isod closed it, not inherited by a child of
# fork(), never taken for a file the program put under its number, and
# not used once the process's credentials changed; and isod refuses a
# request on a connection whose opener has exited (tests/integration/
# keptconn.c says how each is checked). A restart of isod between two
# calls of one process: the second call still succeeds.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod

out=$ISO_TMP/kept.out
as_nobody "$KEPTCONN" reuse >"$out" 2>&1 || fail "reuse: $(cat "$out")"
log "$(cat "$out")"

as_nobody "$KEPTCONN" fdreuse >"$out" 2>&1 || fail "fdreuse: $(cat "$out")"
log "$(cat "$out")"

"$KEPTCONN" creds >"$out" 2>&1 || fail "creds: $(cat "$out")"
log "$(cat "$out")"

as_nobody "$KEPTCONN" fork >"$out" 2>&1 || fail "fork: $(cat "$out")"
for _ in $(seq 200); do grep -q "^ok fork\|keptconn:" "$out" && break; sleep 0.05; done
grep -q "^ok fork" "$out" || fail "fork: $(cat "$out")"
log "$(grep '^ok' "$out")"

as_nobody "$KEPTCONN" orphan >"$out" 2>&1 || fail "orphan: $(cat "$out")"
for _ in $(seq 200); do grep -q "^ok orphan\|keptconn:" "$out" && break; sleep 0.05; done
grep -q "^ok orphan" "$out" || fail "orphan: $(cat "$out")"
log "$(grep '^ok' "$out")"

# isod restarts between two calls of one process
"${AS_NOBODY[@]}" "$KEPTCONN" restart "$ISO_TMP/go" >"$out" 2>&1 &
kpid=$!
for _ in $(seq 200); do grep -q ready "$out" && break; sleep 0.05; done
grep -q ready "$out" || fail "restart: $(cat "$out")"
stop_isod
start_isod
touch "$ISO_TMP/go"
wait $kpid || fail "restart: $(cat "$out")"
log "$(grep '^ok' "$out")"
echo "PASS"
