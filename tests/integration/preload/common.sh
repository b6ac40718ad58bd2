# common.sh — helpers of the preload tests, sourced after lib.sh.
# PRELOAD is the shim, SCHEDPROBE the probe program (see schedprobe.c).

[ -x "$ISOD" ] || skip "isod not built"
[ -n "${PRELOAD:-}" ] && [ -f "$PRELOAD" ] || skip "shim not built"
need_root
command -v timeout >/dev/null || skip "no timeout(1)"

BAND_LO=10
BAND_HI=40
# read_band: the band from isod's status (default 10..40).
read_band() {
	local b
	b=$("$ISOCTL" status --json 2>/dev/null | python3 -c \
		'import json,sys; b=json.load(sys.stdin)["band"]; print(b[0], b[1])' 2>/dev/null) || return 0
	read -r BAND_LO BAND_HI <<<"$b"
}

# Run as nobody, bounded, with / without the shim.
with_shim() {
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		env LD_PRELOAD="$PRELOAD" "$@"
}
without_shim() {
	timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
}

# wait_line FILE REGEX: wait (5 s at most) until FILE has a matching line.
wait_line() {
	for _ in $(seq 100); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	cat "$1" >&2
	fail "no line /$2/ in $1"
}

# field FILE KEY: value of KEY=... in the report line of FILE.
field() { grep -oE "(^| )$2=-?[0-9]+" "$1" | head -1 | cut -d= -f2; }

# expect_kernel TID POLICY: the kernel runs TID with POLICY (1 or 2) at a
# priority inside the band.
expect_kernel() {
	local s pol prio
	s=$(kernel_sched "$1") || fail "thread $1 gone"
	read -r pol prio <<<"$s"
	[ "$pol" = "$2" ] || fail "thread $1: kernel policy $pol, wanted $2"
	[ "$prio" -ge "$BAND_LO" ] && [ "$prio" -le "$BAND_HI" ] ||
		fail "thread $1: kernel priority $prio outside the band $BAND_LO..$BAND_HI"
	log "thread $1: kernel policy $pol priority $prio (band $BAND_LO..$BAND_HI)"
}

# isod_tracks TID: isod lists TID as an ISO thread.
isod_tracks() {
	"$ISOCTL" status --json | python3 -c '
import json, sys
t = [x for x in json.load(sys.stdin)["threads"] if x["tid"] == int(sys.argv[1])]
sys.exit(0 if t else 1)' "$1"
}
