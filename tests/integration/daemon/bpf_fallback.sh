#!/usr/bin/env bash
# Without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (isod confined by a copy
# of isod.service without the first two), accounting = auto falls back to
# /proc with one log line saying why, and isod still polices (the burst
# guard demotes a spinner); accounting = bpf refuses to start, saying why.
# Skipped (77) if this isod would not load BPF even with them.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
start_bpf_isod # skips unless BPF loads with every capability
stop_isod
: >"$ISO_TMP/isod.log"

sed -E '/^CapabilityBoundingSet=/s/ CAP_(BPF|PERFMON)//g' "$SRC_ROOT/packaging/isod.service.in" \
	>"$ISO_TMP/nobpf.service"
grep -q '^CapabilityBoundingSet=.*CAP_BPF' "$ISO_TMP/nobpf.service" && fail "could not drop CAP_BPF"
export UNIT_FILE=$ISO_TMP/nobpf.service ISOSCHED_TEST_CONFINED=unit
source "$SRC_ROOT/tests/integration/unit_confine.sh"

start_isod --accounting auto
[ "$(grep -c "accounting auto: using proc" "$ISO_TMP/isod.log")" = 1 ] ||
	fail "not one fallback line: $(grep accounting "$ISO_TMP/isod.log")"
grep -q "BPF not available: not permitted" "$ISO_TMP/isod.log" ||
	fail "the fallback line does not say why: $(grep accounting "$ISO_TMP/isod.log")"
out=$ISO_TMP/spin.out
"${AS_NOBODY[@]}" "$SPIN" --seconds 4 --iso fifo --prio 20 >"$out" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tid=$(awk '/^tid/{print $2}' "$out")
[ -n "$tid" ] || fail "spinner did not start"
# the burst guard (default 200 ms) demotes a thread that never blocks
poll_policy "$tid" 0 40 || fail "proc accounting did not police spinner $tid: $(kernel_sched "$tid")"
stop_isod

# accounting = bpf: a start-up error, with the reason
"${UNIT_CONFINE[@]}" "$ISOD" --socket "$ISO_TMP/b.sock" --state-file "$ISO_TMP/b.state" \
	--sweep-orphans no --accounting bpf >"$ISO_TMP/bpf.log" 2>&1 &
p=$!
for _ in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
if kill -0 $p 2>/dev/null; then kill $p; fail "accounting = bpf started without CAP_BPF"; fi
wait $p && fail "accounting = bpf without CAP_BPF exited 0"
grep -q "accounting = bpf, but the BPF accounting cannot load: not permitted" "$ISO_TMP/bpf.log" ||
	fail "no clear start-up error: $(cat "$ISO_TMP/bpf.log")"
echo PASS
