#!/usr/bin/env bash
# SIGHUP revokes the grants of users no longer allowed (issue 11, item
# 10d): with allow_users = nobody,daemon both hold an ISO thread; after
# the file says allow_users = daemon and isod is sent SIGHUP, nobody's
# thread is SCHED_OTHER and forgotten (a log line names it) while
# daemon's keeps ISO. Then allow_groups replaces the user list: a group
# nobody is not in revokes daemon's second thread as well.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
conf=$(write_config "allow_users = nobody,daemon")
start_isod --config "$conf"

tracked() {
	"$ISOCTL" status --json | /usr/bin/python3 -c '
import json, sys
print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]))'
}
# iso_sleeper USER GROUP: a process of USER granted ISO_RR 10, sleeping 30 s;
# its pid in SLEEPER
iso_sleeper() {
	setpriv --reuid="$1" --regid="$2" --clear-groups -- \
		"$ISOCTL" run --rr -p 10 -- sleep 30 >/dev/null 2>&1 &
	SLEEPER=$!
	ISO_CHILDREN+=($SLEEPER)
}
policy() { kernel_sched "$1" | cut -d' ' -f1; }
wait_policy() { # PID POLICY: within 2 s
	for _ in $(seq 40); do [ "$(policy "$1")" = "$2" ] && return 0; sleep 0.05; done
	return 1
}

iso_sleeper nobody nogroup; pn=$SLEEPER
iso_sleeper daemon daemon; pd=$SLEEPER
wait_policy "$pn" 2 || fail "nobody's thread not granted: $(kernel_sched "$pn")"
wait_policy "$pd" 2 || fail "daemon's thread not granted: $(kernel_sched "$pd")"
log "granted: nobody $pn, daemon $pd; tracked: $(tracked)"

write_config "allow_users = daemon" >/dev/null
kill -HUP "$ISOD_PID"
wait_policy "$pn" 0 || fail "nobody removed from allow_users, its thread still $(kernel_sched "$pn")"
case " $(tracked) " in *" $pn "*) fail "nobody's thread $pn still tracked";; esac
wait_log -E "no longer allowed.*thread $pn" ||
	fail "no log line names the revoked thread: $(grep -i allowed "$ISO_TMP/isod.log")"
# the reload revokes in one pass of the server thread, which answers a
# status request only after it: the pass is over once one is answered
case " $(tracked) " in *" $pd "*) ;; *) fail "daemon's thread $pd no longer tracked";; esac
[ "$(policy "$pd")" = 2 ] || fail "daemon's thread lost ISO: $(kernel_sched "$pd")"
log "after SIGHUP: $(grep -m1 'no longer allowed' "$ISO_TMP/isod.log")"

# a group list daemon is not in (nogroup: nobody's, not daemon's)
write_config "allow_groups = nogroup" >/dev/null
kill -HUP "$ISOD_PID"
wait_policy "$pd" 0 || fail "daemon not in allow_groups, its thread still $(kernel_sched "$pd")"
[ -z "$(tracked)" ] || fail "still tracked: $(tracked)"
# and a request from a user not allowed is still refused
if setpriv --reuid=daemon --regid=daemon --clear-groups -- "$ISOCTL" run --rr -p 10 -- true 2>/dev/null; then
	fail "daemon granted ISO with allow_groups = nogroup"
fi
echo PASS
