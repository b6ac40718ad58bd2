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
