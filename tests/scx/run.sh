#!/usr/bin/env bash
# run.sh BUILDDIR [TEST,...] — boot the sched_ext test kernel under QEMU
# (TCG) with a busybox initramfs holding BUILDDIR's scx_iso, isod, isoctl
# and spin, run tests/scx/guest/tests/*.sh inside (or only the named ones)
# and report. Exit 0 all passed, 1 a failure, 77 skipped (no qemu, no
# kernel, or BUILDDIR built without -Dscx). Whole run bounded by
# SCX_QEMU_TIMEOUT seconds (default 420; a full run takes ~4 min).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILDDIR [TEST,...]}" && pwd)
only=${2:-}
kernel=${SCX_KERNEL:-/work/shared/kernels/bzImage-6.12-scx}
limit=${SCX_QEMU_TIMEOUT:-420}

skip() { echo "scx tests SKIPPED: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (scripts/install-deps.sh --scx)"
command -v busybox >/dev/null || skip "busybox-static not installed"
command -v cpio >/dev/null || skip "cpio not installed"
[ -r "$kernel" ] || skip "no test kernel at $kernel (SCX_KERNEL=...)"
bins=("$build/src/scx/scx_iso" "$build/src/daemon/isod" "$build/src/cli/isoctl"
      "$build/tests/integration/spin")
for b in "${bins[@]}"; do
	[ -x "$b" ] || skip "$b missing (configure with -Dscx=enabled -Dtests=enabled)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/t"
cp "$here/guest/lib.sh" "$work/t/"
cp -r "$here/guest/tests" "$work/t/tests"
bash "$here/mkinitramfs.sh" "$work/initrd.gz" "$here/guest/init" "${bins[@]}" "$work/t" ||
	{ echo "scx tests: cannot build the initramfs"; exit 1; }

append="console=ttyS0 panic=-1 quiet"
[ -n "$only" ] && append="$append scxtest=$only"
t0=$(date +%s)
# TCG only: KVM hangs on these machines (nested); -smp 2 for the per-CPU
# test. thread=single: with one host thread per vCPU (MTTCG) the kernel
# once died of a stale int3 in __schedule while sched_ext flipped its
# static keys on unload (text_poke_bp is not seen coherently by the other
# vCPU's translated code); one TCG thread for both vCPUs avoids that.
timeout -k 10 "$limit" qemu-system-x86_64 -accel tcg,thread=single -smp 2 -m 1G -nographic -no-reboot \
	-kernel "$kernel" -initrd "$work/initrd.gz" -append "$append" \
	</dev/null >"$work/console.log" 2>&1
qrc=$?
t1=$(date +%s)
tr -d '\r' <"$work/console.log" | grep -E '^(SCX|  [0-9a-z-]+\| )' | sed 's/^/    /'
if [ -n "${SCX_CONSOLE_LOG:-}" ]; then cp "$work/console.log" "$SCX_CONSOLE_LOG"; fi
pass=$(tr -d '\r' <"$work/console.log" | grep -c '^SCXTEST .* PASS$')
failn=$(tr -d '\r' <"$work/console.log" | grep -c '^SCXTEST .* FAIL')
skipn=$(tr -d '\r' <"$work/console.log" | grep -c '^SCXTEST .* SKIP$')
done_=$(tr -d '\r' <"$work/console.log" | grep -c '^SCXTEST-DONE')
echo "scx tests: $pass passed, $failn failed, $skipn skipped in $((t1 - t0)) s (qemu exit $qrc)"
if [ "$done_" = 0 ]; then
	echo "scx tests: the guest did not finish (timeout or panic); last console lines:"
	tail -n 30 "$work/console.log"
	exit 1
fi
[ "$failn" = 0 ] && [ "$pass" -gt 0 ] || exit 1
exit 0
