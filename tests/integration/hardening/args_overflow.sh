#!/usr/bin/env bash
# isod's command line fills a fixed array of 64 settings (struct
# config_source.ov); -s/--socket and --band used to append to it with no
# bound, so 70 of them wrote past its end (issue 11, item 10b: a SEGV,
# under ASan and without). Now: a clear error and exit status 1, for
# -s, --band (two settings each) and the options mapped to keys alike;
# 64 settings are still fine (-h after them: parsed, then help, exit 0).
# Nothing is started: the arguments are refused before isod does anything.
source "$SRC_ROOT/tests/integration/lib.sh"

# many N ARGS...: ARGS repeated N times
many() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do printf '%s\n' "$@"; done
}

# refused LABEL ARGS...: isod exits 1 with the error, quickly
refused() {
	local label=$1 rc
	shift
	timeout -s KILL 10 "$ISOD" "$@" --state-file "$ISO_TMP/st" --dry-run \
		>"$ISO_TMP/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$label: isod exit $rc, want 1: $(head -3 "$ISO_TMP/out")"
	grep -q "too many" "$ISO_TMP/out" || fail "$label: no clear error: $(head -3 "$ISO_TMP/out")"
	log "$label: refused ($(head -1 "$ISO_TMP/out"))"
}

mapfile -t a < <(many 70 -s "$ISO_TMP/x.sock")
refused "70 x -s" "${a[@]}"
mapfile -t a < <(many 70 --band 10:40)
refused "70 x --band" "${a[@]}"
mapfile -t a < <(many 40 --socket "$ISO_TMP/x.sock" --band 10:40)
refused "40 x (--socket, --band)" "${a[@]}"
mapfile -t a < <(many 70 --iso-cpu 50)
refused "70 x --iso-cpu" "${a[@]}"

mapfile -t a < <(many 64 -s "$ISO_TMP/x.sock")
timeout -s KILL 10 "$ISOD" "${a[@]}" -h >/dev/null 2>"$ISO_TMP/out" ||
	fail "64 settings refused: $(head -3 "$ISO_TMP/out")"
mapfile -t a < <(many 32 --band 10:40)
timeout -s KILL 10 "$ISOD" "${a[@]}" -h >/dev/null 2>"$ISO_TMP/out" ||
	fail "32 x --band (64 settings) refused: $(head -3 "$ISO_TMP/out")"
echo PASS
