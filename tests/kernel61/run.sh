#!/usr/bin/env bash
# run.sh BUILDDIR — run isod's daemon suite (and the escape suite, if
# BUILDDIR has one) on Debian 12's kernel series (6.1: no PIDFD_THREAD, no
# sched_ext, no fair server) in QEMU (TCG). The guest's root is a small
# initramfs (busybox for the mounts, guest/init); the host's /usr and /etc
# are shared read-only over 9p, the source tree read-only and BUILDDIR
# read-write, each at its host path, so the guest runs the host's bash,
# python3, meson, setpriv, chrt... on the host's build. Not the 'timing'
# suite: CPU-share figures mean nothing under TCG.
#
# Prints the guest's meson output (its Ok:/Fail:/Timeout: summary lines
# are what tests/run-all.sh counts). Exit 0 all passed, 1 a failure or the
# guest did not finish, 77 skipped (no qemu, busybox, cpio or kernel).
#
# Environment:
#   ISOSCHED_KERNEL61           the kernel (default ../shared/kernels/bzImage-6.1-debian
#                               beside the repository)
#   ISOSCHED_KERNEL61_TIMEOUT   bound on the whole QEMU run in seconds (default 1080)
#   ISOSCHED_KERNEL61_MULTIPLIER  meson --timeout-multiplier in the guest (default 3)
#   ISOSCHED_KERNEL61_ACCEL     QEMU -accel (default tcg,thread=single; never kvm here)
#   ISOSCHED_KERNEL61_APPEND    more kernel parameters (e.g. tsc=reliable)
#   ISOSCHED_KERNEL61_SUITES    suites to run (default: daemon, and escape if present)
#   ISOSCHED_KERNEL61_TESTS     tests to run by name instead (e.g. hardening-ns_flood)
#   ISOSCHED_KERNEL61_CONSOLE   also copy the guest's console log to this file
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILDDIR}" && pwd) || exit 1
kernel=${ISOSCHED_KERNEL61:-$(realpath -m "$repo/../shared/kernels/bzImage-6.1-debian")}
limit=${ISOSCHED_KERNEL61_TIMEOUT:-1080}
multiplier=${ISOSCHED_KERNEL61_MULTIPLIER:-3}
accel=${ISOSCHED_KERNEL61_ACCEL:-tcg,thread=single}

skip() { echo "kernel61 tests SKIPPED: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (scripts/install-deps.sh --scx)"
command -v busybox >/dev/null || skip "busybox-static not installed (scripts/install-deps.sh --scx)"
command -v cpio >/dev/null || skip "cpio not installed (scripts/install-deps.sh --scx)"
[ -r "$kernel" ] || skip "no 6.1 kernel at $kernel (ISOSCHED_KERNEL61=...)"
[ -x "$build/src/daemon/isod" ] || { echo "kernel61 tests: $build has no isod (configure with -Dtests=enabled and build first)"; exit 1; }

# the build's source tree and suites, as meson recorded them
info=$(meson introspect --tests "$build" | /usr/bin/python3 -c '
import json, sys
tests = json.load(sys.stdin)
src = next((t["env"].get("SRC_ROOT") for t in tests if "SRC_ROOT" in t["env"]), "")
suites = {s.split(":")[-1] for t in tests for s in t["suite"]}
print(src)
print(" ".join(sorted(suites)))
') || { echo "kernel61 tests: meson introspect --tests $build failed"; exit 1; }
src=$(sed -n 1p <<<"$info")
have=" $(sed -n 2p <<<"$info") "
[ -n "$src" ] && [ -d "$src" ] || { echo "kernel61 tests: no SRC_ROOT in $build's tests (no integration tests?)"; exit 1; }
if [ -n "${ISOSCHED_KERNEL61_SUITES:-}" ]; then
	suites=$ISOSCHED_KERNEL61_SUITES
else
	suites=daemon
	[[ $have == *" escape "* ]] && suites="$suites escape"
fi
[[ $have == *" daemon "* ]] || { echo "kernel61 tests: $build has no daemon suite"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root" "$work/out"

# the initramfs: busybox (for the mounts), /init, the mount points, and
# the host's top-level links into /usr; a top-level directory that is
# not a link is shared read-only as it is
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
extra=
shares=()
virtfs() { # virtfs TAG PATH ro|rw
	local o="local,path=$2,mount_tag=$1,security_model=none"
	[ "$3" = ro ] && o="$o,readonly=on"
	shares+=(-virtfs "$o")
}
(
	cd "$work/root" || exit 1
	mkdir -p proc sys dev tmp run out usr etc root
	for d in bin sbin lib lib32 lib64 libx32; do
		if [ -L "/$d" ]; then
			ln -s "$(readlink "/$d")" "$d"
		fi
	done
	cp "$(command -v busybox)" busybox
	cp "$here/guest/init" init
	chmod 755 init
	mknod dev/console c 5 1
	find . | cpio -o -H newc --quiet | gzip -1 >"$work/initrd.gz"
) || { echo "kernel61 tests: cannot build the initramfs"; exit 1; }
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -d "/$d" ] && [ ! -L "/$d" ]; then
		extra="$extra $d"
		virtfs "$d" "/$d" ro
	fi
done
virtfs out "$work/out" rw
virtfs usr /usr ro
virtfs etc /etc ro
virtfs src "$src" ro
virtfs build "$build" rw
{
	echo "K61_SRC=$(quote "$src")"
	echo "K61_BUILD=$(quote "$build")"
	echo "K61_SUITES=$(quote "$suites")"
	echo "K61_TESTS=$(quote "${ISOSCHED_KERNEL61_TESTS:-}")"
	echo "K61_MULTIPLIER=$(quote "$multiplier")"
	echo "K61_EXTRA_SHARES=$(quote "${extra# }")"
} >"$work/out/env"

echo "kernel61: $kernel, -accel $accel, ${ISOSCHED_KERNEL61_TESTS:+tests: $ISOSCHED_KERNEL61_TESTS, not }suites: $suites (not timing), timeout multiplier $multiplier, bound ${limit}s"
t0=$(date +%s)
# TCG only: KVM hangs on these machines (nested). thread=single (one host
# thread for both vCPUs) by default, as tests/scx/run.sh: with one host
# thread per vCPU a kernel once died of a stale int3 while static keys
# were patched. Not -icount (a guest clock that follows the instructions
# run, whatever the host's load): the second vCPU never comes up with it.
timeout -k 10 "$limit" qemu-system-x86_64 -accel "$accel" -smp 2 -m 2G \
	-nographic -no-reboot -kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet ${ISOSCHED_KERNEL61_APPEND:-}" "${shares[@]}" \
	</dev/null >"$work/console.log" 2>&1
qrc=$?
t1=$(date +%s)
[ -n "${ISOSCHED_KERNEL61_CONSOLE:-}" ] && cp "$work/console.log" "$ISOSCHED_KERNEL61_CONSOLE"

tr -d '\r' <"$work/console.log" | grep '^K61 ' | sed 's/^/    /'
[ -f "$work/out/meson.out" ] && cat "$work/out/meson.out"
uname_r=$(tr -d '\r' <"$work/console.log" | sed -n 's/^K61 uname: //p')
status=$(cat "$work/out/status" 2>/dev/null)
echo "kernel61 tests: guest kernel ${uname_r:-unknown}, meson exit ${status:-none}, $((t1 - t0)) s (qemu exit $qrc)"
if [ -z "$status" ]; then
	echo "kernel61 tests: the guest did not finish (timeout or panic); last console lines:"
	tr -d '\r' <"$work/console.log" | tail -n 40
	exit 1
fi
case $uname_r in
6.1.*) ;;
*) echo "kernel61 tests: the guest ran kernel '$uname_r', not 6.1"; exit 1;;
esac
[ "$status" = 0 ] || exit 1
exit 0
