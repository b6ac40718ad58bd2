#!/usr/bin/env bash
# The main demo: start isod on a private socket, run an unprivileged
# program under ISO, show its state as isod and the kernel see it, stop.
# Usage (as root): bash scripts/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
isod=$build/src/daemon/isod
isoctl=$build/src/cli/isoctl
[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (isod needs CAP_SYS_NICE)" >&2; exit 1; }
[ -x "$isod" ] && [ -x "$isoctl" ] || { echo "demo.sh: build first (meson setup $build && ninja -C $build)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isodemo.XXXXXX)
chmod 755 "$tmp"
export ISOSCHED_SOCKET=$tmp/isod.sock
"$isod" --socket "$ISOSCHED_SOCKET" --state-file "$tmp/state" 2>"$tmp/isod.log" &
isod_pid=$!
trap 'kill $isod_pid 2>/dev/null; wait $isod_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do "$isoctl" status >/dev/null 2>&1 && break; sleep 0.1; done

echo "== user nobody asks for ISO_FIFO priority 50 and runs a 3-second workload"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"$isoctl" run --fifo -p 50 -- timeout 3 sh -c 'while :; do :; done' &
work=$!
sleep 1
echo "== isoctl status"
"$isoctl" status
for tid in $("$isoctl" status --json | python3 -c 'import json,sys; print(" ".join(str(t["tid"]) for t in json.load(sys.stdin)["threads"]))'); do
	echo "== the kernel's view of thread $tid (chrt -p)"
	chrt -p "$tid"
done
wait $work || true
echo "== isod's log"
cat "$tmp/isod.log"
