#!/bin/bash
# The shim must start whatever allocator it is loaded with (issue 11,
# item 8). syscall_alloc.so calls syscall() from inside malloc until its
# first syscall() returned; a shim whose syscall() wrapper waits for an
# initialisation that itself allocates (dlsym's failure path) deadlocks
# at start-up. Each run is bounded: a hang is a timeout, i.e. a failure.
# No isod: the shim must also pass the real calls' errors through.
. "$(dirname "$0")/../lib.sh"
[ -n "${PRELOAD:-}" ] && [ -f "$PRELOAD" ] || skip "shim not built"
[ -n "${SYSCALL_ALLOC:-}" ] && [ -f "$SYSCALL_ALLOC" ] || skip "test allocator not built"
command -v timeout >/dev/null || skip "no timeout(1)"
export ISOSCHED_SOCKET="$ISO_TMP/no-isod.sock"

# run_bounded NAME PRELOADS CMD...: CMD must exit within 10 s.
run_bounded() {
	local name=$1 pre=$2 rc
	shift 2
	timeout -s KILL 10 env LD_PRELOAD="$pre" "$@" >"$ISO_TMP/out" 2>&1
	rc=$?
	[ $rc -eq 137 ] && fail "$name: hung at start-up (killed after 10 s)"
	return $rc
}

for order in "$SYSCALL_ALLOC $PRELOAD" "$PRELOAD $SYSCALL_ALLOC"; do
	for i in $(seq 10); do
		run_bounded "true [$order] #$i" "$order" /bin/true ||
			fail "true [$order] #$i: exit $?"
	done
	# A threaded program whose calls go through the shim's syscall()
	# (sched_setattr by number) and pthread wrappers: with no isod the
	# real call's EPERM comes back unchanged (the probe then exits 1).
	if [ -n "${SCHEDPROBE:-}" ] && [ -x "$SCHEDPROBE" ]; then
		for mode in attr set pattr; do
			run_bounded "schedprobe $mode [$order]" "$order" \
				setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
				"$SCHEDPROBE" "$mode" 1 10 0 || true # exits 1 when refused
			grep -qE '^rc=(-1 errno=1|1 errno=)' "$ISO_TMP/out" || {
				cat "$ISO_TMP/out" >&2
				fail "schedprobe $mode [$order]: the real EPERM did not come back"
			}
		done
	fi
	log "started 10 times with LD_PRELOAD=[$order]"
done
exit 0
