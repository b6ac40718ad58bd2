#!/usr/bin/env bash
# An ISO process that forks a child, which creates three threads.
# RESET_ON_FORK starts every newcomer as SCHED_OTHER. With inherit=yes
# (default) isod adopts the forked child into ISO under the same budget;
# the child's new threads are not adopted by isod (the proc connector
# cannot name a thread's creator) but with the preload shim they ask for
# their creator's ISO themselves. With inherit=no the child stays
# SCHED_OTHER. Never is any of them kernel RT without isod policing it.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
families=0
shim=$BUILD_ROOT/src/preload/libisosched-preload.so

run_family() { # [env...]: start an ISO parent whose child runs 3 threads; sets child, family
	# long-lived (ended by end_family): on a slow machine (the 6.1 guest
	# under TCG) the checks take longer than a short lifetime. A file of
	# its own: the shell truncates it in the background child, after this
	# one may have read the last family's lines
	families=$((families + 1))
	out=$ISO_TMP/spin.$families.out
	"${AS_NOBODY[@]}" env "$@" "$SPIN" --fork --threads 3 --seconds 30 --duty 10 --iso fifo --prio 40 >"$out" &
	family=$!
	ISO_CHILDREN+=($family)
	# the child says whether isod adopted it (spin.c waits for its policy
	# to leave SCHED_OTHER, 5 s at most) before it starts its threads,
	# which print their tids once they are set up
	wait_file_lines "$out" '^tid' 3 10 || fail "the child's threads did not start: $(cat "$out")"
	grep -q 'adopted' "$out" || fail "the child did not say whether it was adopted: $(cat "$out")"
	child=$(awk '/^child/{print $2}' "$out")
	[ -n "$child" ] || fail "no child"
}

end_family() { # the parent and the child, checked: ended now
	kill -KILL "$child" "$family" 2>/dev/null
	wait "$family" 2>/dev/null
}

tracked() { # [adopted]: tids isod tracks (only the adopted ones with an argument)
	"$ISOCTL" status --json | python3 -c '
import json, sys
print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]
               if len(sys.argv) < 2 or t["adopted"]))' "$@"
}

# check_child WANT_MAIN WANT_WORKERS: the child's main thread / its workers
# are tracked (ISO) or not; an untracked thread must be SCHED_OTHER.
check_child() {
	local known t tid pol main=0 workers=0
	known=$(tracked)
	for t in /proc/"$child"/task/*; do
		tid=${t##*/}
		pol=$(kernel_sched "$tid" | cut -d' ' -f1)
		# gone since the listing (the family ends after 3 s, and on a
		# loaded machine these checks take seconds): neither RT nor ours
		[ -n "$pol" ] || continue
		case " $known " in
		*" $tid "*)
			[ "$pol" = 1 ] || [ "$pol" = 0 ] || fail "tracked $tid has policy $pol"
			if [ "$tid" = "$child" ]; then main=1; else workers=$((workers + 1)); fi;;
		*) [ "$pol" = 0 ] || fail "child thread $tid is RT (policy $pol) but not policed";;
		esac
	done
	[ "$main" = "$1" ] || fail "child main thread tracked: $main, want $1"
	[ "$workers" = "$2" ] || fail "child workers tracked: $workers, want $2"
}

start_isod
run_family
check_child 1 0
case " $(tracked adopted) " in *" $child "*) ;; *) fail "child $child not flagged adopted";; esac
end_family

if [ -f "$shim" ] && ! ldd "$shim" 2>/dev/null | grep -q libasan; then
	run_family LD_PRELOAD="$shim"
	check_child 1 3
	end_family
else
	log "no preload shim usable here (not built, or built with ASan): thread inheritance not checked"
fi
stop_isod

start_isod --inherit no
run_family
check_child 0 0
[ -z "$(tracked adopted)" ] || fail "inherit=no adopted threads"
end_family
echo "PASS"
