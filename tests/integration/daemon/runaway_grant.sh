#!/usr/bin/env bash
# The grants that make a runaway must not starve the enforcer's wake. One
# ISO spinner per CPU, each asking for ISO as it starts: once the last is
# in the band, isod's server (SCHED_OTHER) gets next to no CPU, so any
# part of a grant that waits for the server — a re-plan held until its
# reply is out — leaves the enforcer asleep until the watchdog demotes
# everything. The budget must do it: with iso_period 1 s the average
# crosses iso_cpu 70 % after ~1.2 s. Six fresh isods (a fresh grant each,
# no history); the worst trial counts: no watchdog in any.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
n=$(nproc)
for trial in 1 2 3 4 5 6; do
	: >"$ISO_TMP/isod.log"
	start_isod --iso-period 1 --burst-ms 0 --stall-ms 0
	out=$ISO_TMP/spin.$trial.out
	"${AS_NOBODY[@]}" "$SPIN" --threads "$n" --seconds 2.5 --iso fifo --prio 30 >"$out" &
	spinners=$!
	ISO_CHILDREN+=($spinners)
	wait "$spinners" || fail "trial $trial: a spinner failed or was killed"
	wait_log "above iso_cpu, ISO threads demoted" ||
		fail "trial $trial: the budget never demoted the runaway: $(tail -5 "$ISO_TMP/isod.log")"
	if grep -q "the enforcer has not run" "$ISO_TMP/isod.log"; then
		fail "trial $trial: the watchdog acted — the enforcer was not woken for the grants: $(grep 'the enforcer has not run' "$ISO_TMP/isod.log")"
	fi
	stop_isod
	log "trial $trial: demoted by the budget, no watchdog"
done
echo "PASS"
