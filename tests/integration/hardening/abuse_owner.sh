#!/usr/bin/env bash
# Abuse: another user's threads. nobody names threads of user daemon (ISO
# and plain, in two processes): EPERM, and the kernel policy of every
# victim thread is unchanged; releasing the victim's ISO thread is EPERM
# too; TUNE is root-only. The rule isod applies (handler.c do_set ->
# iso_check_owner): the peer's uid must equal the target's real or
# effective uid, so a thread of ANOTHER PROCESS OF THE SAME USER is
# accepted, exactly as the kernel's sched_setscheduler would allow it.
# After each step isod is alive and answers status in < 100 ms.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
start_isod $(no_rate_limit)
start_victim 40

viso=$(awk '/^tid/{print $2; exit}' "$ISO_TMP/victim.iso")
vplain=$(awk '/^tid/{print $2; exit}' "$ISO_TMP/victim.plain")
[ -n "$viso" ] && [ -n "$vplain" ] || fail "no victim tids"

# 1. promote / change another user's threads: EPERM
for t in "$viso" "$vplain" "${VICTIMS[1]}"; do
	for how in "--rr -p 10" "--fifo -p 99" "--rr -p 1 --limit 5"; do
		err=$(as_nobody "$ISOCTL" set $how "$t" 2>&1) && fail "nobody changed daemon's thread $t ($how)"
		echo "$err" | grep -qi "not permitted" || fail "thread $t ($how): want EPERM, got: $err"
	done
done
assert_victim_unchanged "promote another user's threads"
assert_serving "promote another user's threads"

# 1b. the same through the protocol's (pid, tid) pair: the victim's tid
#     under a pid of nobody's, nobody's own tid under the victim's pid,
#     and the victim's tid under its own pid: all refused (ESRCH / EPERM)
"${AS_NOBODY[@]}" "$SPIN" --threads 1 --seconds 20 --duty 1 >"$ISO_TMP/own.out" &
own=$!; ISO_CHILDREN+=($own)
wait_lines "$ISO_TMP/own.out" '^ready' 1 || fail "nobody's process did not start"
otid=$(awk '/^tid/{print $2; exit}' "$ISO_TMP/own.out")
for pair in "$own $viso" "${VICTIMS[0]} $otid" "${VICTIMS[0]} $viso" "${VICTIMS[1]} $vplain"; do
	r=$(as_nobody "$HARDTOOL" setpid $pair)
	log "SET (pid tid) = ($pair): $r"
	case "$r" in "setpid err -3 "*|"setpid err -1 "*) ;; *) fail "SET ($pair) not refused with ESRCH/EPERM: $r";; esac
done
[ "$(kernel_sched "$otid" | cut -d' ' -f1)" = 0 ] || fail "nobody's own thread $otid changed by a mismatched pid"
kill_bg "$own"
assert_victim_unchanged "(pid, tid) mismatches"
assert_serving "(pid, tid) mismatches"

# 2. release (demote) another user's ISO thread: EPERM, it stays RR
err=$(as_nobody "$ISOCTL" set --normal "$viso" 2>&1) && fail "nobody released daemon's ISO thread"
echo "$err" | grep -qi "not permitted" || fail "release: want EPERM, got: $err"
assert_victim_unchanged "release another user's thread"
"$ISOCTL" status --json | python3 -c "import json,sys
s=json.load(sys.stdin); sys.exit(0 if any(t['tid']==$viso for t in s['threads']) else 1)" ||
	fail "victim's ISO thread no longer tracked"
assert_serving "release another user's thread"

# 3. TUNE is root-only
err=$(as_nobody "$ISOCTL" tune iso_cpu=100 2>&1) && fail "nobody retuned isod"
echo "$err" | grep -qi "not permitted" || fail "tune: want EPERM, got: $err"
"$ISOCTL" status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["iso_cpu"]==70 else 1)' ||
	fail "iso_cpu changed by nobody's tune"
assert_serving "tune as nobody"

# 4. a thread of another process of the SAME user: accepted (the kernel's
#    rule). nobody's second process, plain SCHED_OTHER, becomes kernel RR.
"${AS_NOBODY[@]}" "$SPIN" --threads 1 --seconds 20 --duty 1 >"$ISO_TMP/same.out" &
same=$!; ISO_CHILDREN+=($same)
wait_lines "$ISO_TMP/same.out" '^ready' 1 || fail "same-user process did not start"
stid=$(awk '/^tid/{print $2; exit}' "$ISO_TMP/same.out")
[ "$(kernel_sched "$stid" | cut -d' ' -f1)" = 0 ] || fail "same-user thread not SCHED_OTHER at start"
as_nobody "$ISOCTL" set --rr -p 10 "$stid" >/dev/null || fail "same uid, other process: refused"
[ "$(kernel_sched "$stid" | cut -d' ' -f1)" = 2 ] || fail "same-user thread $stid not kernel RR after the grant"
"$ISOCTL" status --json | python3 -c "import json,sys
s=json.load(sys.stdin); sys.exit(0 if any(t['tid']==$stid and t['pid']==$same and t['uid']==65534 for t in s['threads']) else 1)" ||
	fail "same-user thread not tracked as pid $same uid 65534"
log "same uid, other process: accepted (kernel RR), as the kernel's own rule"
# and the victim still cannot be reached through it
err=$(as_nobody "$ISOCTL" set --rr -p 10 "$viso" 2>&1) && fail "nobody changed $viso"
assert_victim_unchanged "same-user grant"
assert_serving "same-user grant"
kill_bg "$same"
assert_no_rt_left "$same"
echo "PASS"
