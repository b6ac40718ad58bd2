#!/usr/bin/env bash
# A starved enforcer polices nothing, so isod's server thread demotes every
# ISO thread until the enforcer runs again. To starve it: isod pinned to
# CPU 0 with a root SCHED_FIFO 90 spinner there for 3 s (above the
# enforcer's 41; the kernel's RT throttling leaves SCHED_OTHER — the server
# thread — its 5 %). The ISO thread runs on CPU 1 and must become
# SCHED_OTHER while the hog runs, and ISO again after it.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
need_starvable_enforcer
out=$ISO_TMP/spin.out

scale=${ISOSCHED_TEST_TIME_SCALE:-1}
start_isod_on_cpu0
# the ISO thread lives until cleanup kills it (its --seconds a bound of
# last resort): in the 6.1 guest under TCG its 10 s ran out before the
# last check
"${AS_NOBODY[@]}" taskset -c 1 "$SPIN" --seconds $((40 * scale)) --duty 5 --iso rr --prio 20 >"$out" 2>"$out.err" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tid=$(awk '/^tid/{print $2}' "$out")
# "not RR at the start" was seen once under load, cause not known: say
# everything that could tell (the client's error, isod's lines on it)
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 2 ] ||
	fail "thread '$tid' not RR at the start ($(kernel_sched "$tid")); spin: $(cat "$out" "$out.err" | tr '\n' ' '); isod: $(grep -E "thread $tid|enforcer|watchdog" "$ISO_TMP/isod.log" | tail -n 8)"

# the hog: bounded twice over (its own --seconds, and timeout)
timeout $((5 * scale)) chrt -f 90 taskset -c 0 "$SPIN" --seconds $((3 * scale)) >/dev/null &
ISO_CHILDREN+=($!); hog=$!
pol=
for _ in $(seq $((30 * scale))); do
	sleep 0.1
	pol=$(kernel_sched "$tid" | cut -d' ' -f1)
	[ "$pol" = 0 ] && break
done
[ "$pol" = 0 ] || fail "ISO thread still policy $pol while the enforcer was starved"
wait "$hog"
for _ in $(seq $((30 * scale))); do
	pol=$(kernel_sched "$tid" | cut -d' ' -f1)
	[ "$pol" = 2 ] && break
	sleep 0.1
done
[ "$pol" = 2 ] || fail "ISO thread not RR again after the enforcer came back (policy $pol)"
grep -q "the enforcer has not run" "$ISO_TMP/isod.log" || fail "no watchdog warning logged"
grep -q "the enforcer runs again" "$ISO_TMP/isod.log" || fail "no recovery logged"
stop_isod
echo "PASS"
