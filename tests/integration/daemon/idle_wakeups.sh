#!/usr/bin/env bash
# With no ISO thread no decision can change, so isod's enforcer does not
# wake at all (issue 13): its context switches do not grow over a few
# seconds, and the exit line counts no check. Behaviour, not timing: the
# count is of wakeups, which a fixed tick would make ~100 a second.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root

start_isod
sleep 1
enf=
for t in /proc/"$ISOD_PID"/task/*; do
	tid=${t##*/}
	[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 1 ] && enf=$tid
done
[ -n "$enf" ] || skip "no SCHED_FIFO enforcer thread (no privilege for it here)"
switches() { awk '/^(non)?voluntary_ctxt_switches/{n += $2} END{print n}' "/proc/$ISOD_PID/task/$enf/status"; }
a=$(switches)
sleep 3
b=$(switches)
log "enforcer $enf: $((b - a)) context switches in 3 s with no ISO thread"
[ $((b - a)) -le 2 ] || fail "the enforcer woke $((b - a)) times in 3 s with no ISO thread"
stop_isod
line=$(grep "exit: every ISO thread" "$ISO_TMP/isod.log") || fail "no exit line"
log "$line"
echo "$line" | grep -q "; 0 checks," || fail "checks were made with no ISO thread: $line"
echo "PASS"
