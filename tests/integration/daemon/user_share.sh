#!/usr/bin/env bash
# Per-user share of the budget (issue 11, item 7). User nobody runs away
# (one ISO spinner per CPU); user daemon has one well-behaved ISO thread
# (10 % of one CPU).
# iso_cpu is 40 here, so that the runaway crosses it even when other RT
# work on a busy machine takes some of its CPU time.
#  A. user_cpu = 50 (a uid may hold 20 % of the CPUs with iso_cpu 40):
#     nobody's threads are demoted, daemon's thread never is, the machine
#     never goes refractory; status lists each uid's use.
#  B. user_cpu = 0 (the default, the patch's rule): the runaway makes
#     everyone refractory — daemon's thread is demoted too.
#  C. `isoctl tune user_cpu=N` (root only) turns shares on at run time.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
n=$(nproc)

# policy of a thread without forking (the machine is busy): field 41 of
# /proc/TID/stat, the 39th after "(comm) "; sets POLICY
policy_now() {
	local s f
	read -r s <"/proc/$1/stat" 2>/dev/null || return 1
	read -r -a f <<<"${s##*) }"
	POLICY=${f[38]}
}

# run_case USER_CPU: start isod and both users' threads; watch 8 s.
# Sets RUN_AWAY_DEMOTED, POLITE_DEMOTED (how often seen SCHED_OTHER),
# SAMPLES, REFRACTORY (seen in status).
run_case() {
	# the share rule alone: the burst guard (rule 18) would hold the
	# runaway whatever the shares say
	# iso_period 5, the shipped default: a uid's average then climbs
	# from its restore (18 %) to iso_cpu (40 %) in 1.6 s at the most,
	# which is how late isod may act (a stalled vCPU in the 6.1 guest
	# under TCG) before the machine goes refractory; with 2 s it was
	# 0.6 s, and CI saw it happen
	start_isod --iso-cpu 40 --user-cpu "$1" --iso-period 5 --burst-ms 0 --stall-ms 0 $( "$ISOD" --help | grep -q rate-limit && echo --rate-limit 0)
	# (files of the case's own: the shell truncates them in the background
	# children, after this one may have read the last case's lines)
	"${AS_NOBODY[@]}" "$SPIN" --threads "$n" --seconds 25 --iso fifo --prio 20 >"$ISO_TMP/run.$1.out" 2>&1 &
	ISO_CHILDREN+=($!); runaway=$!
	setpriv --reuid=daemon --regid=daemon --clear-groups -- \
		"$SPIN" --seconds 25 --duty 10 --iso fifo --prio 30 >"$ISO_TMP/pol.$1.out" 2>&1 &
	ISO_CHILDREN+=($!); polite=$!
	for _ in $(seq 100); do
		grep -q ready "$ISO_TMP/run.$1.out" && grep -q ready "$ISO_TMP/pol.$1.out" && break
		sleep 0.05
	done
	run_tids=$(awk '/^tid/{print $2}' "$ISO_TMP/run.$1.out")
	pol_tid=$(awk '/^tid/{print $2; exit}' "$ISO_TMP/pol.$1.out")
	[ -n "$run_tids" ] && [ -n "$pol_tid" ] || fail "spinners did not start: $(cat "$ISO_TMP/run.$1.out" "$ISO_TMP/pol.$1.out")"
	RUN_AWAY_DEMOTED=0 POLITE_DEMOTED=0 SAMPLES=0 REFRACTORY=0
	local end=$((SECONDS + 8)) i=0 t
	while [ "$SECONDS" -lt "$end" ]; do
		policy_now "$pol_tid" || fail "daemon's thread gone"
		[ "$POLICY" = 0 ] && POLITE_DEMOTED=$((POLITE_DEMOTED + 1))
		for t in $run_tids; do
			policy_now "$t" && [ "$POLICY" = 0 ] && RUN_AWAY_DEMOTED=$((RUN_AWAY_DEMOTED + 1))
		done
		SAMPLES=$((SAMPLES + 1))
		i=$((i + 1))
		if [ $((i % 20)) = 0 ] && "$ISOCTL" status | grep -q '^refractory: *yes'; then
			REFRACTORY=$((REFRACTORY + 1))
		fi
		sleep 0.01
	done
	"$ISOCTL" status >"$ISO_TMP/status.txt" 2>&1
	kill "$runaway" "$polite" 2>/dev/null
	wait "$runaway" "$polite" 2>/dev/null
	stop_isod
}

run_case 50
log "user_cpu 50: $SAMPLES samples; nobody's threads seen demoted $RUN_AWAY_DEMOTED times, daemon's $POLITE_DEMOTED; refractory seen $REFRACTORY"
sed 's/^/#   /' "$ISO_TMP/status.txt" >&2
# isod's own decisions, from its log (the polling above may be starved
# by the runaway on a busy machine; what it sees must agree)
grep -qE "user 65534: ISO CPU use .*above its share" "$ISO_TMP/isod.log" ||
	fail "user_cpu 50: nobody never went over its share"
! grep -qE "user 1: ISO CPU use .*above its share" "$ISO_TMP/isod.log" ||
	fail "user_cpu 50: daemon went over its share"
! grep -q "above iso_cpu, ISO threads demoted" "$ISO_TMP/isod.log" ||
	fail "user_cpu 50: the machine went refractory"
[ "$POLITE_DEMOTED" = 0 ] || fail "user_cpu 50: daemon's well-behaved thread was seen demoted ($POLITE_DEMOTED of $SAMPLES samples)"
[ "$REFRACTORY" = 0 ] || fail "user_cpu 50: status showed refractory"
grep -qE "^ *uid +65534 " "$ISO_TMP/status.txt" || fail "status does not list nobody's use"
grep -qE "^ *uid +1 " "$ISO_TMP/status.txt" || fail "status does not list daemon's use"
: >"$ISO_TMP/isod.log"

run_case 0
log "user_cpu 0: $SAMPLES samples; nobody's threads seen demoted $RUN_AWAY_DEMOTED times, daemon's $POLITE_DEMOTED; refractory seen $REFRACTORY"
# refractory demotes every ISO thread, daemon's included (the engine's
# rule, unit-tested); isod says when it happens
wait_log "above iso_cpu, ISO threads demoted" ||
	fail "user_cpu 0: the runaway never made the machine refractory: $(tail -5 "$ISO_TMP/isod.log")"
! grep -qE "above its share" "$ISO_TMP/isod.log" || fail "user_cpu 0: a user was demoted for its share"
if grep -qE "^ *uid +[0-9]+ " "$ISO_TMP/status.txt"; then
	fail "user_cpu 0: status lists per-user use"
fi

start_isod
as_nobody "$ISOCTL" tune user_cpu=50 >/dev/null 2>&1 && fail "nobody changed user_cpu"
"$ISOCTL" tune user_cpu=40 | grep -qx "user_cpu=40" || fail "isoctl tune user_cpu=40 failed"
"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); sys.exit(0 if s.get("user_cpu") == 40 and abs(s["user_share"] - 28.0) < 0.01 else 1)' ||
	fail "status after tune: $("$ISOCTL" status --json)"
"$ISOCTL" tune user_cpu=0 >/dev/null || fail "isoctl tune user_cpu=0 failed"
"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; sys.exit(1 if "user_cpu" in json.load(sys.stdin) else 0)' ||
	fail "shares still shown after user_cpu=0"
stop_isod
log "isoctl tune user_cpu: root only, on and off at run time"
echo PASS
