#!/usr/bin/env bash
# Fault: the state file cannot be written (full or read-only /run; here:
# the state file and its directory made immutable with chattr +i, which
# stops root too: no append to the log, no compaction). isod promises "on disk before the client hears of it"
# (grants.c): a grant it cannot record would survive a SIGKILL unpoliced,
# because the restarted isod finds the old, intact record and therefore
# neither re-polices nor sweeps the thread. So: either the grant is
# refused while the record cannot be written, or, after SIGKILL and a
# restart (with the directory writable again), no thread granted is
# kernel RT without isod tracking it.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
command -v chattr >/dev/null || skip "no chattr"
sdir=$ISO_TMP/state
mkdir -p "$sdir"
trap 'rc=$?; chattr -i "$sdir/isod.state" "$sdir" 2>/dev/null; (exit $rc); iso_cleanup' EXIT
# a band of its own (42..49): the sweep and the audit look at the whole
# machine, and fault_kill's ISO threads in 70..80 (its isod's) would be
# strays to this isod when the two tests run side by side
opts=($(no_rate_limit) --state-file "$sdir/isod.state" --band 42:49 --sweep-orphans yes)
start_isod "${opts[@]}"
for _ in $(seq 50); do [ -f "$sdir/isod.state" ] && break; sleep 0.1; done
[ -f "$sdir/isod.state" ] || fail "isod wrote no initial state record"
chattr +i "$sdir/isod.state" "$sdir" 2>/dev/null || skip "chattr +i not supported on $sdir"
if touch "$sdir/probe" 2>/dev/null; then skip "immutable directory still writable"; fi

"${AS_NOBODY[@]}" "$SPIN" --threads 10 --seconds 0.3 --duty 2 --idle-after 20 \
	--iso rr --prio 50 >"$ISO_TMP/fam" 2>&1 &
fam=$!; ISO_CHILDREN+=($fam)
wait_lines "$ISO_TMP/fam" '^ready' 1 100 || fail "spinner did not start: $(cat "$ISO_TMP/fam")"
tids=$(awk '/^tid/{print $2}' "$ISO_TMP/fam")
refused=$(grep -c 'iso_set_thread' "$ISO_TMP/fam")
r=$(police_report $tids)
log "with an unwritable state file: $refused of 10 grants refused; $r"
# every grant needs its record appended: none can be acknowledged
[ "$refused" -eq 10 ] || fail "only $refused of 10 grants refused with an unwritable state file ($r)"
grep -c 'state file' "$ISO_TMP/isod.log" | while read -r n; do log "isod logged $n state-file warnings"; done
kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=
chattr -i "$sdir/isod.state" "$sdir"
start_isod "${opts[@]}"
r=$(police_report $tids)
log "after SIGKILL and a restart: $r"
case "$r" in
*"rt_untracked 0 "*) ;;
*) fail "granted threads run kernel RT unpoliced after a restart: the grants were acknowledged but never recorded ($r)";;
esac
stop_isod
assert_no_rt_left "$fam"
echo "PASS"
