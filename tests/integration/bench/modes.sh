# bench-modes: the short versions of isobench --enforcement, --daemon-cost
# and --plot, and the latency mode's dl and iso-dl. Checks only that they
# run and that their output is well formed (JSON fields and types, SVG
# parses as XML with a curve per policy, the reservations SCHED_DEADLINE)
# — no timing thresholds: the figures themselves are in docs/benchmarks.md.
. "$SRC_ROOT/tests/integration/lib.sh"

: "${ISOBENCH:?ISOBENCH not set (run through meson test)}"
need_root
[ -x "$ISOD" ] || skip "isod not built"

# Bad arguments: a clear message and exit 2.
for bad in "--enforcement --daemon-cost" "--enforcement --iso-cpu 0" \
	"--enforcement --iso-cpu 50,,70" "--enforcement --trials 0" \
	"--enforcement --requests 5" "--daemon-cost --trials 3" \
	"--daemon-cost --threads-list 5000" "--daemon-cost --policy iso" \
	"--daemon-cost --iso-load 95" "--enforcement --iso-load 10" \
	"--daemon-cost --window 0.1" "--policy normal --trials 3" \
	"--policy normal --plot" "--policy normal --rounds 0" \
	"--policy normal --duration 1 --rounds 20" "--enforcement --rounds 2" \
	"--policy fifo --rt-prio 100"; do
	rc=0
	# shellcheck disable=SC2086
	"$ISOBENCH" $bad >/dev/null 2>"$ISO_TMP/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "isobench $bad: exit $rc, expected 2"
	[ -s "$ISO_TMP/bad.err" ] || fail "isobench $bad: no message"
done
"$ISOBENCH" --help | grep -q -- "--enforcement" || fail "--help lacks --enforcement"
"$ISOBENCH" --help | grep -q -- "--daemon-cost" || fail "--help lacks --daemon-cost"

run() { # run NAME ARGS...: isobench ARGS --json > $ISO_TMP/NAME.json
	local name=$1 rc=0
	shift
	TMPDIR="$ISO_TMP" "$ISOBENCH" "$@" --json >"$ISO_TMP/$name.json" \
		2>"$ISO_TMP/$name.err" || rc=$?
	if [ "$rc" != 0 ]; then
		cat "$ISO_TMP/$name.err" >&2
		fail "isobench $*: exit $rc"
	fi
	log "isobench $*: $(cat "$ISO_TMP/$name.json")"
}

run enforce --enforcement --trials 2 --iso-cpu 30,40 --window 0.5
run cost --daemon-cost --threads-list 0,8 --window 0.5 --requests 20 --iso-load 10
run plot --policy normal,iso --duration 0.6 --rounds 2 --load none \
	--plot "$ISO_TMP/lat.svg"
# the reservations side by side: root's SCHED_DEADLINE and nobody's from
# isod, with the same parameters, not pinned
run dl --policy dl,iso-dl --duration 0.6 --rounds 2 --load none

python3 - "$ISO_TMP" <<'PY' || fail "bad output"
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
def need(cond, what):
    if not cond:
        sys.exit("bench-modes: " + what)
def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
def count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0

e = json.loads(open(d + "/enforce.json").read())
need(e.get("mode") == "enforcement", "enforcement: mode")
for k in ("ncpus", "spinners", "iso_period_s", "trials"):
    need(count(e.get(k)) and e[k] > 0, "enforcement: %s" % k)
need(num(e.get("sample_ms")) and e["sample_ms"] > 0, "enforcement: sample_ms")
need([l.get("iso_cpu") for l in e.get("levels", [])] == [30, 40],
     "enforcement: levels %r" % e.get("levels"))
for l in e["levels"]:
    for k in ("trials", "demoted", "failed", "no_crossing", "foreign", "not_budget"):
        need(count(l.get(k)), "enforcement %s: %s" % (l["iso_cpu"], k))
    need(l["trials"] == 2 and l["failed"] == 0 and l["demoted"] <= 2,
         "enforcement %s: trials/failed/demoted" % l["iso_cpu"])
    need(num(l.get("model_crossing_s")) and l["model_crossing_s"] > 0,
         "enforcement: model_crossing_s")
    for dk in ("crossing_s", "reaction_ms", "reaction_samples", "last_demotion_ms"):
        dd = l.get(dk)
        need(isinstance(dd, dict) and dd.get("n") == l["demoted"],
             "enforcement: %s" % dk)
        vals = [dd.get(k) for k in ("min", "p50", "p99", "max")]
        need(all(num(v) for v in vals) and vals == sorted(vals),
             "enforcement %s: min <= p50 <= p99 <= max: %r" % (dk, vals))
    s = l.get("share")
    need(isinstance(s, dict), "enforcement: share missing")
    for k in ("window_s", "competitor_pct_of_cpu", "competitor_pct_of_all",
              "iso_threads_pct_of_all"):
        need(num(s.get(k)) and 0 <= s[k] <= 101, "enforcement share: %s" % k)

c = json.loads(open(d + "/cost.json").read())
need(c.get("mode") == "daemon_cost", "daemon-cost: mode")
need(c.get("iso_load_pct") == 10, "daemon-cost: iso_load_pct")
need(isinstance(c.get("rate_limit_off"), bool), "daemon-cost: rate_limit_off")
need([p.get("threads") for p in c.get("points", [])] == [0, 8], "daemon-cost: points")
for p in c["points"]:
    need(p.get("ok") is True, "daemon-cost %s: not ok: %s" % (p["threads"], p.get("note")))
    need(p.get("tracked") == p["threads"], "daemon-cost: tracked %r" % p.get("tracked"))
    need(p.get("requests") == 20, "daemon-cost: requests %r" % p.get("requests"))
    need(p.get("policy_errors") == 0 and p.get("request_errors") == 0,
         "daemon-cost: the kernel policy after a request was wrong")
    for k in ("isod_cpu_pct", "isod_cpu_pct_stat", "request_p50_us",
              "enforcer_cpu_pct", "request_p99_us", "request_max_us", "release_p50_us",
              "release_p99_us", "isod_cpu_per_request_us"):
        need(num(p.get(k)) and p[k] >= 0, "daemon-cost: %s" % k)
    need(p["request_p50_us"] <= p["request_p99_us"] <= p["request_max_us"],
         "daemon-cost: request percentiles out of order")
for k in ("per_thread_cpu_pct", "per_thread_ns_per_sample", "base_cpu_pct"):
    need(num(c.get(k)), "daemon-cost: %s" % k)
# the floor, measured in the same run: as placed always, and on a kept
# connection; one CPU and two CPUs where the machine has them (pinning may
# be refused in a container)
f = c.get("floor", {})
need(sorted(f) == ["across_cpus", "kept_connection", "same_cpu", "unpinned"],
     "daemon-cost: floor ways %r" % sorted(f))
for w in ("unpinned", "kept_connection"):
    need(f[w].get("ok") is True, "daemon-cost: floor %s not measured: %s" % (w, f[w].get("note")))
for w in f.values():
    if w.get("ok"):
        need(num(w.get("p50_us")) and 0 < w["p50_us"] <= w["p99_us"],
             "daemon-cost: floor percentiles %r" % w)
    else:
        need(w.get("note"), "daemon-cost: a floor way not measured says why")

l = json.loads(open(d + "/plot.json").read())
need(l.get("rounds") == 2, "latency: rounds %r, expected 2" % l.get("rounds"))
need([r["policy"] for r in l["results"]] == ["normal", "iso"], "latency: results")
need(all(r["samples"] > 0 for r in l["results"]), "latency: no samples")

x = json.loads(open(d + "/dl.json").read())
need([r["policy"] for r in x["results"]] == ["dl", "iso-dl"], "dl: results %r" % x.get("results"))
for r in x["results"]:
    need(r["samples"] > 0, "%s: no samples" % r["policy"])
    need(r.get("kernel_policy") == "SCHED_DEADLINE", "%s ran as %r" % (r["policy"], r.get("kernel_policy")))
    need(r.get("policy_lost") == 0, "%s: left SCHED_DEADLINE %r times" % (r["policy"], r.get("policy_lost")))
    need(all(k.get("cpu") == -1 for k in r["per_round"]), "%s: pinned %r" % (r["policy"], r["per_round"]))
need("iso_dl_dl_p99" in x.get("ratios", {}), "dl: no iso_dl_dl_p99 ratio: %r" % x.get("ratios"))

svg = ET.parse(d + "/lat.svg").getroot()
need(svg.tag.endswith("svg"), "plot: not an svg")
lines = [el for el in svg.iter() if el.tag.endswith("polyline")]
need(len(lines) == 2, "plot: %d curves, expected 2" % len(lines))
for el in lines:
    pts = el.get("points", "").split()
    need(len(pts) >= 2 and all(len(p.split(",")) == 2 for p in pts),
         "plot: bad polyline points")
texts = " ".join((t.text or "") for t in svg.iter() if t.tag.endswith("text"))
need("normal" in texts and "iso" in texts, "plot: legend lacks a policy")
print("bench-modes: enforcement, daemon-cost, plot, dl ok")
PY

# Nothing left behind: no spinner, no competitor, no private isod, no temp dir.
# isobench has exited: what it ended is gone within moments (a killed
# child may still be exiting), what it left running stays — look until
# nothing is left, 5 s at most, then once more to fail on what stayed
! left=$(still_running "*$ISO_TMP/isobench.*") || fail "left running: $left"
if compgen -G "$ISO_TMP/isobench.*" >/dev/null; then
	fail "private isod temp dir left behind: $(echo "$ISO_TMP"/isobench.*)"
fi
log "bench-modes passed"
