#!/usr/bin/env bash
# Scale: 1024 ISO threads in 64 processes (64 x spin --threads 16 as
# nobody, one 10 ms period at 1 % duty, then asleep), isod started with
# --max-threads-per-user 2048 (and no rate limit: 1024 requests at once
# are a legitimate burst here, not the subject). All 1024 are tracked and
# kernel RR. Then one runaway spinner among them, with its own limit of
# 10 %, is demoted (kernel SCHED_OTHER) while every one of the 1024 others
# keeps kernel RR and the system is not refractory. isod's CPU use and
# VmRSS at 1024 threads are reported as "# ..." lines. Bounded: < 60 s.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
use_tmpfs_state
start_isod --max-threads-per-user 2048 $(no_rate_limit) "${STATE_OPTS[@]}"
rss0=$(isod_rss_kb)
procs=()
t0=$(now_ms)
# in waves of 8 processes (128 requests at once, isod's connection limit):
# the subject is holding 1024 threads, not one burst of 1024 requests
for w in $(seq 0 7); do
	for j in $(seq 1 8); do
		i=$((w * 8 + j))
		"${AS_NOBODY[@]}" "$SPIN" --threads 16 --seconds 0.01 --duty 1 --idle-after 45 \
			--iso rr --prio $((1 + i % 90)) >"$ISO_TMP/s$i" 2>&1 &
		procs+=($!); ISO_CHILDREN+=($!)
	done
	for j in $(seq 1 8); do
		i=$((w * 8 + j))
		wait_lines "$ISO_TMP/s$i" '^ready' 1 300 || fail "process $i did not get its 16 threads: $(tail -2 "$ISO_TMP/s$i")"
	done
done
grep -l iso_set_thread "$ISO_TMP"/s* >/dev/null 2>&1 && fail "grants refused: $(grep -h iso_set_thread "$ISO_TMP"/s* | sort | uniq -c | head -3)"
log "1024 grants in $(($(now_ms) - t0)) ms"
tids=$(awk '/^tid/{print $2}' "$ISO_TMP"/s*)
[ "$(echo "$tids" | wc -w)" = 1024 ] || fail "want 1024 tids, got $(echo "$tids" | wc -w)"
[ "$(tracked_total)" = 1024 ] || fail "isod tracks $(tracked_total) threads, want 1024"
r=$(police_report $tids)
log "1024 threads: $r"
case "$r" in "rt_tracked 1024 "*) ;; *) fail "not all 1024 kernel RT and tracked: $r";; esac

# isod's cost with 1024 tracked threads, over 3 s
sleep 1
c0=$(isod_ticks) w0=$(now_ms)
sleep 3
c1=$(isod_ticks) w1=$(now_ms)
cpu=$(python3 -c "print(round(100.0 * ($c1 - $c0) / $(getconf CLK_TCK) / (($w1 - $w0) / 1000.0), 1))")
rss=$(isod_rss_kb)
log "isod with 1024 ISO threads: CPU $cpu % of one CPU, VmRSS $rss kB (was $rss0 kB with none), $(isod_fds) fds"
assert_serving "1024 threads"

# the runaway: one more ISO thread that spins, with its own limit of 10 %
"${AS_NOBODY[@]}" "$SPIN" --threads 1 --seconds 10 --duty 100 --limit 10 --iso rr --prio 20 \
	>"$ISO_TMP/runaway" 2>&1 &
rw=$!; ISO_CHILDREN+=($rw)
wait_lines "$ISO_TMP/runaway" '^ready' 1 || fail "runaway did not start: $(cat "$ISO_TMP/runaway")"
rtid=$(awk '/^tid/{print $2}' "$ISO_TMP/runaway")
demoted=0 checks=0
end=$(($(now_ms) + 9000))
while [ "$(now_ms)" -lt "$end" ]; do
	if [ "$(kernel_sched "$rtid" | cut -d' ' -f1)" = 0 ]; then
		demoted=$((demoted + 1))
		r=$(police_report $tids)
		checks=$((checks + 1))
		case "$r" in "rt_tracked 1024 "*) ;; *) fail "while the runaway is demoted, the others are not all RT: $r";; esac
		break
	fi
	sleep 0.1
done
[ "$demoted" -gt 0 ] || fail "the runaway (limit 10 %) was never demoted"
"$ISOCTL" status --json | python3 -c 'import json,sys; sys.exit(1 if json.load(sys.stdin)["refractory"] else 0)' ||
	fail "refractory: the runaway's demotion should not take the others down"
log "runaway $rtid demoted; all 1024 others kernel RR at $checks checks"
kill_bg "$rw"
assert_serving "runaway among 1024"
stop_isod
assert_no_rt_left "${procs[@]}" "$rw"
echo "PASS"
