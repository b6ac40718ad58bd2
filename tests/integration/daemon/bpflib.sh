# bpflib.sh — helpers of the BPF accounting tests (sourced after lib.sh).

# start_bpf_isod [isod options]: a private isod with accounting = auto;
# skips the test (77) if it fell back to /proc, with the reason isod gave
# (a build without -Dbpf, a kernel without BTF, no CAP_BPF/CAP_PERFMON);
# fails instead with ISOSCHED_EXPECT_BPF=1 (tests/kernel61) unless the
# build has no BPF.
start_bpf_isod() {
	"$ISOD" --help | grep -q -- --accounting || skip "isod has no accounting setting"
	start_isod --accounting auto "$@"
	if ! grep -q "accounting bpf:" "$ISO_TMP/isod.log"; then
		local why
		why=$(grep -o "BPF not available: .*" "$ISO_TMP/isod.log" | head -n1)
		stop_isod
		# where the program must load (the 6.1 guest: BTF, root, a
		# BPF build), a fallback is a failure — a program the kernel's
		# verifier refuses must not pass as a skip
		if [ "${ISOSCHED_EXPECT_BPF:-0}" = 1 ] && [[ "$why" != *"built without BPF"* ]]; then
			fail "BPF accounting expected to load here, but isod fell back (${why:-no reason logged})"
		fi
		skip "BPF accounting unavailable here (${why:-no reason logged})"
	fi
}

# The slowdown of this machine (tests/kernel61 sets it under QEMU TCG):
# spinners that must outlive a check live this many times longer.
TIME_SCALE=${ISOSCHED_TEST_TIME_SCALE:-1}

# poll_policy TID WANT TENTHS: until the kernel policy of TID is WANT
# (0 OTHER, 1 FIFO), TENTHS (times TIME_SCALE) tenths of a second at most;
# 0 if seen. Read every 5 ms, from SCHED_FIFO 90 (above every test band,
# so spinners cannot starve it) and without a fork per read: a refractory
# spell of a runaway lasts about half a second.
poll_policy() {
	chrt -f 90 /usr/bin/python3 - "$1" "$2" "$(($3 * TIME_SCALE))" <<'PY'
import sys, time
tid, want, tenths = sys.argv[1], sys.argv[2], int(sys.argv[3])
end = time.monotonic() + tenths / 10
while time.monotonic() < end:
    try:
        with open("/proc/%s/stat" % tid) as f:
            s = f.read()
    except OSError:
        sys.exit(1)
    # after "comm) " the fields start at field 3; policy is field 41
    if s[s.rindex(")") + 2:].split()[38] == want:
        sys.exit(0)
    time.sleep(0.005)
sys.exit(1)
PY
}

# bpf_state [TID]: what the BPF accounting of this test's isod shows now,
# for a failure's message (stderr): the program's shared variables (armed,
# woke_ns, lost, the ran bits set, on_cpu, what runs on each CPU) and, for
# TID, its tid_filter count and its entry in "threads". Read with bpftool
# through isod's own map descriptors (/proc/PID/fdinfo); prints what it
# cannot read instead.
bpf_state() {
	local tid=${1:-0} fd id name bss='' threads=''
	command -v bpftool >/dev/null || { echo "bpf_state: no bpftool" >&2; return 0; }
	for fd in /proc/"$ISOD_PID"/fdinfo/*; do
		id=$(awk '/^map_id:/{print $2}' "$fd" 2>/dev/null)
		[ -n "$id" ] || continue
		name=$(bpftool map show id "$id" 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "name") print $(i + 1); exit}')
		case $name in
		*.bss) bss=$id;;
		threads) threads=$id;;
		esac
	done
	[ -n "$bss" ] || { echo "bpf_state: no .bss map among isod's descriptors" >&2; return 0; }
	{ bpftool map dump id "$bss" -j; echo; echo ---; [ -z "$threads" ] || bpftool map dump id "$threads" -j; } \
		>"$ISO_TMP/bpf_state.json" 2>&1
	/usr/bin/python3 - "$ISO_TMP/bpf_state.json" "$tid" <<'PY' >&2 || echo "bpf_state: cannot read the dump" >&2
import json, sys
text = open(sys.argv[1]).read()
bss_text, _, threads_text = text.partition("\n---\n")
tid = int(sys.argv[2])
v = {}
for kv in json.loads(bss_text)[0]["formatted"]["value"][".bss"]:
    v.update(kv)
bits = [(w, x) for w, x in enumerate(v["ran_bits"]) if x]
print("BPF state: armed %s, lost %s, woke_ns %s, gap_epoch %s" % (v["armed"], v["lost"], v["woke_ns"], v["gap_epoch"]))
print("  ran bits set (word: bits): %s" % ", ".join("%d: %#x" % b for b in bits) if bits else "  no ran bits set")
n = len([c for c in v["cpu_tid"] if c.get("tid")])
print("  on_cpu (slot + 1 per CPU): %s; running: %s" % (v["on_cpu"][:max(n, 2)], [c.get("tid") for c in v["cpu_tid"][:max(n, 2)]]))
if tid:
    print("  tid_filter[%d %% %d] = %d" % (tid, len(v["tid_filter"]), v["tid_filter"][tid % len(v["tid_filter"])]))
    try:
        for slot, e in enumerate(json.loads(threads_text)):
            f = e["formatted"]["value"]
            if f.get("tid") == tid:
                bit = (v["ran_bits"][slot // 64] >> (slot % 64)) & 1
                print("  thread %d: slot %d (ran bit %d): %s" % (tid, slot, bit, f))
    except (ValueError, KeyError) as err:
        print("  threads map unreadable: %s" % err)
PY
}
