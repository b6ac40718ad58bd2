#!/usr/bin/env bash
# Abuse: racing thread exit and TID reuse. Two attackers (nobody) loop:
# fork a child or create a thread, let it exit (or ask while it exits),
# then ask ISO for its TID and the next three TIDs, where the machine's
# next threads are born. Meanwhile the victim (daemon) churns plain
# threads (thousands per second) and child processes, each of which
# watches its own policy: none of them may ever see itself kernel RT, no
# grant may name a thread of another uid, the victim's long-lived threads
# keep their policies, and isod's table ends with only the victim's own
# two ISO threads (exited attackers' threads leave no stale entries).
# To make TIDs get reused during the run, a root helper takes TIDs (vfork
# + _exit) until the counter wraps past pid_max, as the race starts.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
secs=8
start_isod $(no_rate_limit)
start_victim 40
vchurn=()
"${AS_DAEMON[@]}" "$HARDTOOL" churn thread $secs 2000 200 plain >"$ISO_TMP/vthreads" 2>&1 &
vchurn+=($!); ISO_CHILDREN+=($!)
"${AS_DAEMON[@]}" "$HARDTOOL" churn fork $secs 300 200 plain >"$ISO_TMP/vforks" 2>&1 &
vchurn+=($!); ISO_CHILDREN+=($!)
"$HARDTOOL" wrap 6 >"$ISO_TMP/wrap" 2>&1 &
wrap=$!; ISO_CHILDREN+=($!)
att=()
for i in 1 2; do
	"${AS_NOBODY[@]}" "$HARDTOOL" race $secs >"$ISO_TMP/race$i" 2>&1 &
	att+=($!); ISO_CHILDREN+=($!)
done
# while it runs: no thread of user daemon other than the victim's two ISO
# threads may ever be tracked or kernel RT
viso=" $(awk '/^tid/{print $2}' "$ISO_TMP/victim.iso" | tr '\n' ' ') "
bad=
while kill -0 "${att[0]}" 2>/dev/null; do
	for t in $("$ISOCTL" status --json | python3 -c 'import json,sys
for t in json.load(sys.stdin)["threads"]:
    if t["uid"] == 1: print(t["tid"])'); do
		case "$viso" in *" $t "*) ;; *) bad="$bad $t";; esac
	done
	sleep 0.5
done
wait "${att[@]}" "${vchurn[@]}" "$wrap"
for f in wrap race1 race2 vthreads vforks; do log "$f: $(tr '\n' ' ' <"$ISO_TMP/$f")"; done
[ -z "$bad" ] || fail "isod tracked threads of user daemon it was never asked for by daemon:$bad"
for f in race1 race2; do
	grep -q '^requests' "$ISO_TMP/$f" || fail "$f did not finish: $(cat "$ISO_TMP/$f")"
	grep -q 'foreign_uid 0 ' "$ISO_TMP/$f" || fail "$f: isod granted a thread of another uid: $(cat "$ISO_TMP/$f")"
	# (other_process counts grants of the other attacker's threads: same
	# uid, so allowed, as for the kernel)
	grep -q ' other 0 ' "$ISO_TMP/$f" || fail "$f: unexpected errors: $(cat "$ISO_TMP/$f")"
done
eperm=$(cat "$ISO_TMP/race1" "$ISO_TMP/race2" | awk '/^requests/{n += $6} END {print n + 0}')
okn=$(cat "$ISO_TMP/race1" "$ISO_TMP/race2" | awk '/^requests/{n += $4} END {print n + 0}')
[ "$eperm" -gt 0 ] || fail "no request hit another user's thread (eperm 0): the race did not race"
[ "$okn" -gt 0 ] || fail "no grant for an exiting thread of the attacker: the race did not race"
for f in vthreads vforks; do
	grep -q 'rt_seen 0 ' "$ISO_TMP/$f" || fail "a thread of user daemon saw itself kernel RT: $(cat "$ISO_TMP/$f")"
	grep -q 'spawned [1-9]' "$ISO_TMP/$f" || fail "victim churn did not run: $(cat "$ISO_TMP/$f")"
done
assert_victim_unchanged "TID race"
assert_no_rt_left "${vchurn[@]}" "${att[@]}" "${VICTIMS[1]}"
# exited attackers' threads are gone from the table within a few samples
for _ in $(seq 50); do [ "$(tracked_total)" = 2 ] && break; sleep 0.1; done
[ "$(tracked_total)" = 2 ] || fail "isod tracks $(tracked_total) threads after the race, want the victim's 2: $(tracked_tids | tr '\n' ' ')"
assert_serving "TID race"
[ -z "$(log_errors)" ] || fail "error-level log lines: $(log_errors)"
echo "PASS"
