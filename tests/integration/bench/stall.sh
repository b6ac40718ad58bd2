# bench-stall: the short version of isobench --stall (2 s runaway). Checks
# that it runs, that its JSON is well formed, and what is not a matter of
# timing: ISO spinners are never killed and are demoted (by the burst guard,
# within a generous second), RLIMIT_RTTIME spinners are killed, and no
# periodic ISO thread is demoted. The figures are in docs/benchmarks.md.
. "$SRC_ROOT/tests/integration/lib.sh"

: "${ISOBENCH:?ISOBENCH not set (run through meson test)}"
need_root
[ -x "$ISOD" ] || skip "isod not built"

for bad in "--stall --enforcement" "--stall --daemon-cost" "--stall --trials 2" \
	"--stall --window 0.5" "--stall --threads-list 1"; do
	rc=0
	"$ISOBENCH" $bad >/dev/null 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "isobench $bad: exit $rc, not 2"
done
"$ISOBENCH" --help | grep -q -- "--stall" || fail "--help lacks --stall"

rc=0
TMPDIR="$ISO_TMP" "$ISOBENCH" --stall --window 2 --isod "$ISOD" --json >"$ISO_TMP/stall.json" \
	2>"$ISO_TMP/stall.err" || rc=$?
if [ "$rc" != 0 ]; then
	cat "$ISO_TMP/stall.err" >&2
	fail "isobench --stall: exit $rc"
fi
log "isobench --stall: $(cat "$ISO_TMP/stall.json")"
python3 - "$ISO_TMP/stall.json" <<'PY' || fail "isobench --stall: output or outcome wrong (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def need(c, what):
    if not c:
        bad.append(what)
need(d.get("mode") == "stall", "mode")
sc = {s["name"]: s for s in d.get("scenarios", [])}
need(set(sc) == {"iso", "iso-cap", "iso-patch", "fifo-root", "rttime"}, "scenario names")
for name, s in sc.items():
    need(s.get("ran") is True, f"{name} ran ({s.get('note')})")
    for k in ("longest_gap_ms", "stalled_ms", "stalls", "killed", "spinners"):
        need(isinstance(s.get(k), (int, float)) and s[k] >= 0, f"{name}: {k}")
    need(isinstance(s.get("gaps"), list), f"{name}: gaps")
for name in ("iso", "iso-cap", "iso-patch", "fifo-root"):
    need(sc[name]["killed"] == 0, f"{name}: a spinner was killed")
need(0 < sc["iso"]["first_demotion_ms"] < 1000, "iso: the guard did not demote within 1 s")
need(sc["rttime"]["killed"] == sc["rttime"]["spinners"], "rttime: not every spinner killed")
per = d.get("periodic", [])
need(len(per) == 4, "four periodic threads")
for p in per:
    need(p.get("granted") is True, f"periodic {p.get('period_us')} us: not granted")
    need(p.get("periods", 0) > 0, f"periodic {p.get('period_us')} us: no periods")
    need(p.get("demotions") == 0, f"periodic {p.get('period_us')} us at {p.get('duty_pct')} %: demoted")
for b in bad:
    print("bad:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "PASS"
