#!/usr/bin/env bash
# Escape: the granted MAIN thread calls execve(). The thread stays the same
# (same TID, same struct pid, same owner): isod's handle keeps working and
# the new program stays tracked — ISO goes on, policed, which is what
# `isoctl run` relies on (it asks ISO for itself, then execs the command).
# The auditor must find nothing; the program must still be tracked.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod
"${NOBODY[@]}" "$ESCAPETOOL" exec-main "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^exec ' || fail "escape did not run: $(cat "$out")"
granted=$(field "$out" granted tid)
pid=$(field "$out" exec pid)
[ "$granted" = "$pid" ] || fail "granted $granted, exec'd as $pid"
sleep 0.5
tracked_tids | grep -qx "$pid" || fail "the exec'd main thread $pid is no longer tracked"
[ "$(policy_of "$pid")" = 1 ] || fail "ISO lost across the main thread's exec: $(kernel_sched "$pid")"
audit_ok "after exec from the main thread"
# isod's exit demotes it: policed to the end
stop_isod
[ "$(policy_of "$pid")" = 0 ] || fail "still RT after isod's exit: $(kernel_sched "$pid")"
audit_ok "after isod's exit"
echo PASS
