#!/usr/bin/env bash
# A grant wakes the enforcer only if a decision can change before the
# check it sleeps to (schedule.c: isod_replan_if_sooner adds the thread to
# the enforcer's last plan; a release wakes it not at all). The plan kept
# must still see every thread granted since: here an ISO thread of nobody
# sleeps (the enforcer plans no check, or with BPF a quiet one: one
# thread on a CPU of several cannot cross iso_cpu), then grants come that
# make a decision due — a spinner with its own limit of 20 %, then one
# spinner per CPU (the global budget) — each after a release that must
# not have left the enforcer planning without them. Each must lose ISO by
# the budget, without the watchdog. With accounting proc (no kernel wake
# to plan again) and, where it loads, bpf. Behaviour only: demoted or
# not, within a bound far above the crossing (~0.2 s and ~1.2 s).
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
n=$(nproc)
[ "$n" -ge 2 ] || skip "needs 2 CPUs (one sleeping ISO thread must not cross iso_cpu)"

# wait_demoted FILE TENTHS: the spinner that wrote FILE lost ISO (the
# kernel says SCHED_OTHER) within TENTHS (poll_policy: times TIME_SCALE) tenths of a
# second of its "ready"
wait_demoted() {
	local tid
	for _ in $(seq 100); do grep -q ready "$1" && break; sleep 0.05; done
	tid=$(awk '/^tid/{print $2; exit}' "$1")
	[ -n "$tid" ] || fail "spinner did not start: $(cat "$1")"
	poll_policy "$tid" 0 "$2"
}

one_accounting() {
	local acct=$1 out sleeper tid
	: >"$ISO_TMP/isod.log"
	if [ "$acct" = bpf ]; then
		start_bpf_isod --iso-period 1 --burst-ms 0 --stall-ms 0
	else
		start_isod --accounting proc --iso-period 1 --burst-ms 0 --stall-ms 0
	fi
	"${AS_NOBODY[@]}" "$ISOCTL" run --rr -p 5 -- sleep 60 &
	sleeper=$!
	ISO_CHILDREN+=($sleeper)
	for _ in $(seq 100); do
		[ "$(kernel_sched "$sleeper" | cut -d' ' -f1)" = 2 ] && break
		sleep 0.05
	done
	[ "$(kernel_sched "$sleeper" | cut -d' ' -f1)" = 2 ] || fail "$acct: the sleeper did not get ISO"
	# the enforcer has planned with it, and sleeps (its debug line after the grant's)
	wait_enforcer_asleep "$(log_line_of "^<6>isod: thread $sleeper (pid")" 1 ||
		fail "$acct: the enforcer did not go to sleep with the sleeper in its plan: $(tail -5 "$ISO_TMP/isod.log")"

	# a grant and its release, then the grant that matters: the release
	# did not wake the enforcer, the plan kept has both
	as_nobody "$ISOCTL" run --rr -p 5 -- true || fail "$acct: a short grant failed"
	out=$ISO_TMP/limit.$acct.out
	"${AS_NOBODY[@]}" "$SPIN" --threads 1 --seconds $((5 * TIME_SCALE)) --iso rr --prio 10 --limit 20 >"$out" &
	ISO_CHILDREN+=($!)
	wait_demoted "$out" 30 ||
		fail "$acct: a spinner with its own limit of 20 % was granted while another ISO thread slept, and kept ISO for 3 s: $(tail -5 "$ISO_TMP/isod.log")"
	log "$acct: the spinner with its own limit lost ISO"
	wait "${ISO_CHILDREN[-1]}"
	# the spinner is gone from the plan: the enforcer sleeps again with
	# the sleeper alone (its debug line after the spinner's grant)
	tid=$(awk '/^tid/{print $2; exit}' "$out")
	wait_enforcer_asleep "$(log_line_of "^<6>isod: thread $tid (pid")" 1 ||
		fail "$acct: the enforcer did not go to sleep with the sleeper alone: $(tail -5 "$ISO_TMP/isod.log")"
	as_nobody "$ISOCTL" run --rr -p 5 -- true || fail "$acct: a short grant failed"
	out=$ISO_TMP/budget.$acct.out
	"${AS_NOBODY[@]}" "$SPIN" --threads "$n" --seconds $((5 * TIME_SCALE)) --iso rr --prio 10 >"$out" &
	ISO_CHILDREN+=($!)
	wait_demoted "$out" 40 ||
		fail "$acct: one spinner per CPU, granted while another ISO thread slept, kept ISO for 4 s: $(tail -5 "$ISO_TMP/isod.log")"
	wait_log "above iso_cpu, ISO threads demoted" || fail "$acct: no budget demotion in the log"
	log "$acct: the spinners lost ISO by the budget"
	wait "${ISO_CHILDREN[-1]}"
	if grep -q "the enforcer has not run" "$ISO_TMP/isod.log"; then
		fail "$acct: the watchdog acted: $(grep 'the enforcer has not run' "$ISO_TMP/isod.log")"
	fi
	kill "$sleeper" 2>/dev/null
	wait "$sleeper" 2>/dev/null
	stop_isod
}

one_accounting proc
# bpf last: start_bpf_isod skips (77) where BPF cannot load
one_accounting bpf
echo "PASS"
