#!/usr/bin/env bash
# An ISO process that forks and spawns threads. RESET_ON_FORK starts every
# child as SCHED_OTHER; with inherit=yes (default) isod adopts them into ISO
# under the same budget, with inherit=no they stay SCHED_OTHER. Never is a
# child kernel RT without isod policing it.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
out=$ISO_TMP/spin.out

run_family() { # start an ISO parent whose child runs 3 threads; sets child, family
	as_nobody "$SPIN" --fork --threads 3 --seconds 3 --duty 10 --iso fifo --prio 40 >"$out" &
	family=$!
	ISO_CHILDREN+=($family)
	for _ in $(seq 100); do [ "$(grep -c '^tid' "$out")" = 3 ] && break; sleep 0.05; done
	sleep 0.3 # adoption is asynchronous (proc connector events)
	child=$(awk '/^child/{print $2}' "$out")
}

tracked() {
	"$ISOCTL" status --json | python3 -c 'import json,sys; print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"] if t["adopted"]))'
}

start_isod
run_family
[ -n "$child" ] || fail "no child"
adopted=$(tracked)
n=0
for t in /proc/"$child"/task/*; do
	tid=${t##*/}
	pol=$(kernel_sched "$tid" | cut -d' ' -f1)
	case " $adopted " in
	*" $tid "*) [ "$pol" = 1 ] || [ "$pol" = 0 ] || fail "adopted $tid has policy $pol"; n=$((n + 1));;
	*) [ "$pol" = 0 ] || fail "child thread $tid is RT (policy $pol) but not policed";;
	esac
done
# the forked child and its three threads
[ "$n" -ge 4 ] || fail "inherit=yes adopted $n of the child's threads, want 4 (adopted: $adopted)"
wait $family
stop_isod

start_isod --inherit no
run_family
for t in /proc/"$child"/task/*; do
	pol=$(kernel_sched "${t##*/}" | cut -d' ' -f1)
	[ "$pol" = 0 ] || fail "inherit=no: child thread ${t##*/} has policy $pol"
done
[ -z "$(tracked)" ] || fail "inherit=no adopted threads"
echo "PASS"
