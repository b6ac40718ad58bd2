#!/usr/bin/env bash
# Install what isosched needs to build and test, on Debian (as root).
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (apt-get)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	meson ninja-build gcc clang libclang-rt-dev pkg-config \
	libcmocka-dev libinih-dev \
	util-linux procps python3 valgrind rt-tests stress-ng >/dev/null
echo "install-deps.sh: build and test dependencies installed"
