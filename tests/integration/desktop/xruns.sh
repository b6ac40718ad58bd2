#!/usr/bin/env bash
# xruns side by side (issue 31, item 4; by hand, not in CI: ~12 min of
# stress-ng): the PipeWire graph at quantum 64 and 128 with isobench
# --audio pipewire's JACK client busy 30 % of each period, under
# stress-ng --cpu 2 --vm 1,
# for each source of RT — none, Debian's rtkit 0.13 (RTKIT_DAEMON, its
# real daemon, as compare.sh runs it; skips without it unless
# XR_WITHOUT_RTKIT=1, which leaves the column out),
# isod, root's SCHED_FIFO 88 — runs interleaved, XR_RUNS (3) of each, each
# a fresh session (xrun_one.sh) in which isobench reads XR_SECONDS (15)
# of PipeWire's profiler; and isod unloaded, the noise floor. Prints the median share of
# cycles the client had not finished, and every run.
# XR_PLOT=FILE.png also draws the medians (gnuplot), XR_KEEP=FILE keeps
# the runs' RESULT lines.
#   RTKIT_DAEMON=DIR/usr/libexec/rtkit-daemon meson test -C build desktop-xruns -v
set -u
: "${SRC_ROOT:?run through meson test}"
# a plain `meson test` must not start 15 minutes of stress-ng: without
# rtkit to compare with, only when asked for
[ -x "${RTKIT_DAEMON:-}" ] || [ "${XR_WITHOUT_RTKIT:-}" = 1 ] ||
	{ echo "SKIP: RTKIT_DAEMON (an rtkit-daemon binary) not given (XR_WITHOUT_RTKIT=1 runs the rest)"; exit 77; }
runs=${XR_RUNS:-3}
export XR_SECONDS=${XR_SECONDS:-15}
modes=(none isod fifo)
[ -x "${RTKIT_DAEMON:-}" ] && modes=(none rtkit isod fifo)
out=$(mktemp /tmp/isoxruns.XXXXXX)
trap 'rm -f "$out" "$out.dat"' EXIT
one() { # one MODE QUANTUM LOAD
	local r
	r=$(DESK_RT=$1 XR_QUANTUM=$2 XR_LOAD=$3 bash "$SRC_ROOT/tests/integration/desktop/xrun_one.sh" 2>&1)
	case $? in
	0) grep '^RESULT' <<<"$r" | tee -a "$out";;
	77) echo "SKIP: $(grep SKIP <<<"$r")"; exit 77;;
	*) printf '%s\n' "$r" | tail -n 30; echo "FAIL: run $1 $2 $3"; exit 1;;
	esac
}
for ((i = 1; i <= runs; i++)); do
	for q in 64 128; do
		one isod "$q" 0
		for m in "${modes[@]}"; do
			one "$m" "$q" 1
		done
	done
done
/usr/bin/python3 - "$out" "${modes[@]}" <<'PY'
import statistics, sys
rows = [l.split()[1:] for l in open(sys.argv[1])]
modes = sys.argv[2:]
def med(m, q, load):
    v = [100 * int(u) / int(c) for mm, qq, ll, c, u, *_ in rows if mm == m and qq == q and ll == load]
    return statistics.median(v) if v else 0
with open(sys.argv[1] + ".dat", "w") as f:   # for the plot: one row per mode
    label = {"none": "no-RT", "rtkit": "rtkit-0.13", "isod": "isod", "fifo": "root-FIFO-88",
             "floor": "isod,no-load"}
    for m in modes + ["floor"]:
        f.write(label[m] + " " + " ".join(f"{med('isod' if m == 'floor' else m, q, '0' if m == 'floor' else '1'):.3f}"
                                   for q in ("64", "128")) + "\n")
def pct(m, q, load, of=0):
    # of 0: late graph cycles of all; 2: unfinished records of all
    v = [100 * int(r[4 + of]) / int(r[3 + of]) for r in rows
         if r[0] == m and r[1] == q and r[2] == load and len(r) > 4 + of]
    if not v:
        return "-"
    return f"{statistics.median(v):.2f} % ({', '.join(f'{x:.2f}' for x in v)})"
names = {"none": "no RT", "rtkit": "rtkit 0.13", "isod": "isod", "fifo": "root SCHED_FIFO 88"}
for title, of in (("graph cycles with the client late", 0),
                  ("profiler records with the client unfinished", 2)):
    print()
    print(f"| {title}, median (runs) | " + " | ".join(names[m] for m in modes) + " | isod, no load |")
    print("|---|" + "---|" * (len(modes) + 1))
    for q in ("64", "128"):
        print(f"| quantum {q}, JACK client 30 %, stress-ng --cpu 2 --vm 1 | " +
              " | ".join(pct(m, q, "1", of) for m in modes) + f" | {pct('isod', q, '0', of)} |")
PY
[ -n "${XR_KEEP:-}" ] && cp "$out" "$XR_KEEP"
if [ -n "${XR_PLOT:-}" ] && command -v gnuplot >/dev/null; then
	gnuplot <<GP || echo "the plot failed"
set terminal pngcairo size 800,420 noenhanced
set output '$XR_PLOT'
set title 'JACK client 30 % of each period, stress-ng --cpu 2 --vm 1, median of $runs runs'
set ylabel 'graph cycles with the client late (%)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [0.1:100]
set grid ytics
set key top right
plot '$out.dat' using 2:xtic(1) title 'quantum 64', '' using 3 title 'quantum 128'
GP
fi
echo PASS
