#!/usr/bin/env bash
# A thread's own limit never outlives the global budget (issue 11, item
# 10e): user nobody's spinner (one CPU) carries its own limit of 80 %,
# set while iso_cpu was 90; root then lowers iso_cpu with `isoctl tune`
# below the spinner's use. The budget is exceeded, so the spinner must
# lose ISO like every other ISO thread (before: its own 80 % kept it RT).
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
n=$(nproc)
[ "$n" -ge 2 ] || skip "needs 2 CPUs (one spinner must use less than its own limit)"
share=$((100 / n))               # one spinner's use, percent of all CPUs
low=$((share * 6 / 10))          # a budget it exceeds
# the budget's rule alone: the burst guard and the stall cap (rules 18,
# 19) would demote the spinner first, whatever its limit
start_isod --iso-cpu 90 --iso-period 1 --burst-ms 0 --stall-ms 0
out=$ISO_TMP/spin.out
"${AS_NOBODY[@]}" "$SPIN" --threads 1 --seconds 30 --iso rr --prio 10 --limit 80 >"$out" 2>&1 &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tid=$(awk '/^tid/{print $2; exit}' "$out")
[ -n "$tid" ] || fail "spinner did not start: $(cat "$out")"
sleep 3
[ "$(kernel_sched "$tid" | cut -d' ' -f1)" = 2 ] ||
	fail "with iso_cpu 90 the spinner ($share % of the CPUs, own limit 80) lost ISO: $(kernel_sched "$tid")"
log "iso_cpu 90: spinner $tid keeps SCHED_RR; $("$ISOCTL" status | grep -i 'cpu use' | head -1)"

"$ISOCTL" tune iso_cpu=$low >/dev/null || fail "isoctl tune iso_cpu=$low failed"
# kernel policy of a thread without forking (the machine is busy: one
# CPU is the spinner's): field 41 of /proc/TID/stat, 39th after "(comm) "
policy_now() {
	local s f
	read -r s <"/proc/$1/stat" || return 1
	read -r -a f <<<"${s##*) }"
	POLICY=${f[38]}
}
demoted=0
end=$((SECONDS + 5)) # four time constants at least
while [ "$SECONDS" -lt "$end" ]; do
	policy_now "$tid" || fail "spinner $tid gone"
	if [ "$POLICY" = 0 ]; then demoted=1; break; fi
	sleep 0.02
done
[ "$demoted" = 1 ] ||
	fail "iso_cpu lowered to $low %: the spinner with its own limit 80 % still $(kernel_sched "$tid") ($("$ISOCTL" status | head -3 | tr '\n' ' '))"
"$ISOCTL" status | grep -q '^refractory: *yes' || log "(refractory already over when checked)"
log "iso_cpu $low: spinner demoted to SCHED_OTHER"
echo PASS
