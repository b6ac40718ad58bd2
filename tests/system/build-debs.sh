#!/usr/bin/env bash
# build-debs.sh OUTDIR — build the Debian packages of this tree with
# `dpkg-buildpackage -us -uc -b` in a temporary copy (the clone stays
# clean: dpkg-buildpackage writes into debian/ and next to the source),
# run lintian on them and put the .debs, the .changes and lintian.log in
# OUTDIR. Exit 0 built and lintian without errors, 1 otherwise, 77 where
# dpkg-buildpackage or debhelper is missing.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build-debs.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v dpkg-buildpackage >/dev/null || { echo "build-debs.sh: SKIP: dpkg-dev not installed"; exit 77; }
command -v dh >/dev/null || { echo "build-debs.sh: SKIP: debhelper not installed"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tree=$work/isosched-$version
mkdir -p "$tree"
# what git tracks plus new files not ignored: no build directories
(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$tree") ||
	{ echo "build-debs.sh: cannot copy the tree"; exit 1; }
echo "build-debs.sh: dpkg-buildpackage -us -uc -b in $tree"
if ! (cd "$tree" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log"
	echo "build-debs.sh: dpkg-buildpackage failed (log: $out/build.log)"
	exit 1
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
ls -l "$out"/*.deb
rc=0
if command -v lintian >/dev/null; then
	# lintian refuses to run as root without --allow-root
	lintian --allow-root --info --display-level '>=pedantic' "$out"/*.changes >"$out/lintian.log" 2>&1
	echo "build-debs.sh: lintian: $(grep -c '^E:' "$out/lintian.log") errors, $(grep -c '^W:' "$out/lintian.log") warnings (log: $out/lintian.log)"
	grep -E '^[EW]:' "$out/lintian.log" | sed 's/^/    /'
	grep -q '^E:' "$out/lintian.log" && rc=1
else
	echo "build-debs.sh: lintian not installed, not checked"
fi
exit "$rc"
