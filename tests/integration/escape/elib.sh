# elib.sh — helpers of the escape suite, on top of lib.sh (sourced by each
# test after lib.sh). meson passes ESCAPETOOL (this dir's escapetool).
: "${ESCAPETOOL:?ESCAPETOOL not set (run through meson test)}"

# A band of the suite's own, apart from the default one other tests use.
# It no longer confines policing: isod's stray policing (start-up sweep,
# audit, the BPF program's reports) looks at every user thread of the
# machine that is kernel RT at any priority (issue 28), so no test with a
# policing isod runs beside another (is_parallel false, meson.build).
ESC_BAND_LO=81 ESC_BAND_HI=90
ESC_BAND=(--band "$ESC_BAND_LO:$ESC_BAND_HI")

# Emulation (the 6.1 guest under TCG) runs everything several times
# slower: the guest exports the timeout multiplier, by which a test scales
# its clients' lifetimes and its polling bounds (esc_scale N: N times it).
ESC_SCALE=${ISOSCHED_TEST_TIME_SCALE:-1}
esc_scale() { echo $(($1 * ESC_SCALE)); }

# The client programs (escapetool, rttool) and everything they start live
# until this test's shell is gone (tool_common.h, test_still_runs): never
# shorter than the test's checks, however slow the machine. ESC_LIFE is
# their SECONDS, the cap of last resort (cleanup kills them before).
export ESC_WHILE_PID=$$
ESC_LIFE=$(esc_scale 40)
[ "$ESC_LIFE" -le 120 ] || ESC_LIFE=120

# isod options that turn stray policing on (each test's isod polices;
# lib.sh turns it off by default): the start-up sweep, and the periodic
# audit every second where this isod has it.
policing_opts() {
	echo "${ESC_BAND[*]} --sweep-orphans yes"
	if "$ISOD" --help 2>&1 | grep -q -- '--audit-interval'; then
		echo "--audit-interval 1"
	fi
}

# start_policing_isod [more isod options]
start_policing_isod() {
	start_isod $(policing_opts) "$@"
}

# wait_for FILE REGEX [TENTHS]: until FILE has a line matching REGEX.
wait_for() {
	local i
	for ((i = 0; i < ${3:-100}; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# field FILE KEY NAME: the word after NAME on FILE's first line starting KEY
field() {
	awk -v k="$2" -v n="$3" '$1 == k { for (i = 2; i < NF; i++) if ($i == n) { print $(i + 1); exit } }' "$1"
}

# audits: this isod's count of full stray audits (isoctl status --json;
# -1 from an isod without the counts)
audits() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
print(json.load(sys.stdin).get("strays", {}).get("audits", -1))'
}

# wait_audits N: until N more full audits have run (an event of isod's,
# not a guess of time): whatever was there has been looked at N times
wait_audits() {
	local base now i
	base=$(audits)
	[ "$base" -ge 0 ] || fail "isoctl status --json has no stray counts: $("$ISOCTL" status --json)"
	for ((i = 0; i < $(esc_scale 100); i++)); do
		now=$(audits)
		[ "$now" -ge $((base + $1)) ] && return 0
		sleep 0.1
	done
	fail "no $1 full audits in $(esc_scale 10) s (from $base to $now)"
}

# policy_of TID: the kernel policy number (0 OTHER, 1 FIFO, 2 RR, 6
# DEADLINE), or "gone"
policy_of() { kernel_sched "$1" | cut -d' ' -f1 || echo gone; }

# wait_not_rt TID [TENTHS]: until the thread is not kernel RT (or gone)
wait_not_rt() {
	local i p
	for ((i = 0; i < ${2:-30}; i++)); do
		p=$(policy_of "$1")
		case "$p" in 1|2|6) ;; *) return 0;; esac
		sleep 0.1
	done
	return 1
}

# audit_ok LABEL: the auditor must find no stray on the machine
audit_ok() {
	local out
	if ! out=$(ISOCTL=$ISOCTL bash "$SRC_ROOT/tests/integration/audit.sh" \
		--band "$ESC_BAND_LO:$ESC_BAND_HI" 2>&1); then
		fail "$1: the auditor found threads kernel RT that no isod polices: $out"
	fi
	log "$1: auditor clean"
}

# stray_logged PID TID: isod's log has its stray line for this thread
stray_logged() {
	grep -E "stray: thread $2 \(process $1," "$ISO_TMP/isod.log" >/dev/null
}

# TIDs isod tracks, one per line
tracked_tids() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
for t in json.load(sys.stdin)["threads"]: print(t["tid"])'
}

# For background jobs: a plain command, so that $! is the client itself
# (setpriv execs it), not a subshell running a function.
NOBODY=("${AS_NOBODY[@]}") # lib.sh's

# isods_answer LABEL TID GP: a tracked thread was changed behind isod's
# back; wait (bounded) for isod to put it back to its grant, kernel FIFO GP
# ("put back"), or to demote it ("demoted"): sets ok and s (its kernel
# "POLICY PRIO"); fails the test if neither came
isods_answer() {
	ok=
	for _ in $(seq "$(esc_scale 30)"); do
		s=$(kernel_sched "$2") || fail "$1: thread $2 gone"
		case "$s" in
		"1 $3") ok="put back"; break;;
		0\ *) ok="demoted"; break;;
		esac
		sleep 0.1
	done
	[ -n "$ok" ] || fail "$1: thread $2 left kernel RT where it was put: $s (its grant: FIFO $3)"
	log "$1: isod's answer: $ok ($s)"
}
