#!/usr/bin/env bash
# mkinitramfs.sh OUT.cpio.gz INIT [FILE|DIR...] — a busybox initramfs for
# the scx tests: busybox-static as /bin/*, INIT as /init, every FILE
# (binaries, scripts) under /t/ with the shared libraries ldd lists for it,
# every DIR copied whole into /t/.
set -euo pipefail
out=$1 init=$2
shift 2
bb=$(command -v busybox)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,t,etc,lib64,usr/lib,sys/fs/bpf}
cp "$bb" "$root/bin/busybox"
for a in $("$bb" --list | grep -vx busybox); do
	ln -sf busybox "$root/bin/$a"
done
# /init prints nothing without a console
mknod "$root/dev/console" c 5 1
mknod "$root/dev/null" c 1 3
cp "$init" "$root/init"
chmod 755 "$root/init"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
for f in "$@"; do
	if [ -d "$f" ]; then
		cp -rL "$f/." "$root/t/"
		continue
	fi
	cp -L "$f" "$root/t/"
	# the loader (glibc's ld.so) and each library at the path ldd prints
	ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -Ln "$lib" "$root$lib"
		# also where ld.so looks by default: the binaries moved to /t, so
		# a build-tree rpath ($ORIGIN/...) no longer finds the project's libs
		mkdir -p "$root/lib/x86_64-linux-gnu"
		cp -Ln "$lib" "$root/lib/x86_64-linux-gnu/"
	done
done
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
