#!/usr/bin/env bash
# build-scx-deps.sh OUTDIR — prepare what the scx_iso BPF scheduler is
# built with, from Debian packages only (linux-source-6.12, clang-19):
#   OUTDIR/src/           tools/ and the few kernel files libbpf/bpftool need
#   OUTDIR/libbpf/        static libbpf.a + its headers (include/bpf/*.h)
#   OUTDIR/bpftool        the tree's bootstrap bpftool (gen skeleton, btf dump)
#   OUTDIR/include/vmlinux.h   the test kernel's BTF as C (matches bzImage-6.12-scx)
#   OUTDIR/include/scx/   the tree's tools/sched_ext/include/scx headers (6.12 API)
# Idempotent: every step is skipped when its output exists, so a second run
# takes well under a second. Exits 77 (meson's "skip") when a package is missing.
set -euo pipefail
out=${1:?usage: build-scx-deps.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# the shared/ folder beside the repository (as CI lays it out)
vmlinux_xz=${SCX_VMLINUX_H_XZ:-$(realpath -m "$(dirname "$0")/../../shared/kernels/vmlinux-6.12-scx.h.xz")}
clang=${BPF_CLANG:-clang-19}

missing=
[ -r "$tarball" ] || missing="$missing linux-source-6.12"
command -v "$clang" >/dev/null || missing="$missing clang-19"
command -v xz >/dev/null || missing="$missing xz-utils"
[ -r "$vmlinux_xz" ] || missing="$missing $vmlinux_xz"
if [ -n "$missing" ]; then
	echo "build-scx-deps.sh: missing:$missing (scripts/install-deps.sh --scx installs the packages)" >&2
	exit 77
fi

src=$out/src
top=linux-source-6.12
if [ ! -e "$src/.extracted" ]; then
	echo "build-scx-deps.sh: extracting tools/ from $tarball" >&2
	rm -rf "$src"
	mkdir -p "$src"
	# only what libbpf, bpftool and the scx headers need: the tarball is 150 MB
	tar -xf "$tarball" -C "$src" --strip-components=1 \
		"$top/tools" "$top/kernel/bpf" "$top/include/uapi" "$top/include/linux" \
		"$top/scripts" "$top/arch/x86/include" "$top/Makefile"
	touch "$src/.extracted"
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -e "$out/libbpf/libbpf.a" ]; then
	echo "build-scx-deps.sh: building libbpf" >&2
	mkdir -p "$out/libbpf/obj"
	make -s -C "$src/tools/lib/bpf" -j"$jobs" BUILD_STATIC_ONLY=1 \
		OUTPUT="$out/libbpf/obj/" DESTDIR="$out/libbpf" prefix= \
		"$out/libbpf/obj/libbpf.a" install_headers >/dev/null
	cp "$out/libbpf/obj/libbpf.a" "$out/libbpf/libbpf.a"
fi

if [ ! -x "$out/bpftool" ]; then
	echo "build-scx-deps.sh: building bpftool (bootstrap)" >&2
	mkdir -p "$out/bpftool-obj"
	make -s -C "$src/tools/bpf/bpftool" -j"$jobs" OUTPUT="$out/bpftool-obj/" \
		bootstrap >/dev/null
	cp "$out/bpftool-obj/bootstrap/bpftool" "$out/bpftool"
fi

if [ ! -s "$out/include/vmlinux.h" ]; then
	mkdir -p "$out/include"
	xz -dc "$vmlinux_xz" >"$out/include/vmlinux.h.tmp"
	mv "$out/include/vmlinux.h.tmp" "$out/include/vmlinux.h"
fi

if [ ! -e "$out/include/scx/common.bpf.h" ]; then
	mkdir -p "$out/include"
	cp -r "$src/tools/sched_ext/include/scx" "$out/include/scx"
fi
echo "build-scx-deps.sh: ready in $out" >&2
