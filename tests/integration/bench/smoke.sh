# bench-smoke: a short isobench run (normal, fifo, rr, iso under CPU load,
# in 6 rounds) whose JSON must be well formed: the documented fields, every
# policy present once with samples > 0, each round's statistics in the
# rotated order, the paired iso/fifo ratio with its interval around the
# median, and the control ratio rr/fifo. Benchmarks are not pass/fail on
# timing: no thresholds.
. "$SRC_ROOT/tests/integration/lib.sh"

: "${ISOBENCH:?ISOBENCH not set (run through meson test)}"
need_root

policies=normal,fifo,rr,iso
if [ ! -x "$ISOD" ]; then
	policies=normal,fifo,rr
	log "isod not built yet: running $policies only"
fi

# Bad arguments: a clear message and exit 2.
for bad in "--policy bogus" "--policy normal --threads 0" \
	"--policy normal --load io" "--threads 2"; do
	rc=0
	# shellcheck disable=SC2086
	"$ISOBENCH" $bad >/dev/null 2>"$ISO_TMP/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "isobench $bad: exit $rc, expected 2"
	[ -s "$ISO_TMP/bad.err" ] || fail "isobench $bad: no message"
done

# The private isod and its temp dir go under $ISO_TMP, so that we can check
# that nothing is left behind.
rc=0
TMPDIR="$ISO_TMP" "$ISOBENCH" --policy "$policies" --duration 1.2 --rounds 6 --load cpu \
	--json >"$ISO_TMP/bench.json" 2>"$ISO_TMP/bench.err" || rc=$?
if [ "$rc" != 0 ]; then
	cat "$ISO_TMP/bench.err" >&2
	fail "isobench exited $rc"
fi
log "isobench: $(cat "$ISO_TMP/bench.json")"

python3 - "$ISO_TMP/bench.json" "$policies" <<'PY' || fail "bad JSON output"
import json, sys
path, policies = sys.argv[1], sys.argv[2].split(",")
text = open(path).read()
doc = json.loads(text)  # exactly one object, nothing else
def need(cond, what):
    if not cond:
        sys.exit("bench-smoke: " + what)
need(isinstance(doc, dict), "top level is not an object")
for k, t in (("period_us", int), ("threads", int), ("work_pct", (int, float)),
             ("load", str), ("results", list)):
    need(k in doc and isinstance(doc[k], t) and not isinstance(doc[k], bool),
         "missing or mistyped field %r" % k)
need(doc["period_us"] == 1333, "period_us %r, expected the default 1333" % doc["period_us"])
need(doc["threads"] == 1, "threads %r, expected 1" % doc["threads"])
need(doc["load"] == "cpu", "load %r, expected cpu" % doc["load"])
got = [r.get("policy") for r in doc["results"]]
need(sorted(got) == sorted(policies), "results for %r, expected %r" % (got, policies))
for r in doc["results"]:
    p = r["policy"]
    for k in ("samples", "misses"):
        need(isinstance(r.get(k), int) and not isinstance(r.get(k), bool) and r[k] >= 0,
             "%s: %s is not a count" % (p, k))
    need(r["samples"] > 0, "%s: no samples" % p)
    vals = []
    for k in ("min_us", "p50_us", "p99_us", "p999_us", "max_us"):
        v = r.get(k)
        need(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0,
             "%s: %s is not a non-negative number" % (p, k))
        vals.append(v)
    need(vals == sorted(vals), "%s: min <= p50 <= p99 <= p99.9 <= max fails: %r" % (p, vals))
    rounds = r.get("per_round")
    need(isinstance(rounds, list) and len(rounds) == 6, "%s: per_round is not 6 rounds" % p)
    for k, x in enumerate(rounds):
        vals = [x.get(f) for f in ("p50_us", "p99_us", "max_us")]
        need(all(isinstance(v, (int, float)) and v >= 0 for v in vals) and vals == sorted(vals),
             "%s round %d: p50 <= p99 <= max fails: %r" % (p, k, vals))
        need(isinstance(x.get("samples"), int) and x["samples"] > 0, "%s round %d: no samples" % (p, k))
        # a period skipped over is a miss with no sample (isobench(1)), so
        # under load misses may exceed samples: one per period at most
        periods = doc["threads"] * (int(doc["duration_s"] / max(doc.get("rounds") or 1, 1) * 1e6 / doc["period_us"]) + 2)
        need(isinstance(x.get("misses"), int) and 0 <= x["misses"] <= periods,
             "%s round %d: misses %r, more than its %d periods" % (p, k, x.get("misses"), periods))
    need(sum(x["samples"] for x in rounds) == r["samples"], "%s: rounds do not add up" % p)
    need(sum(x["misses"] for x in rounds) == r["misses"], "%s: round misses do not add up" % p)
# the order rotates: round k starts with policy k mod npol
n = len(policies)
for i, r in enumerate(doc["results"]):
    got_pos = [x["position"] for x in r["per_round"]]
    need(got_pos == [(i - k) % n for k in range(6)],
         "%s: positions %r, expected the rotation" % (r["policy"], got_pos))
need(doc.get("rounds") == 6, "rounds %r, expected 6" % doc.get("rounds"))
# round k's policies all ran pinned to the same CPU, and the CPU moves on
# from round to round (isobench places them: a policy must not be
# measured on a CPU of its own)
cpus = []
for k in range(6):
    at = {r["policy"]: r["per_round"][k].get("cpu") for r in doc["results"]}
    need(len(set(at.values())) == 1 and all(isinstance(c, int) and c >= 0 for c in at.values()),
         "round %d: policies pinned to different CPUs: %r" % (k, at))
    cpus.append(next(iter(at.values())))
    for r in doc["results"]:
        pct = r["per_round"][k].get("on_cpu_pct")
        need(isinstance(pct, (int, float)) and 0 <= pct <= 100,
             "%s round %d: on_cpu_pct %r" % (r["policy"], k, pct))
import os
if len(os.sched_getaffinity(0)) > 1:
    need(len(set(cpus)) > 1, "every round started on CPU %r" % cpus)
need(isinstance(doc.get("ratios"), dict), "ratios missing")
pr = doc.get("ratios_per_round")
need(isinstance(pr, dict), "ratios_per_round missing")
# the control, rr over fifo (no isod in either), is paired like iso's
need("rr_fifo_p99" in pr and "rr_fifo_p99" in doc["ratios"], "no control ratio rr_fifo_p99")
need(pr["rr_fifo_p99"].get("rounds") == 6, "rr_fifo_p99: rounds %r" % pr["rr_fifo_p99"].get("rounds"))
if "iso" in policies:
    need(set(pr) == {"iso_fifo_p99", "rr_fifo_p99"} and "iso_fifo_p99" in doc["ratios"],
         "ratios_per_round: %r" % sorted(pr))
    q = pr["iso_fifo_p99"]
    need(q.get("rounds") == 6 and len(q.get("values", [])) == 6, "iso_fifo_p99: rounds/values")
    need(all(isinstance(v, (int, float)) and v > 0 for v in q["values"]), "iso_fifo_p99: values")
    need(q.get("ci_level") == 0.95, "iso_fifo_p99: ci_level")
    for k in ("median", "ci_low", "ci_high", "ci_coverage"):
        need(isinstance(q.get(k), (int, float)), "iso_fifo_p99: %s %r" % (k, q.get(k)))
    need(q["ci_low"] <= q["median"] <= q["ci_high"],
         "iso_fifo_p99: not ci_low <= median <= ci_high: %r" % q)
    # six rounds: the interval is the range of the values
    need(q["ci_low"] == min(q["values"]) and q["ci_high"] == max(q["values"]),
         "iso_fifo_p99: six rounds should give [min, max]: %r" % q)
print("bench-smoke: %s ok" % ", ".join(got))
PY

# Nothing left behind: no hog, no measuring child, no private isod, no temp dir.
# isobench has exited: what it ended is gone within moments (a killed
# child may still be exiting), what it left running stays — look until
# nothing is left, 5 s at most, then once more to fail on what stayed
! left=$(still_running "*$ISO_TMP/isobench.*") || fail "left running: $left"
if compgen -G "$ISO_TMP/isobench.*" >/dev/null; then
	fail "private isod temp dir left behind: $(echo "$ISO_TMP"/isobench.*)"
fi
log "bench-smoke passed"
