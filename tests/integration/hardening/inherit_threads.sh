#!/usr/bin/env bash
# Inheritance under churn, as docs/semantics.md rule 14 now states it
# (since 7b3c2ee; FINDINGS 2 was the reason): with inherit=yes isod adopts
# child PROCESSES forked by an ISO thread, not new THREADS (for a thread
# the proc connector names the process's parent, not its creator). So:
#  - an ISO_RR spawner (nobody) creating 40 threads that live 1 s each:
#    none of them ever runs kernel RT, isod tracks only the spawner;
#  - the same spawner forking 20 children that live 1 s each: they are
#    adopted (tracked, kernel RR while alive);
#  - at no moment is any thread kernel RT without isod tracking it.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root
start_isod $(no_rate_limit)

# watch PID FILE: until FILE says "spawned", sample isod's table and the
# policies of PID's threads and children; sets maxt, bad
watch() {
	maxt=0 bad=
	while kill -0 "$1" 2>/dev/null && ! grep -q '^spawned' "$2"; do
		local n r
		n=$(tracked_total) && [ "$n" -gt "$maxt" ] && maxt=$n
		r=$(police_report $(ls /proc/"$1"/task 2>/dev/null) $(pgrep -P "$1"))
		case "$r" in *"rt_untracked 0 "*) ;; *) bad=$r;; esac
		sleep 0.2
	done
}

"${AS_NOBODY[@]}" "$HARDTOOL" churn thread 2 20 1000000 iso 1 >"$ISO_TMP/t" 2>&1 &
c=$!; ISO_CHILDREN+=($c)
watch "$c" "$ISO_TMP/t"
wait "$c"
log "threads: $(tail -1 "$ISO_TMP/t"); isod tracked at most $maxt"
[ -z "$bad" ] || fail "a thread ran kernel RT untracked: $bad"
grep -q 'spawned [1-9]' "$ISO_TMP/t" || fail "spawner did not run: $(cat "$ISO_TMP/t")"
grep -q 'spawner_rt 1' "$ISO_TMP/t" || fail "the spawner was not ISO"
grep -q 'rt_seen 0 ' "$ISO_TMP/t" || fail "a thread created by an ISO thread ran RT; isod adopts no threads: $(tail -1 "$ISO_TMP/t")"
[ "$maxt" -le 1 ] || fail "isod tracked $maxt threads; only the spawner is ISO"

"${AS_NOBODY[@]}" "$HARDTOOL" churn fork 2 10 1000000 iso 1 >"$ISO_TMP/f" 2>&1 &
c=$!; ISO_CHILDREN+=($c)
watch "$c" "$ISO_TMP/f"
wait "$c"
log "forks: $(tail -1 "$ISO_TMP/f"); isod tracked at most $maxt"
[ -z "$bad" ] || fail "a thread ran kernel RT untracked: $bad"
[ "$maxt" -gt 1 ] || fail "inherit=yes: no forked child of an ISO thread was adopted"
grep -q 'rt_seen [1-9]' "$ISO_TMP/f" || fail "inherit=yes: no forked child ever ran ISO: $(tail -1 "$ISO_TMP/f")"
assert_no_rt_left "$c"
echo "PASS"
