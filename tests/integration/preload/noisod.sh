#!/usr/bin/env bash
# Without a reachable isod, and with an isod that refuses the user, the
# shim changes nothing: every command fails exactly as without it (same
# exit status, same output, same errno).
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
cmds=(
	"$SCHEDPROBE set 1 50 0"
	"$SCHEDPROBE set 2 20 0"
	"$SCHEDPROBE set 4 50 0"
	"$SCHEDPROBE set 4 0 0"
	"$SCHEDPROBE attr 1 50 0"
	"$SCHEDPROBE pset 1 50 0"
	"$SCHEDPROBE pattr 1 50 0"
	"$SCHEDPROBE pattr 2 20 0"
)
command -v chrt >/dev/null && cmds+=("chrt -f 50 true" "chrt -r 20 true")
command -v cyclictest >/dev/null && cmds+=("cyclictest -p 80 -t 2 -l 100 -q")
compare() {
	local c a b ra rb
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086
		without_shim $c >"$ISO_TMP/a" 2>&1; ra=$?
		# shellcheck disable=SC2086
		with_shim $c >"$ISO_TMP/b" 2>&1; rb=$?
		a=$(cat "$ISO_TMP/a"); b=$(cat "$ISO_TMP/b")
		[ "$ra" != 0 ] || fail "$1: '$c' succeeded without the shim"
		[ "$ra" = "$rb" ] || fail "$1: '$c' exit $rb with the shim, $ra without"
		[ "$a" = "$b" ] || fail "$1: '$c' output differs: '$b' vs '$a'"
		log "$1: '$c' -> $ra, same output"
	done
}
ISOSCHED_SOCKET=$ISO_TMP/nothing.sock compare "no isod"
export ISOSCHED_SOCKET
start_isod --config "$(write_config 'allow_users = root')"
compare "isod refuses"
"$ISOCTL" status --json | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["total"] != 0)' ||
	fail "isod granted something"
echo PASS
