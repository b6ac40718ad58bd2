#!/usr/bin/env bash
# Install what isosched needs to build and test, on Debian (as root).
# libbpf-dev, bpftool and clang build isod's BPF accounting (meson -Dbpf).
# PipeWire, WirePlumber, pipewire-jack, pipewire-pulse, paplay
# (pulseaudio-utils), the JACK headers, gamemode, xdg-desktop-portal and
# bubblewrap: the desktop suite (issue 31). The JACK and PipeWire headers
# (libpipewire-0.3-dev, libspa-0.2-dev) also build isobench --audio.
# --scx also installs what scx_iso (the sched_ext scheduler) and its QEMU
# tests need: linux-source-6.12 (scx headers, libbpf, bpftool), clang-19,
# qemu, busybox-static, cpio, libelf and zlib headers.
set -euo pipefail
scx=no
[ "${1:-}" = --scx ] && scx=yes
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	meson ninja-build gcc clang libclang-rt-dev pkg-config libbpf-dev bpftool \
	libcmocka-dev libinih-dev zlib1g-dev libsystemd-dev libncurses-dev tmux \
	util-linux procps python3 valgrind rt-tests stress-ng dbus-daemon \
	scdoc groff-base man-db build-essential \
	dpkg-dev debhelper fakeroot lintian debootstrap e2fsprogs qemu-system-x86 \
	pipewire pipewire-bin pipewire-jack pipewire-pulse wireplumber pulseaudio-utils \
	libjack-jackd2-dev libpipewire-0.3-dev libspa-0.2-dev \
	gamemode xdg-desktop-portal bubblewrap jackd2 >/dev/null
if [ "$scx" = yes ]; then
	apt-get install -y -qq --no-install-recommends \
		linux-source-6.12 clang-19 llvm-19 qemu-system-x86 busybox-static cpio \
		libelf-dev zlib1g-dev xz-utils make >/dev/null
	echo "install-deps.sh: scx dependencies installed (then: scripts/build-scx-deps.sh DIR)"
fi
echo "install-deps.sh: build and test dependencies installed"
