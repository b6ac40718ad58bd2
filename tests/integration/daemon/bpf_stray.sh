#!/usr/bin/env bash
# A stray seen by the kernel: root starts a program at a band priority and
# hands it to nobody (chrt, then setpriv), so an unprivileged thread sits
# in the band without isod. With the BPF accounting and stray policing on
# but no periodic audit (audit_interval 0: only the start-up sweep, done
# before the stray exists), only the program's ring buffer can tell isod:
# it is demoted within seconds, with a stray line. Root's own RT thread in
# the band is left alone. A band of its own (62..72): the policing looks at
# the whole machine. Skipped (77) where BPF cannot load.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
start_bpf_isod --band 62:72 --sweep-orphans yes --audit-interval 0
chrt -f 66 "$SPIN" --seconds 8 --duty 10 >"$ISO_TMP/root.out" &
ISO_CHILDREN+=($!)
chrt -f 65 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$SPIN" --seconds 8 --duty 20 >"$ISO_TMP/stray.out" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$ISO_TMP/stray.out" && grep -q ready "$ISO_TMP/root.out" && break; sleep 0.05; done
stray=$(awk '/^tid/{print $2}' "$ISO_TMP/stray.out")
root=$(awk '/^tid/{print $2}' "$ISO_TMP/root.out")
[ -n "$stray" ] && [ -n "$root" ] || fail "spinners did not start"
poll_policy "$stray" 0 50 || { tail -20 "$ISO_TMP/isod.log" >&2; fail "stray $stray not demoted in 5 s: $(kernel_sched "$stray")"; }
grep -q "stray: thread $stray .*uid 65534.*demoted" "$ISO_TMP/isod.log" || fail "no stray line for $stray"
[ "$(kernel_sched "$root" | cut -d' ' -f1)" = 1 ] || fail "root's own RT thread $root was demoted"
stop_isod
echo PASS
