#!/usr/bin/env bash
# layout.sh BUILDDIR PREFIX BINDIR SBINDIR LIBDIR INCLUDEDIR SYSCONFDIR MANDIR UNITDIR
# — `meson install --destdir` into a temporary directory and check that
# everything lands where a distribution expects it, and that the installed
# programs name the installed paths (isod's config, isoctl's preload shim,
# the unit's ExecStart=). Directories are as meson resolved them (absolute
# below the prefix). UNITDIR "no": no unit expected. MANDIR "": no pages.
set -uo pipefail
build=$1 prefix=$2 bindir=$3 sbindir=$4 libdir=$5 includedir=$6 sysconfdir=$7 mandir=$8 unitdir=$9
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

if ! out=$(meson install -C "$build" --destdir "$dest" --no-rebuild 2>&1); then
	printf '%s\n' "$out" | tail -n 20
	echo "FAIL: meson install"
	exit 1
fi
d() { printf '%s%s' "$dest" "$1"; }

for f in "$sbindir/isod" "$bindir/isoctl" "$bindir/isobench"; do
	[ -f "$(d "$f")" ] && [ -x "$(d "$f")" ] && ok "$f" || bad "$f missing or not executable"
done
# nothing that belongs in sbin is in bin and the other way round
[ ! -e "$(d "$bindir/isod")" ] || bad "isod also in $bindir"

# the shared library: real file, soname link, dev link; the soname
lib=$(d "$libdir/libisosched.so")
real=$(readlink -f "$lib")
[ -L "$lib" ] && [ -f "$real" ] && ok "libisosched.so -> $(basename "$real")" || bad "$libdir/libisosched.so not a link to the library"
[ -L "$(d "$libdir/libisosched.so.0")" ] && ok "libisosched.so.0" || bad "$libdir/libisosched.so.0 missing"
soname=$(readelf -d "$real" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libisosched.so.0 ] && ok "SONAME $soname" || bad "SONAME '$soname', want libisosched.so.0"
[ -f "$(d "$includedir/isosched.h")" ] && ok "$includedir/isosched.h" || bad "isosched.h missing"
pc=$(d "$libdir/pkgconfig/isosched.pc")
if [ -f "$pc" ]; then
	grep -q "^libdir=.*" "$pc" && grep -q -- '-lisosched' "$pc" && ok "isosched.pc" || bad "isosched.pc lacks libdir or -lisosched"
	# with the destdir as sysroot, pkg-config finds the installed header dir
	cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs isosched 2>&1) &&
		ok "pkg-config isosched: $cflags" || bad "pkg-config isosched: $cflags"
else
	bad "$libdir/pkgconfig/isosched.pc missing"
fi
# the preload shim in the library directory (LD_PRELOAD finds it by name)
[ -f "$(d "$libdir/libisosched-preload.so")" ] && ok "$libdir/libisosched-preload.so" || bad "preload shim missing"
# isoctl names the installed shim
grep -aq "$libdir/libisosched-preload.so" "$(d "$bindir/isoctl")" && ok "isoctl's shim path is $libdir/libisosched-preload.so" ||
	bad "isoctl does not name $libdir/libisosched-preload.so"

# no build-tree RPATH/RUNPATH left in installed objects
for f in "$sbindir/isod" "$bindir/isoctl" "$bindir/isobench" "$libdir/libisosched-preload.so"; do
	rp=$(readelf -d "$(d "$f")" 2>/dev/null | grep -E 'R(UN)?PATH' || true)
	[ -z "$rp" ] || bad "$f has $rp"
done

# the installed isoctl runs against the installed library
v=$(LD_LIBRARY_PATH=$(d "$libdir") "$(d "$bindir/isoctl")" --version 2>&1) && ok "installed isoctl: $v" || bad "installed isoctl --version: $v"

# the example configuration, and the installed isod reads it by default
conf=$sysconfdir/isosched/isod.conf
[ -f "$(d "$conf")" ] && ok "$conf" || bad "$conf missing"
grep -q '^\[isod\]' "$(d "$conf")" 2>/dev/null || bad "$conf has no [isod] section"
# every non-comment line is the section header: all keys commented out
grep -vE '^[[:space:]]*([;#].*)?$' "$(d "$conf")" | grep -vqx '\[isod\]' && bad "$conf has an uncommented key"
help=$("$(d "$sbindir/isod")" --help 2>&1)
printf '%s\n' "$help" | grep -q "default $conf" && ok "isod's default config is $conf" ||
	bad "isod --help does not name $conf as its default"
# and it starts with the installed example as it stands (dry run, private
# socket and state file, stopped after 2 s: a bad file exits 1 at once)
run=$(mktemp -d)
timeout -s TERM 2 "$(d "$sbindir/isod")" --config "$(d "$conf")" --dry-run \
	--socket "$run/sock" --state-file "$run/state" >"$run/log" 2>&1
rc=$?
[ "$rc" = 124 ] || [ "$rc" = 0 ] && ok "installed isod starts with $conf" ||
	{ bad "installed isod with $conf exited $rc:"; tail -n 5 "$run/log"; }
rm -rf "$run"

# the unit, configured for this prefix
if [ "$unitdir" != no ]; then
	unit=$(d "$unitdir/isod.service")
	if [ -f "$unit" ]; then
		exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
		[ "$exec_start" = "$sbindir/isod" ] && ok "ExecStart=$exec_start" || bad "ExecStart=$exec_start, want $sbindir/isod"
		grep -q '@[a-z]*@' "$unit" && bad "unsubstituted @...@ in isod.service"
		grep -q '^WantedBy=multi-user.target' "$unit" || bad "isod.service has no WantedBy=multi-user.target"
	else
		bad "$unitdir/isod.service missing"
	fi
fi

# man pages
if [ -n "$mandir" ]; then
	for p in man8/isod.8 man5/isod.conf.5 man1/isoctl.1 man1/isobench.1 man7/isosched.7 man3/libisosched.3; do
		[ -s "$(d "$mandir/$p")" ] && ok "$mandir/$p" || bad "$mandir/$p missing"
	done
fi

echo "installed files:"
(cd "$dest" && find . \( -type f -o -type l \) -print | sort | sed 's/^\./    /')
exit "$fail"
