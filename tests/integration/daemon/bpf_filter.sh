#!/usr/bin/env bash
# The BPF program's TID filter (bpf/acct_maps.h: tid_filter) counts
# exactly the threads isod tracks: each tracked TID's bucket holds it
# while it is tracked, a grant again to a tracked thread counts it once,
# and a release or an exit uncounts it — every bucket 0 with nothing
# tracked. A count missing would hide a tracked thread's switches from
# the program (its CPU time: a runaway not seen); one left over costs a
# hash lookup at every switch of the TIDs in its bucket. Read from the
# program's .bss with bpftool, as the kernel holds it. And behaviour on
# top: a thread granted after others came and went is still counted by
# the kernel (its runaway demoted).
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
command -v bpftool >/dev/null || skip "no bpftool to read the program's maps"
start_bpf_isod --burst-ms 0 --stall-ms 0

# the .bss of this isod's program: a map isod holds open (the map_id of
# its fds' fdinfo; other test runs on the machine have isods too), else
# its pid among the map's holders where bpftool tells them, else the one
# map of that name
bss_id=$(bpftool -j map show | /usr/bin/python3 -c '
import glob, json, sys
pid = int(sys.argv[1])
held = set()
for f in glob.glob("/proc/%d/fdinfo/*" % pid):
    try:
        for line in open(f):
            if line.startswith("map_id:"):
                held.add(int(line.split()[1]))
    except (OSError, ValueError):
        pass
maps = [m for m in json.load(sys.stdin) if m.get("name", "").endswith(".bss") and m["name"].startswith("isod_acc")]
mine = [m for m in maps if m["id"] in held] or [m for m in maps if any(p.get("pid") == pid for p in m.get("pids", []))]
pick = mine or (maps if len(maps) == 1 else [])
print(pick[0]["id"] if pick else "")
' "$ISOD_PID")
[ -n "$bss_id" ] || fail "cannot find the .bss map of isod $ISOD_PID"

# filter_state: "SUM TID:COUNT..." — the buckets' sum and the count in
# the bucket of each TID given
filter_state() {
	bpftool -j map dump id "$bss_id" | /usr/bin/python3 -c '
import json, sys
def find(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "tid_filter":
                return v
            r = find(v)
            if r is not None:
                return r
    elif isinstance(x, list):
        for v in x:
            r = find(v)
            if r is not None:
                return r
    return None
f = find(json.load(sys.stdin))
if f is None:
    sys.exit("no tid_filter in the .bss dump")
out = [str(sum(f))] + ["%s:%d" % (t, f[int(t) % len(f)]) for t in sys.argv[1:]]
print(" ".join(out))
' "$@"
}
# wait_sum N: until the buckets add up to N (isod forgets an exit at its
# next check or on the program's exit report)
wait_sum() {
	for _ in $(seq 100); do
		[ "$(filter_state | cut -d' ' -f1)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

[ "$(filter_state)" = 0 ] || fail "buckets counted with nothing tracked: $(filter_state)"

out=$ISO_TMP/spin.out
"${AS_NOBODY[@]}" "$SPIN" --threads 3 --seconds $((20 * TIME_SCALE)) --duty 5 --iso rr --prio 20 >"$out" &
spinner=$!
ISO_CHILDREN+=($spinner)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tids=$(awk '/^tid/{print $2}' "$out")
[ "$(echo $tids | wc -w)" = 3 ] || fail "spinners did not start: $tids"
set -- $tids
state=$(filter_state "$@")
log "3 tracked: $state"
[ "${state%% *}" = 3 ] || fail "3 threads tracked, the buckets add up to ${state%% *}: $state"
for kv in ${state#* }; do
	[ "${kv#*:}" -ge 1 ] || fail "a tracked TID's bucket is 0: $kv ($state)"
done

# granted again while tracked (a new priority): still counted once
as_nobody "$ISOCTL" set --rr -p 22 "$1" >/dev/null || fail "grant again to $1"
state=$(filter_state "$@")
[ "${state%% *}" = 3 ] || fail "a grant again to a tracked thread changed the sum: $state"
# released: uncounted
as_nobody "$ISOCTL" set --normal "$1" >/dev/null || fail "release of $1"
wait_sum 2 || fail "a released thread still counted: $(filter_state "$@")"
# exited: uncounted
kill -KILL "$spinner"
wait "$spinner" 2>/dev/null
wait_sum 0 || fail "exited threads still counted: $(filter_state "$@")"

# and the kernel still sees a thread granted after all that: one ISO
# FIFO spinner per CPU is a runaway, demoted on what the program counted
# (a file of its own: the shell truncates a reused one in the child, after
# the parent may have read the first spinner's "ready" in it)
"${AS_NOBODY[@]}" "$SPIN" --threads "$(nproc)" --seconds $((12 * TIME_SCALE)) \
	--idle-after $((20 * TIME_SCALE)) --iso fifo --prio 30 >"$out.runaway" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out.runaway" && break; sleep 0.05; done
first=$(awk '/^tid/{print $2; exit}' "$out.runaway")
[ -n "$first" ] || fail "runaway spinners did not start"
[ "$(filter_state | cut -d' ' -f1)" = "$(nproc)" ] || fail "the runaway's threads not all counted: $(filter_state)"
poll_policy "$first" 0 90 || fail "runaway $first never demoted"
stop_isod
echo PASS
