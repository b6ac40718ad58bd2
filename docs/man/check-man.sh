#!/usr/bin/env bash
# check-man.sh PAGE... — render each built man page as man(1) and groff do
# and fail on any warning: `man --warnings -l` (what a user's man shows,
# groff's default warnings) and `groff -ww -man -z` (every warning).
# Exit 0 all clean, 1 a warning or error, 77 without man/groff.
set -uo pipefail
command -v groff >/dev/null || { echo "SKIP: groff not installed"; exit 77; }
command -v man >/dev/null || { echo "SKIP: man not installed"; exit 77; }
export LC_ALL=C.UTF-8 MANWIDTH=80
bad=0
for page in "$@"; do
	for how in "man --warnings -l" "groff -ww -man -z"; do
		err=$($how "$page" 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" != 0 ] || [ -n "$err" ]; then
			echo "FAIL $(basename "$page"): $how (exit $rc):"
			printf '%s\n' "$err" | head -n 20
			bad=1
		fi
	done
	# the page must have its NAME section with a "name - what" line
	if ! man -l "$page" 2>/dev/null | grep -q '^NAME'; then
		echo "FAIL $(basename "$page"): no NAME section"
		bad=1
	fi
	[ "$bad" = 0 ] && echo "ok $(basename "$page")"
done
exit "$bad"
