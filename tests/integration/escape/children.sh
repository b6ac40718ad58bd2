#!/usr/bin/env bash
# Escape: a granted thread makes new tasks — fork, vfork (+exec), clone
# without and with CLONE_VM, clone with CLONE_THREAD|CLONE_VM (a raw
# thread, bypassing pthread and the shim), clone3, and clone3 with
# CLONE_INTO_CGROUP. isod grants with SCHED_FLAG_RESET_ON_FORK, so every
# one must START as SCHED_OTHER (each reports its own policy first thing);
# new processes are then adopted into ISO under the budget (inherit =
# yes), tracked. Nothing may be kernel RT and untracked.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
out=$ISO_TMP/esc.out

start_policing_isod
# the children live until the test is over (elib.sh, ESC_LIFE)
"${NOBODY[@]}" "$ESCAPETOOL" children "$ESC_LIFE" >"$out" 2>&1 &
ISO_CHILDREN+=($!)
wait_for "$out" '^children-started' || fail "escape did not run: $(cat "$out")"
sleep 0.5
log "$(grep -v '^granted' "$out" | tr '\n' ';')"
# a new thread is never adopted (its fork event does not name the creating
# thread): it must start SCHED_OTHER. A new process may be adopted so fast
# that it already reports isod's grant: then it must be tracked.
tracked=$(tracked_tids)
for what in fork exec clone clone-vm clone-thread clone3 clone3-cgroup; do
	line=$(grep "^$what " "$out" | head -n1)
	if [ -z "$line" ]; then
		[ "$what" = clone3-cgroup ] && { log "clone3 with CLONE_INTO_CGROUP: $(grep '^clone3-cgroup' "$out") (13: EACCES, no write access to the cgroup)"; continue; }
		fail "$what: no report: $(cat "$out")"
	fi
	pol=$(field "$out" "$what" policy)
	tid=$(field "$out" "$what" tid)
	[ "$pol" = 0 ] && continue
	# gone since (isod forgets an exited thread): nothing left to police
	[ -n "$(kernel_sched "$tid")" ] || { log "$what: $tid exited before the check"; continue; }
	[ "$what" != clone-thread ] || fail "a raw CLONE_THREAD thread started as kernel policy $pol: $line"
	grep -qx "$tid" <<<"$tracked" || fail "$what: kernel policy $pol and not tracked: $line"
	log "$what: adopted by isod before it looked ($line)"
done
audit_ok "after fork, vfork, clone, clone3 from a granted thread"
echo PASS
