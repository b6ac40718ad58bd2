#!/usr/bin/env bash
# A lost state file must not leave grants unpoliced: isod, restarted after
# SIGKILL with its state file gone, demotes the band threads of users that
# look like its lost grants — and leaves alone root's RT threads and a
# user's own RT thread allowed by RLIMIT_RTPRIO. Runs in a band of its own
# (50..60) so the sweep cannot touch other tests' threads.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
out=$ISO_TMP/spin.out
band=(--band 50:60 --sweep-orphans yes)

start_isod "${band[@]}"
# (30 s, ended with the test: the restarts below take long on a slow
# machine such as the 6.1 guest under TCG)
"${AS_NOBODY[@]}" "$SPIN" --threads 3 --seconds 30 --duty 10 --iso fifo --prio 30 >"$out" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tids=$(awk '/^tid/{print $2}' "$out")
[ -n "$tids" ] || fail "spinner did not start"
for t in $tids; do
	set -- $(kernel_sched "$t")
	[ "$1" = 1 ] && [ "$2" -ge 50 ] && [ "$2" -le 60 ] || fail "thread $t not FIFO in 50..60: $*"
done

# bystanders in the same band: root's own, and nobody's own under RLIMIT_RTPRIO
chrt -f -R 55 sleep 31 & ISO_CHILDREN+=($!); rootrt=$!
# chrt execs sleep once the policy is set
wait_exec "$rootrt" sleep || fail "root's RT bystander did not start"
ownrt=
if prlimit --rtprio=99 true 2>/dev/null; then
	prlimit --rtprio=99 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		chrt -f -R 56 sleep 31 & ISO_CHILDREN+=($!)
	# prlimit, setpriv and chrt exec one another in this process:
	# chrt execs sleep once the policy is set
	ownrt=$!
	wait_exec "$ownrt" sleep || fail "no own-RT bystander"
	[ "$(kernel_sched "$ownrt" | cut -d' ' -f1)" = 1 ] || fail "bystander did not get FIFO"
else
	log "no CAP_SYS_RESOURCE here: the RLIMIT_RTPRIO bystander is left to the unit test"
fi

kill -KILL "$ISOD_PID"; wait "$ISOD_PID" 2>/dev/null; ISOD_PID=
for t in $tids; do [ "$(kernel_sched "$t" | cut -d' ' -f1)" = 1 ] || fail "thread $t lost FIFO with isod"; done
rm -f "$ISO_TMP/isod.state"
start_isod "${band[@]}"
for t in $tids; do
	[ "$(kernel_sched "$t" | cut -d' ' -f1)" = 0 ] || fail "orphaned thread $t still RT after restart"
done
grep -q "stray: .*no isod record: demoted" "$ISO_TMP/isod.log" || fail "sweep not logged"
[ "$(kernel_sched "$rootrt" | cut -d' ' -f1)" = 1 ] || fail "root's own RT thread was demoted"
[ -z "$ownrt" ] || [ "$(kernel_sched "$ownrt" | cut -d' ' -f1)" = 1 ] || fail "RLIMIT_RTPRIO thread was demoted"

# a clean exit demotes but keeps the record (so systemctl restart grants
# again): the next start re-grants that thread and sweeps nothing
first=$(echo $tids | cut -d' ' -f1)
as_nobody "$ISOCTL" set --fifo -p 30 "$first" >/dev/null || fail "re-grant"
stop_isod
[ "$(kernel_sched "$first" | cut -d' ' -f1)" = 0 ] || fail "clean exit left thread $first RT"
grep -q '^#' "$ISO_TMP/isod.state" || fail "clean exit left no state record"
[ "$(grep -vc '^#' "$ISO_TMP/isod.state")" = 1 ] || fail "clean exit did not keep the one grant's record"
start_isod "${band[@]}"
[ "$(kernel_sched "$first" | cut -d' ' -f1)" = 1 ] || fail "restart did not grant thread $first again"
grep -c "stray: .*no isod record" "$ISO_TMP/isod.log" | grep -qx 3 || fail "second start swept again: $(grep "no isod record" "$ISO_TMP/isod.log")"
stop_isod
echo "PASS"
