#!/usr/bin/env bash
# PID namespaces (issue 11, item 6). A client of user nobody inside
# `unshare -Urpf` names threads as it sees them:
#  - its own thread (spin, through libisosched) is mapped and really
#    becomes SCHED_FIFO (the client's own process: no scan at all);
#  - a thread of another process of its namespace (isoctl naming its
#    parent's thread) is found in the namespace's process tree;
#  - a thread outside the namespace (nobody's own, on the host) cannot be
#    named: ESRCH, and it stays SCHED_OTHER.
# And GET, like SET, is refused to a user outside allow_users.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
as_nobody unshare -Urpf --kill-child -- true 2>/dev/null ||
	skip "unprivileged user and PID namespaces are not available"
start_isod
# a plain command, not the function as_nobody: $! is then setpriv's pid,
# which execs unshare, whose child is the namespace's init
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

# 1. the client's own thread
"${NOBODY[@]}" unshare -Urpf --kill-child -- "$SPIN" --threads 1 --seconds 15 --duty 1 \
	--iso fifo --prio 10 >"$ISO_TMP/own" 2>&1 &
ns1=$!; ISO_CHILDREN+=($ns1)
for _ in $(seq 100); do grep -q '^ready' "$ISO_TMP/own" && break; sleep 0.05; done
grep -q '^ready' "$ISO_TMP/own" || fail "spin in a PID namespace did not start: $(cat "$ISO_TMP/own")"
host_spin=$(pgrep -P "$ns1" | head -1)
[ -n "$host_spin" ] || fail "no spin process under unshare $ns1"
fifo=0
for t in /proc/"$host_spin"/task/*; do
	[ "$(kernel_sched "${t##*/}" | cut -d' ' -f1)" = 1 ] && fifo=$((fifo + 1))
done
log "spin in a namespace: ns tid $(awk '/^tid/{print $2}' "$ISO_TMP/own"), host pid $host_spin, $fifo thread(s) SCHED_FIFO"
[ "$fifo" = 1 ] || fail "the namespaced client's own thread is not SCHED_FIFO ($fifo threads are): $(cat "$ISO_TMP/own")"

# 2. another process of the namespace, and 3. a thread outside it
"${NOBODY[@]}" sleep 20 &
outside=$!; ISO_CHILDREN+=($outside)
cat >"$ISO_TMP/ns.py" <<'PY'
import os, subprocess, sys, threading
isoctl, outside = sys.argv[1], sys.argv[2]
stop = threading.Event()
t = threading.Thread(target=lambda: stop.wait(20))
t.start()
r = subprocess.run([isoctl, "set", "--fifo", "-p", "10", str(t.native_id)],
                   capture_output=True, text=True)
print("tree", t.native_id, r.returncode, r.stderr.strip().replace(" ", "_") or "-", flush=True)
r = subprocess.run([isoctl, "set", "--fifo", "-p", "10", outside],
                   capture_output=True, text=True)
print("outside", outside, r.returncode, r.stderr.strip().replace(" ", "_") or "-", flush=True)
print("ready", flush=True)
stop.wait(20)
PY
chmod 644 "$ISO_TMP/ns.py"
"${NOBODY[@]}" unshare -Urpf --kill-child -- /usr/bin/python3 "$ISO_TMP/ns.py" "$ISOCTL" "$outside" \
	>"$ISO_TMP/tree" 2>&1 &
ns2=$!; ISO_CHILDREN+=($ns2)
for _ in $(seq 100); do grep -q '^ready' "$ISO_TMP/tree" && break; sleep 0.05; done
grep -q '^ready' "$ISO_TMP/tree" || fail "python in a PID namespace did not get ready: $(cat "$ISO_TMP/tree")"
log "in the namespace: $(tr '\n' ';' <"$ISO_TMP/tree")"
host_py=$(pgrep -P "$ns2" | head -1)
fifo=0
for t in /proc/"$host_py"/task/*; do
	[ "$(kernel_sched "${t##*/}" | cut -d' ' -f1)" = 1 ] && fifo=$((fifo + 1))
done
awk '/^tree/{exit $3 != 0}' "$ISO_TMP/tree" ||
	fail "isoctl could not name another process's thread in its namespace: $(grep '^tree' "$ISO_TMP/tree")"
[ "$fifo" = 1 ] || fail "the thread named from the namespace is not SCHED_FIFO ($fifo threads are)"
awk '/^outside/{exit $3 == 0}' "$ISO_TMP/tree" ||
	fail "a thread outside the namespace was named from inside it: $(grep '^outside' "$ISO_TMP/tree")"
grep '^outside' "$ISO_TMP/tree" | grep -q 'No_such_process\|no_thread' ||
	fail "naming a thread outside the namespace: want ESRCH, got $(grep '^outside' "$ISO_TMP/tree")"
[ "$(kernel_sched "$outside" | cut -d' ' -f1)" = 0 ] || fail "the thread outside the namespace changed policy"
kill -KILL "$ns1" "$ns2" "$outside" 2>/dev/null # --kill-child: their children go too
wait "$ns1" "$ns2" "$outside" 2>/dev/null
stop_isod

# 4. GET needs allow-list membership, as SET does; STATUS does not
start_isod --allow-users daemon
out=$(as_nobody "$ISOCTL" get $$ 2>&1) && fail "GET by a user outside allow_users answered: $out"
echo "$out" | grep -q 'not allowed' || fail "GET by a user outside allow_users: want EPERM 'not allowed', got: $out"
setpriv --reuid=daemon --regid=daemon --clear-groups -- "$ISOCTL" get $$ >/dev/null ||
	fail "GET by an allowed user failed"
as_nobody "$ISOCTL" status >/dev/null || fail "STATUS by a user outside allow_users failed"
log "GET outside allow_users: $out"
echo "PASS"
