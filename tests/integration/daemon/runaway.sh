#!/usr/bin/env bash
# A runaway: as many unprivileged ISO spinners as CPUs for ~12 s. isod
# demotes them (status shows refractory), a SCHED_OTHER competitor makes
# progress, nothing is killed, and once the spinners stop spinning (they
# block) they are ISO again.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
# the patch's budget alone: the burst guard and the stall cap (issue 17,
# tests burst*.sh) would act first
start_isod --burst-ms 0 --stall-ms 0
n=$(nproc)
out=$ISO_TMP/spin.out
# at nice 3: a demotion keeps the nice level the threads had (checked below)
"${AS_NOBODY[@]}" nice -n 3 "$SPIN" --threads "$n" --seconds 12 --idle-after 20 --iso fifo --prio 30 >"$out" &
spinners=$!
ISO_CHILDREN+=($spinners)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
# the competitor: plain SCHED_OTHER, same user, same window
"${AS_NOBODY[@]}" "$SPIN" --seconds 12 >"$ISO_TMP/comp.out" &
comp=$!
ISO_CHILDREN+=($comp)

# The poller runs SCHED_FIFO 45, above the default band and the enforcer (41) (root, tiny
# work): as SCHED_OTHER it competed with the demoted spinners for the
# ~0.5 s each refractory spell lasts and, on a loaded machine, missed them.
t0=$(date +%s.%N)
chrt -f 45 bash -c '
	end=$((${EPOCHREALTIME/./} + 11500000))
	while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		if "$1" status | grep -q "^refractory: *yes"; then
			echo "${EPOCHREALTIME}"
			for t in $2; do # policy and nice of each demoted spinner
				s=$(sed "s/.*) //" "/proc/$t/stat" 2>/dev/null) &&
					awk -v t="$t" "{print t, \$39, \$17}" <<<"$s" >>"$3"
			done
		fi
		sleep 0.1
	done' poller "$ISOCTL" "$(awk '/^tid/{print $2}' "$out")" "$ISO_TMP/nice.out" >"$ISO_TMP/refractory.out"
refractory=$(wc -l <"$ISO_TMP/refractory.out")
t_first=
[ "$refractory" -gt 0 ] && t_first=$(python3 -c "print($(head -n1 "$ISO_TMP/refractory.out") - $t0)")
[ "$refractory" -gt 0 ] || { tail -40 "$ISO_TMP/isod.log" >&2; fail "status never showed refractory"; }
wait $comp || fail "competitor failed"
comp_cpu=$(awk '/^cpu/{print $3}' "$ISO_TMP/comp.out")
# Its share of one CPU after the first demotion is logged, not asserted:
# on a shared machine it depends on everything else running (the budget
# leaves the competitor at least (100 - iso_cpu) - 10 points = 20 % of one
# CPU against the spinners alone; isobench --enforcement measures it side
# by side). The test asserts what isod decides: it made progress at all.
share=$(python3 -c "print(round(100*$comp_cpu/(12-$t_first),1))")
log "first demotion seen after $t_first s; competitor got $comp_cpu s of CPU, $share % of one CPU after it"
python3 -c "import sys; sys.exit(0 if $comp_cpu > 0 else 1)" || fail "competitor starved: no CPU at all"

# a demoted spinner (SCHED_OTHER, policy 0) is at the nice 3 it had
awk '$2 == 0 && $3 != 3 { bad = bad " " $1 "@nice" $3 } END { if (bad) { print bad; exit 1 } }' \
	"$ISO_TMP/nice.out" || fail "a demoted spinner lost its nice level 3:$(awk '$2 == 0 && $3 != 3' "$ISO_TMP/nice.out" | head -3)"
grep -q ' 0 3$' "$ISO_TMP/nice.out" || fail "no spinner was seen demoted (SCHED_OTHER) at nice 3: $(head -3 "$ISO_TMP/nice.out")"

# Spinners now block (idle-after): below 90 % of iso_cpu they regain ISO.
for tid in $(awk '/^tid/{print $2}' "$out"); do
	pol=
	for _ in $(seq 190); do # the spinners stay alive, blocked, for 20 s (room on a loaded machine)
		pol=$(kernel_sched "$tid" | cut -d' ' -f1)
		[ "$pol" = 1 ] && break
		sleep 0.1
	done
	[ "$pol" = 1 ] || fail "spinner $tid did not regain SCHED_FIFO (policy $pol)"
done
wait $spinners || fail "a spinner was killed or failed"
[ "$(grep -c '^cpu' "$out")" = "$n" ] || fail "not every spinner finished its work"
echo "PASS"
