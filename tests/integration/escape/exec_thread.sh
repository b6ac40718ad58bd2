#!/usr/bin/env bash
# Escape: a granted NON-MAIN thread calls execve(). The kernel makes it
# the process's only thread, under the process id (TID = PID), and keeps
# its SCHED_FIFO|RESET_ON_FORK. isod's handle on the old TID now fails
# (ESRCH): before issue 11, isod logged "exited", forgot it and left the
# new program kernel RT for good (issue 11, item 1). isod must see the
# exec (proc connector) or the loss (ESRCH with the process still there),
# find the untracked RT thread and demote it, with a log line naming it —
# also without the proc connector (then by the sampler's ESRCH).
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod
"${NOBODY[@]}" "$ESCAPETOOL" exec-thread "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^exec ' || fail "escape did not run: $(cat "$out")"
granted=$(field "$out" granted tid)
pid=$(field "$out" exec pid)
log "granted thread $granted exec'd; the program runs as $pid: $(grep '^exec' "$out")"
[ "$granted" != "$pid" ] || fail "the granted thread was the main thread"
# the kernel kept RT across the exec: that is the escape
[ "$(field "$out" exec policy)" = 1 ] || log "kernel did not keep FIFO across exec here: $(grep '^exec' "$out")"
wait_not_rt "$pid" 20 || fail "exec'd program $pid still kernel RT 2 s after the exec, untracked: $(kernel_sched "$pid")"
stray_logged "$pid" "$pid" || fail "isod did not log the stray $pid: $(grep -i stray "$ISO_TMP/isod.log")"
audit_ok "after exec from a non-main thread"
# and it stays demoted once isod is gone
stop_isod
[ "$(policy_of "$pid")" != 1 ] || fail "RT again after isod's exit"

# Without the proc connector (no CAP_NET_ADMIN: no exec events), the
# sampler's ESRCH on the lost thread must lead to the same check, with
# the machine-wide audit off so that it cannot be what catches it.
wrap=$ISO_TMP/isod-no-netadmin
if [ "${ISOSCHED_TEST_CONFINED:-}" = unit ]; then
	# confined as the unit, isod's root lacks CAP_SETPCAP: no wrapper can
	# drop a capability from its bounding set, so confine it as a unit
	# without CAP_NET_ADMIN would (a copy of the unit, that line changed)
	sed '/^CapabilityBoundingSet=/s/ *CAP_NET_ADMIN//' "$SRC_ROOT/packaging/isod.service.in" >"$ISO_TMP/no-netadmin.service"
	grep -q '^CapabilityBoundingSet=.*CAP_NET_ADMIN' "$ISO_TMP/no-netadmin.service" && fail "cannot take CAP_NET_ADMIN out of the unit"
	UNIT_FILE=$ISO_TMP/no-netadmin.service source "$SRC_ROOT/tests/integration/unit_confine.sh"
	wrap=$ISOD
else
	printf '#!/bin/sh\nexec setpriv --bounding-set=-net_admin -- "%s" "$@"\n' "$ISOD" >"$wrap"
	chmod 755 "$wrap"
fi
ISOD=$wrap start_isod "${ESC_BAND[@]}"
# isod says so just after it is ready: wait for the line
for _ in $(seq 40); do grep -q "no process connector" "$ISO_TMP/isod.log" && break; sleep 0.05; done
grep -q "no process connector" "$ISO_TMP/isod.log" || fail "isod without CAP_NET_ADMIN still has the proc connector"
"${NOBODY[@]}" "$ESCAPETOOL" exec-thread "$ESC_LIFE" >"$out.2" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out.2" '^exec ' || fail "second escape did not run: $(cat "$out.2")"
pid=$(field "$out.2" exec pid)
wait_not_rt "$pid" 20 || fail "no connector: exec'd program $pid still kernel RT 2 s after the exec: $(kernel_sched "$pid")"
stray_logged "$pid" "$pid" || fail "no connector: isod did not log the stray $pid"
audit_ok "after exec from a non-main thread, no proc connector"
echo PASS
