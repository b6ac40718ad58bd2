#!/usr/bin/env bash
# Every wrapped call as nobody with the shim: sched_setscheduler (FIFO, RR,
# policy 4), sched_setattr through syscall(), pthread_setschedparam and
# pthread_create with explicit SCHED_FIFO/RR attributes get ISO; the
# program's getters show what it asked for; sched_get_priority_*(4).
# Policy 4 at priority 0 (the -ck/MuQSS/PDS form gamemode uses) is ISO_RR
# at priority 1, the bottom of the band, and the getters show 4 and 0.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
start_isod
read_band
# mode policy prio -> expected kernel policy
for spec in "set 1 30 1" "set 2 30 2" "set 4 30 2" "attr 1 35 1" "attr 2 35 2" \
	"pset 1 40 1" "pset 2 40 2" "pattr 1 45 1" "pattr 2 45 2" "set 4 0 2" "attr 4 0 2" \
	"pset 4 0 2"; do
	read -r mode pol prio kpol <<<"$spec"
	out=$ISO_TMP/$mode-$pol.out
	with_shim "$SCHEDPROBE" "$mode" "$pol" "$prio" 2 >"$out" 2>&1 &
	p=$!
	ISO_CHILDREN+=($p)
	wait_line "$out" '^tid='
	[ "$(field "$out" rc)" = 0 ] || fail "$mode $pol $prio: rc $(field "$out" rc)"
	tid=$(field "$out" tid)
	expect_kernel "$tid" "$kpol"
	isod_tracks "$tid" || fail "$mode $pol $prio: isod does not list $tid"
	if [ "$prio" = 0 ]; then
		[ "$(kernel_sched "$tid" | cut -d' ' -f2)" = "$BAND_LO" ] ||
			fail "$mode 4 0: kernel '$(kernel_sched "$tid")', not the band's bottom $BAND_LO"
	fi
	shown=$pol
	# pthread_getschedparam cannot express policy 4: it is the same call
	[ "$(field "$out" getscheduler)" = "$shown" ] || fail "$mode $pol $prio: getscheduler $(field "$out" getscheduler)"
	[ "$(field "$out" getparam)" = "$prio" ] || fail "$mode $pol $prio: getparam $(field "$out" getparam)"
	[ "$(field "$out" pthread_policy)" = "$shown" ] || fail "$mode $pol $prio: pthread_policy $(field "$out" pthread_policy)"
	[ "$(field "$out" pthread_prio)" = "$prio" ] || fail "$mode $pol $prio: pthread_prio $(field "$out" pthread_prio)"
	wait "$p" || { cat "$out" >&2; fail "$mode $pol $prio: exit status"; }
	log "$mode $pol $prio: ok"
done
r=$(with_shim "$SCHEDPROBE" range 4)
[ "$r" = "min=1 max=99" ] || fail "priority range of policy 4: $r"
r=$(with_shim "$SCHEDPROBE" range 1)
[ "$r" = "min=1 max=99" ] || fail "priority range of policy 1: $r"
echo PASS
