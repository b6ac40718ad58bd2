#!/usr/bin/env bash
# SIGTERM demotes every ISO thread; after SIGKILL a restarted isod finds
# the threads it had promoted in its state file and polices them again.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
out=$ISO_TMP/spin.out

start_isod
# 60 s at most, killed at the end: the threads must outlive every check
# below however slow the restarts are on a loaded machine (a gone thread
# reads as "not SCHED_OTHER")
"${AS_NOBODY[@]}" "$SPIN" --threads 2 --seconds 60 --duty 10 --iso rr --prio 20 >"$out" &
sp=$!
ISO_CHILDREN+=($sp)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tids=$(awk '/^tid/{print $2}' "$out")
for t in $tids; do [ "$(kernel_sched "$t" | cut -d' ' -f1)" = 2 ] || fail "not RR"; done
stop_isod
for t in $tids; do
	[ "$(kernel_sched "$t" | cut -d' ' -f1)" = 0 ] || fail "SIGTERM left thread $t real-time"
done

# SIGKILL: the threads stay RT, the state file remembers them
start_isod
for t in $tids; do as_nobody "$ISOCTL" set --rr -p 20 "$t" >/dev/null || fail "re-grant $t"; done
kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=
grep -q . "$ISO_TMP/isod.state" || fail "no state file"
start_isod
n=$("$ISOCTL" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))')
[ "$n" = 2 ] || fail "restarted isod re-adopted $n threads, want 2"
stop_isod
for t in $tids; do
	[ "$(kernel_sched "$t" | cut -d' ' -f1)" = 0 ] || fail "thread $t RT after final SIGTERM"
done
# the spinner itself ($sp is the shell around setpriv)
first=$(echo "$tids" | head -n 1)
kill $sp "$(awk '/^Tgid:/{print $2}' "/proc/$first/status" 2>/dev/null)" 2>/dev/null
echo "PASS"
