#!/usr/bin/env bash
# Abuse: "no one let in" with allow_groups. isod authenticates a connection
# once, at accept: SO_PEERCRED (uid, gid, pid), SO_PEERGROUPS and the pid's
# start time. It used to read the groups from /proc/PEER_PID/status at
# request time, so once the connecting process exited and its pid went to
# another process, that process's groups decided.
# Here: isod --allow-groups audio. nobody (not in audio) connects (A),
# forks B which inherits the connection, A exits; A's pid goes to C, a
# process of user daemon in group audio (the PID cursor is set with
# /proc/sys/kernel/ns_last_pid — it only picks which free number the next
# task gets — or walked round by forking). B then asks ISO for its own
# thread on A's connection. Wanted: EPERM, as without the reuse.
# (Found by this test; fixed: the groups are the connect-time ones, and a
# request on the connection of an exited process gets ESRCH.)
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
agid=$(getent group audio | cut -d: -f3)
[ -n "$agid" ] || skip "no group audio"
start_isod $(no_rate_limit) --allow-groups audio
nuid=$(id -u nobody) ngid=$(getent group nogroup | cut -d: -f3) duid=$(id -u daemon) dgid=$(id -g daemon)

# allow_groups is in force: nobody refused, daemon in audio served
err=$(as_nobody "$SPIN" --seconds 0.1 --iso rr 2>&1) && fail "nobody got ISO despite allow_groups"
echo "$err" | grep -q "not permitted" || fail "nobody: want EPERM, got: $err"
setpriv --reuid=daemon --regid=daemon --groups="$agid" -- "$SPIN" --seconds 0.1 --iso rr >/dev/null 2>&1 ||
	fail "a member of audio was refused"

# the connection of a process that exited, pid not reused: refused
r=$("$HARDTOOL" peerpid 0 "$nuid" "$ngid" "$duid" "$dgid" "$agid" 2>&1)
log "without reuse: $r"
echo "$r" | grep -q 'err -1 ' || fail "orphaned connection, pid not reused: want EPERM (-1): $r"

# the same with the pid reused by a member of audio
r=$("$HARDTOOL" peerpid 1 "$nuid" "$ngid" "$duid" "$dgid" "$agid" 2>&1)
log "with the pid reused by daemon (group audio): $r"
echo "$r" | grep -q 'reuse yes' || skip "could not get the pid reused: $r"
assert_serving "peer pid reuse"
echo "$r" | grep -q 'err -1 ' ||
	fail "nobody was let in: isod judged allow_groups by the process that reused the peer's pid ($r)"
echo "$r" | grep -q 'rt_during 0' || fail "nobody's thread ran kernel RT: $r"
echo "PASS"
