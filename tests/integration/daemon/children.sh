#!/usr/bin/env bash
# An ISO process that forks and spawns threads: thanks to RESET_ON_FORK no
# child or new thread is ever kernel RT without isod tracking it.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod
out=$ISO_TMP/spin.out
as_nobody "$SPIN" --fork --threads 3 --seconds 2 --duty 10 --iso fifo --prio 40 >"$out" &
sp=$!
ISO_CHILDREN+=($sp)
for _ in $(seq 100); do [ "$(grep -c '^tid' "$out")" = 3 ] && break; sleep 0.05; done
child=$(awk '/^child/{print $2}' "$out")
[ -n "$child" ] || fail "no child"
tracked=$("$ISOCTL" status --json | python3 -c 'import json,sys; print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]))')
for t in /proc/"$child"/task/*; do
	tid=${t##*/}
	pol=$(kernel_sched "$tid" | cut -d' ' -f1)
	case "$pol" in
	1|2) case " $tracked " in *" $tid "*) ;; *) fail "child thread $tid is RT but not policed";; esac;;
	esac
done
wait $sp
echo "PASS"
