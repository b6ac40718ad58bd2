#!/usr/bin/env bash
# Escape: from a new PID namespace. nobody enters one (with a user
# namespace, which it may create: `unshare -Urpf`), where it is "root" and
# pid 1 — but capabilities in a user namespace do not allow kernel RT
# (that is checked against the initial namespace). Inside, it asks isod for
# ISO with its namespace's thread ids (isod maps them) and escapes by exec
# from a non-main thread. isod sees the exec in its own namespace's ids,
# and must demote the program; the auditor must find nothing.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out
"${NOBODY[@]}" unshare -Urpf true 2>/dev/null || skip "nobody may not create user+PID namespaces here"

start_policing_isod
"${NOBODY[@]}" unshare -Urpf "$ESCAPETOOL" exec-thread "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^(exec|grant-failed) ' || fail "escape did not run: $(cat "$out")"
log "inside the namespace: $(tr '\n' ';' <"$out")"
grep -q '^grant-failed' "$out" && skip "isod does not grant into this PID namespace: $(cat "$out")"
# the program's id in isod's namespace: its child of unshare
pid=$(pgrep -P $! | head -n1)
[ -n "$pid" ] || fail "cannot find the namespace's pid 1"
grep -q "^NSpid:.*[[:space:]]1$" "/proc/$pid/status" || fail "$pid is not pid 1 of its namespace"
wait_not_rt "$pid" 20 || fail "the exec'd program $pid (pid 1 inside) is still kernel RT: $(kernel_sched "$pid")"
stray_logged "$pid" "$pid" || fail "no stray line for $pid"
audit_ok "after an escape from a new PID namespace"
echo PASS
