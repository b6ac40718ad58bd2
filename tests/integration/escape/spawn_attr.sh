#!/usr/bin/env bash
# Escape: a granted thread asks the kernel for RT for its offspring
# directly: posix_spawn with POSIX_SPAWN_SETSCHEDULER (SCHED_FIFO) or
# POSIX_SPAWN_SETSCHEDPARAM, and pthread_create with explicit SCHED_FIFO
# attributes. The offspring starts SCHED_OTHER (RESET_ON_FORK) and its
# sched_setscheduler needs RLIMIT_RTPRIO, which nobody lacks: the kernel
# must refuse (EPERM). What the kernel answered is logged; the auditor
# must find nothing.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod
"${NOBODY[@]}" "$ESCAPETOOL" spawn "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^spawn-done' || fail "escape did not run: $(cat "$out")"
log "$(tr '\n' ';' <"$out")"
# posix_spawn reports the child's failed sched_setscheduler as EPERM (1)
for k in spawn-setscheduler pthread-explicit-fifo; do
	rc=$(awk -v k="$k" '$1 == k { print $2 }' "$out")
	[ "$rc" != 0 ] || log "$k succeeded: the auditor decides whether that escaped"
done
sleep 0.3
audit_ok "after posix_spawn / pthread_create with explicit SCHED_FIFO"
echo PASS
