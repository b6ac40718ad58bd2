# bench-isolation: the short version of isobench --isolation (issue 32,
# 1 s runs). Checks that it runs, that its JSON is well formed, and one
# thing that is not a matter of fine timing: with a reservation user A's
# periodic thread misses few of its periods (at most 10 % in the median
# run) while user B's higher ISO threads burst in step on every CPU. The
# figures are in docs/benchmarks.md.
. "$SRC_ROOT/tests/integration/lib.sh"

: "${ISOBENCH:?ISOBENCH not set (run through meson test)}"
need_root
[ -x "$ISOD" ] || skip "isod not built"

for bad in "--isolation --stall" "--isolation --enforcement" "--isolation --trials 2" \
	"--isolation --window 0.5" "--stall --isolation"; do
	rc=0
	"$ISOBENCH" $bad >/dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "isobench $bad: exit $rc, not 2"
done
"$ISOBENCH" --help | grep -q -- "--isolation" || fail "--help lacks --isolation"

rc=0
TMPDIR="$ISO_TMP" "$ISOBENCH" --isolation --window 1 --isod "$ISOD" --json >"$ISO_TMP/isol.json" \
	2>"$ISO_TMP/isol.err" || rc=$?
if [ "$rc" != 0 ]; then
	cat "$ISO_TMP/isol.err" >&2
	fail "isobench --isolation: exit $rc"
fi
log "isobench --isolation: $(cat "$ISO_TMP/isol.json")"
/usr/bin/python3 - "$ISO_TMP/isol.json" <<'PY' || fail "isobench --isolation: output or outcome wrong (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(c, what):
    if not c:
        bad.append(what)
need(d.get("mode") == "isolation", "mode")
cells = {(c["victim"], c["load"]): c for c in d.get("cells", [])}
need(set(cells) == {(v, l) for v in ("iso", "reserve", "root-deadline") for l in ("idle", "cpu+vm")},
     "cells")
for k, c in cells.items():
    need(len(c.get("runs", [])) == 3, f"{k}: three runs ({c.get('note')})")
    for r in c.get("runs", []):
        need(r["periods"] > 100 and 0 <= r["missed"] <= r["periods"], f"{k}: periods")
need(cells[("reserve", "idle")]["median_missed_pct"] <= 10, "reserve, idle: more than 10 % missed")
for b in bad:
    print("bad:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "PASS"
