#!/usr/bin/env bash
# Side by side with the real rtkit (docs/rtkit.md, README): the same
# unprivileged client against Debian's rtkit-daemon and against isod
# --rtkit, each on a private bus, and a markdown table of what happened.
# Needs RTKIT_DAEMON: an rtkit-daemon binary, e.g. from
#   apt-get download rtkit && dpkg -x rtkit_*.deb DIR
#   RTKIT_DAEMON=DIR/usr/libexec/rtkit-daemon meson test -C build rtkit-compare
# (not installed: nothing of the machine's is used). Its polkit is the
# stand-in fake_polkit allowing rtkit's actions to everyone, so rtkit's
# latency here lacks polkitd's own cost (about 1.3 ms per check, measured
# once on this VM). Skips without RTKIT_DAEMON. Prints the table; passes
# when both sides answered.
source "$SRC_ROOT/tests/integration/rtkit/rtklib.sh"
: "${FAKE_POLKIT:?FAKE_POLKIT not set}"
[ -x "${RTKIT_DAEMON:-}" ] || skip "RTKIT_DAEMON (an rtkit-daemon binary) not given"
N=${COMPARE_CALLS:-1000}
start_bus
bg "$FAKE_POLKIT" 'org.freedesktop.RealtimeKit1.acquire-real-time:*' \
	'org.freedesktop.RealtimeKit1.acquire-high-priority:*' >"$ISO_TMP/pk.out" 2>&1
for _ in $(seq 100); do grep -q ready "$ISO_TMP/pk.out" && break; sleep 0.05; done

declare -A R
# measure SIDE [client options for a grant]: fills R[SIDE,*]
measure() {
	local side=$1 rtt=$2 out t0 rc
	out=$ISO_TMP/$side
	# latency of N grants of one thread (rtkit: request limit lifted)
	rtclient "$out.lat" --method rtpid --prio 10 $rtt --count "$N" --latency
	R[$side,lat]=$(sed -n 's/^latency p50 \([0-9]*\) p99 \([0-9]*\).*/\1 µs \/ \2 µs/p' "$out.lat")
	[ -n "${R[$side,lat]}" ] || R[$side,lat]="failed: $(field "$out.lat" result)"
	# no RLIMIT_RTTIME
	rtclient "$out.nortt" --method rtpid --prio 10
	R[$side,nortt]=$(field "$out.nortt" result)
	# a runaway: spins 3 s after its grant
	t0=$(date +%s.%N)
	rtclient "$out.spin" --method rtpid --prio 10 $rtt --spin 3
	rc=$?
	if [ "$rc" = 137 ] || [ "$rc" = 152 ]; then
		R[$side,spin]="killed by the kernel (status $rc) $(python3 -c "print(round(($(date +%s.%N) - $t0) * 1000))") ms after start"
	else
		R[$side,spin]="$(field "$out.spin" result), $(grep -c '^spun' "$out.spin") of 1 finished its 3 s ($(field "$out.spin" spun) s), exit $rc"
	fi
	# the 26th thread of a user
	rtclient "$out.thr" --method rtpid --prio 10 $rtt --threads 30
	R[$side,thr]="$(field "$out.thr" granted) granted; then: $(field "$out.thr" result)"
	# a caller in its own user and PID namespace
	as_nobody unshare -Urpf "$RTKIT_CLIENT" --method rtpid --prio 10 $rtt >"$out.ns" 2>&1
	R[$side,ns]="$(field "$out.ns" result) (kernel: $(field "$out.ns" sched))"
}

# --- rtkit: as Debian runs it, but privileges kept (no rtkit user here) --
# (its stderr must be a pipe: it sets RLIMIT_FSIZE 0 on itself)
"$RTKIT_DAEMON" --stderr --no-drop-privileges --no-chroot --actions-per-burst-max=1000000 \
	2> >(cat >"$ISO_TMP/rtkit.log") &
rtkit_pid=$!
ISO_CHILDREN+=($rtkit_pid)
wait_rtkit
measure rtkit "--rttime 200000"
kill -TERM "$rtkit_pid"
wait "$rtkit_pid" 2>/dev/null

# --- isod --rtkit (rate limit off for the latency run, like rtkit's) ------
start_rtkit_isod --rate-limit 0
measure isod ""

printf '\n| %s | rtkit 0.13 | isod --rtkit |\n|---|---|---|\n' "$N requests, $(nproc) CPUs"
printf '| MakeThreadRealtimeWithPID latency p50 / p99 | %s | %s |\n' "${R[rtkit,lat]}" "${R[isod,lat]}"
printf '| client without RLIMIT_RTTIME | %s | %s |\n' "${R[rtkit,nortt]}" "${R[isod,nortt]}"
printf '| a thread spinning 3 s (rtkit: RLIMIT_RTTIME 200 ms as it requires) | %s | %s |\n' "${R[rtkit,spin]}" "${R[isod,spin]}"
printf '| 30 threads of one user | %s | %s |\n' "${R[rtkit,thr]}" "${R[isod,thr]}"
printf '| caller in unshare -Urpf | %s | %s |\n' "${R[rtkit,ns]}" "${R[isod,ns]}"
case "${R[isod,lat]}" in failed*) fail "isod did not answer";; esac
case "${R[rtkit,lat]}" in failed*) fail "rtkit did not answer: $(cat "$ISO_TMP/rtkit.log")";; esac
echo PASS
