#!/usr/bin/env bash
# The burst guard leaves periodic threads alone: ISO_FIFO threads at a
# 1.33 ms period with 20, 50 and 80 % duty and at a 170 ms period (the
# largest PipeWire quantum) with 80 % duty run ~10 s each and are never
# demoted — not one sample of their kernel policy in 10 ms steps shows
# anything but SCHED_FIFO, and isod logs no guard demotion. iso_cpu 95,
# so the budget stays out of it (two rounds of at most 1.3 CPUs).
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod --iso-cpu 95

round() { # round NAME "PERIOD_US DUTY" ...
	local name=$1 i=0 spec pids=() files=()
	shift
	for spec in "$@"; do
		set -- $spec
		as_nobody "$SPIN" --seconds 10 --period-us "$1" --duty "$2" --iso fifo --prio 30 \
			>"$ISO_TMP/$name.$i" &
		pids+=($!)
		ISO_CHILDREN+=($!)
		files+=("$ISO_TMP/$name.$i")
		i=$((i + 1))
	done
	# the watcher runs SCHED_FIFO just above the band (tiny work), so
	# the ISO threads cannot keep it from looking
	chrt -f 41 python3 - "${files[@]}" <<'PY' || fail "round $name: a periodic thread lost SCHED_FIFO (see above)"
import sys, time
files = sys.argv[1:]
def policy(tid):
    s = open(f"/proc/{tid}/stat").read()
    return int(s[s.rindex(")") + 2:].split()[38])
tids = {}
deadline = time.monotonic() + 5
while len(tids) < len(files) and time.monotonic() < deadline:
    for f in files:
        for line in open(f):
            if line.startswith("tid "):
                tids[f] = int(line.split()[1])
    time.sleep(0.005)
if len(tids) < len(files):
    print("not every thread came up", file=sys.stderr); sys.exit(1)
bad = samples = 0
t0 = time.monotonic()
while time.monotonic() - t0 < 9.5:
    for f, tid in tids.items():
        try:
            p = policy(tid)
        except OSError:
            continue
        samples += 1
        if p != 1:
            bad += 1
            print(f"{f}: thread {tid} policy {p} at {time.monotonic() - t0:.3f} s", file=sys.stderr)
    time.sleep(0.01)
print(f"# {len(tids)} threads, {samples} samples, {bad} not SCHED_FIFO", file=sys.stderr)
if samples < 300 * len(tids):
    print("too few samples to tell", file=sys.stderr); sys.exit(1)
sys.exit(1 if bad else 0)
PY
	for p in "${pids[@]}"; do wait "$p" || fail "round $name: a periodic thread failed"; done
}

round a "1333 20" "1333 80"
round b "1333 50" "170000 80"
if grep "burst guard" "$ISO_TMP/isod.log" >&2; then
	fail "the burst guard demoted a periodic thread"
fi
echo "PASS"
