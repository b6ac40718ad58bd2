#!/usr/bin/env bash
# A stray seen by the kernel: root starts a program at a band priority and
# hands it to nobody (chrt, then setpriv), so an unprivileged thread sits
# in the band without isod. With the BPF accounting and stray policing on
# but no periodic audit (audit_interval 0: only the start-up sweep, done
# before the stray exists), only the program's ring buffer can tell isod:
# it is demoted within seconds, with a stray line. Root's own RT thread in
# the band is left alone. A band of its own (62..69; fault_kill polices
# 70..80): the policing looks at the whole machine. Skipped (77) where BPF cannot load.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
start_bpf_isod --band 62:69 --sweep-orphans yes --audit-interval 0
chrt -f 66 "$SPIN" --seconds $((8 * TIME_SCALE)) --duty 10 >"$ISO_TMP/root.out" &
ISO_CHILDREN+=($!)
# chrt, setpriv and spin are one process: $! is the stray's process id
chrt -f 65 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$SPIN" --seconds $((8 * TIME_SCALE)) --duty 20 >"$ISO_TMP/stray.out" &
pid=$!
ISO_CHILDREN+=($pid)
for _ in $(seq 100); do grep -q ready "$ISO_TMP/stray.out" && grep -q ready "$ISO_TMP/root.out" && break; sleep 0.05; done
root=$(awk '/^tid/{print $2}' "$ISO_TMP/root.out")
[ -n "$root" ] && grep -q ready "$ISO_TMP/stray.out" || fail "spinners did not start"
# Every thread of the process leaves the band. Which of them the kernel
# reports depends on timing: the main thread, demoted before it starts
# the spinning thread, hands that one SCHED_OTHER (RESET_ON_FORK).
for t in /proc/$pid/task/*; do
	t=${t##*/}
	poll_policy "$t" 0 50 || { tail -20 "$ISO_TMP/isod.log" >&2; fail "stray thread $t not demoted in 5 s: $(kernel_sched "$t")"; }
done
wait_log "stray: thread [0-9]* (process $pid, uid 65534.*demoted" ||
	fail "no stray line for process $pid"
[ "$(kernel_sched "$root" | cut -d' ' -f1)" = 1 ] || fail "root's own RT thread $root was demoted"
stop_isod
echo PASS
