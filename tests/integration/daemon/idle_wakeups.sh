#!/usr/bin/env bash
# With no ISO thread no decision can change, so isod's enforcer does not
# wake at all (issue 13): its context switches do not grow over a few
# seconds, and the exit line counts no check. Nor does its server thread,
# though the machine forks: it follows the process connector only while
# it tracks a thread, and has no tick to keep while idle. Once a thread
# has come and gone, it is idle again. Behaviour, not timing: the counts
# are of wakeups, which a fixed tick would make ~100 a second.
# Another test that ends meanwhile wakes this isod too: its auditor
# (audit.sh, at every test's end) asks every isod of the machine for its
# threads. Tests run one at a time (CI; ISOSCHED_TEST_LOCK where several
# trees share a machine); a stress run beside another tree's test failed
# so, twice (bpf_quiet too).
source "$SRC_ROOT/tests/integration/lib.sh"
need_root

start_isod
# started: the enforcer has planned (nothing) and sleeps, and the server
# has written its first state record (server.c: in the round after a
# request is answered; the second of two requests is answered after it)
wait_enforcer_asleep 0 0 || fail "the enforcer did not go to sleep at start-up"
"$ISOCTL" status >/dev/null && "$ISOCTL" status >/dev/null || fail "isoctl status failed"
enf=
for t in /proc/"$ISOD_PID"/task/*; do
	tid=${t##*/}
	[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 1 ] && enf=$tid
done
[ -n "$enf" ] || skip "no SCHED_FIFO enforcer thread (no privilege for it here)"
# a thread's wakeups: its voluntary context switches (it blocks again
# after each); the involuntary ones are preemptions, the machine's load
switches() { awk '/^voluntary_ctxt_switches/{n += $2} END{print n}' "/proc/$ISOD_PID/task/$1/status"; }
forks() { for _ in $(seq 200); do /bin/true; done; }
# idle_check WHEN: neither thread wakes over 3 s of forks (at most an
# audit's, every audit_interval = 10 s, and a stray context switch)
idle_check() {
	local a b m n
	a=$(switches "$enf"); m=$(switches "$ISOD_PID")
	forks
	sleep 3
	b=$(switches "$enf"); n=$(switches "$ISOD_PID")
	log "$1: enforcer $((b - a)), server $((n - m)) context switches in 3 s and 200 forks"
	[ $((b - a)) -le 2 ] || fail "$1: the enforcer woke $((b - a)) times with no ISO thread"
	[ $((n - m)) -le 3 ] || fail "$1: the server woke $((n - m)) times with no ISO thread"
}
idle_check "before any grant"
# a thread comes and goes: its child is still adopted meanwhile (the
# connector was joined again), and then isod is idle again
# (the child lives until the test has seen it adopted: it reads a fifo
# the test writes then, not a time that a slow machine outlasts)
fifo=$ISO_TMP/child.fifo
mkfifo -m 666 "$fifo"
"${AS_NOBODY[@]}" "$ISOCTL" run --fifo -p 10 -- sh -c 'cat "$1" >/dev/null & wait' sh "$fifo" &
runner=$!
ISO_CHILDREN+=($runner)
adopted=
for _ in $(seq $((100 * ${ISOSCHED_TEST_TIME_SCALE:-1}))); do
	"$ISOCTL" status --json | grep -q '"adopted": *true' && { adopted=1; break; }
	sleep 0.05
done
echo >"$fifo" # the child may go now
[ -n "$adopted" ] || fail "a child of the ISO thread was not adopted (connector not followed?)"
wait $runner || fail "isoctl run failed"
for _ in $(seq 50); do "$ISOCTL" status | grep -q '^ISO threads: *0$' && break; sleep 0.1; done
# the enforcer has checked once more, found no thread, and sleeps with
# no check planned (its debug line after the thread's grant)
wait_enforcer_asleep "$(log_line_of "^<6>isod: thread $runner (pid")" 0 ||
	fail "the enforcer did not go to sleep after the last thread left: $(tail -5 "$ISO_TMP/isod.log")"
# and the server has recorded the release in the state file and looked at
# the lost thread's process (server.c: both in the round after a request
# is answered): the second of two requests is answered after them
"$ISOCTL" status >/dev/null && "$ISOCTL" status >/dev/null || fail "isoctl status failed"
idle_check "after the last thread left"
stop_isod
line=$(grep "exit: every ISO thread" "$ISO_TMP/isod.log") || fail "no exit line"
log "$line"
echo "$line" | grep -q "checks," || fail "no count of checks: $line"
echo "PASS"
