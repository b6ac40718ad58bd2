#!/usr/bin/env bash
# rootfs.sh CACHEDIR — print the path of a Debian 12 (bookworm) minbase root
# filesystem with systemd, building it with debootstrap the first time
# (~3 min, ~250 MB) and reusing it afterwards. The cached tree is never
# changed: run.sh copies it before installing anything. The cache key is
# the package list, so changing it builds a fresh tree.
# Exit 0 (path on stdout), 1 on failure, 77 where debootstrap cannot run.
set -euo pipefail
cache=${1:?usage: rootfs.sh CACHEDIR}
suite=bookworm
# What the guest needs besides minbase: systemd as PID 1, the .debs'
# run-time dependencies (libinih1, libbpf1), and the tools the guest test uses
# (chrt and setpriv are util-linux; pgrep procps; man-db, for
# systemd-analyze verify checks the unit's Documentation=man:... pages).
include=systemd,systemd-sysv,dbus,udev,util-linux,procps,libinih1,libbpf1,man-db
mirror=${ISOSCHED_MIRROR:-}
if [ -z "$mirror" ]; then
	# the machine's own mirror (deb822 or one-line sources), else Debian's
	mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p; s/^deb  *\(\[[^]]*\] *\)\?\([^ ]*\) .*/\2/p' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		grep -v security | head -n1 || true)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

skip() { echo "rootfs.sh: SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "debootstrap needs root"
command -v debootstrap >/dev/null || skip "debootstrap not installed (scripts/install-deps.sh)"

key=$(printf '%s %s\n' "$suite" "$include" | sha256sum | cut -c1-12)
dir=$cache/rootfs-$suite-$key
if [ -f "$dir/.isosched-complete" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
tmp=$dir.partial
rm -rf "$tmp"
echo "rootfs.sh: debootstrap $suite from $mirror into $tmp (first run, ~3 min)" >&2
if ! debootstrap --variant=minbase --include="$include" "$suite" "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1; then
	tail -n 20 "$cache/debootstrap.log" >&2
	echo "rootfs.sh: debootstrap failed (log: $cache/debootstrap.log)" >&2
	rm -rf "$tmp"
	exit 1
fi
chroot "$tmp" apt-get clean
rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/*.bin
touch "$tmp/.isosched-complete"
rm -rf "$dir"
mv "$tmp" "$dir"
# trees of an older package list are not needed any more
for old in "$cache"/rootfs-"$suite"-*; do
	[ "$old" = "$dir" ] || rm -rf "$old"
done
echo "$dir"
