#!/usr/bin/env bash
# The burst guard (burst_ms, default 200): an unprivileged ISO_FIFO thread
# that spins is demoted to SCHED_OTHER long before the budget would act
# (~6 s), stays demoted while it spins (short trials after back-offs
# aside), is never killed, and is ISO again once it blocks.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod
out=$ISO_TMP/spin.out
res=$ISO_TMP/watch.out
: >"$out"
# Watch the spinner's kernel policy every 2 ms (/proc/TID/stat field 41)
# from the moment it says it is set up and spinning. The watcher runs
# SCHED_FIFO just above the band (tiny work), so the spinner cannot keep
# it from looking; it is started first, so it sees the start.
chrt -f 41 /usr/bin/python3 - "$out" "$res" <<'PY' &
import sys, time
out, res = sys.argv[1], sys.argv[2]
with open(res + ".up", "w") as f:
    f.write("watching\n")
def policy(tid):
    s = open(f"/proc/{tid}/stat").read()
    return int(s[s.rindex(")") + 2:].split()[38])
tid = None
deadline = time.monotonic() + 10
while tid is None and time.monotonic() < deadline:
    for line in open(out):
        if line.startswith("tid "):
            tid = int(line.split()[1])
    time.sleep(0.002)
if tid is None:
    open(res, "w").write("0 -1 0 -1\n"); sys.exit()
t0 = time.monotonic()
demoted = -1.0
other = total = 0
while time.monotonic() - t0 < 3.8:           # it spins for 4 s
    p = policy(tid)
    if p == 0 and demoted < 0:
        demoted = time.monotonic() - t0
    if demoted >= 0:
        total += 1
        other += p == 0
    time.sleep(0.002)
while time.monotonic() - t0 < 4.05:
    time.sleep(0.01)
restored = -1.0
t1 = time.monotonic()
while time.monotonic() - t1 < 3:             # then it blocks, 4 s
    if policy(tid) == 1:
        restored = time.monotonic() - t1
        break
    time.sleep(0.002)
open(res, "w").write(f"{tid} {demoted:.3f} {other / max(total, 1):.3f} {restored:.3f}\n")
PY
watcher=$!
ISO_CHILDREN+=($watcher)
# the watcher says it is up before it looks for the spinner
wait_file_lines "$res.up" '^watching' 1 || fail "the watcher did not start"
# one spinner: the budget (70 % of all CPUs) alone would not demote it
# on a machine with two CPUs or more
"${AS_NOBODY[@]}" "$SPIN" --seconds 4 --idle-after 4 --iso fifo --prio 30 >"$out" &
spinner=$!
ISO_CHILDREN+=($spinner)
wait $watcher
read -r tid demoted_after other_share restored_after <"$res"
log "spinner $tid: demoted after $demoted_after s; SCHED_OTHER in $other_share of the samples after that; ISO again $restored_after s after it stopped spinning"
[ "$tid" != 0 ] || fail "the spinner never said it was set up"
/usr/bin/python3 -c "import sys; sys.exit(0 if 0 <= $demoted_after < 1.0 else 1)" ||
	fail "not demoted within 1 s of spinning (the guard acts at 200 ms; the budget would take ~6 s): $demoted_after"
wait_log "thread $tid ran 200 ms without blocking: burst guard" ||
	fail "isod did not log the burst guard for thread $tid"
/usr/bin/python3 -c "import sys; sys.exit(0 if $other_share >= 0.5 else 1)" ||
	fail "the spinner was ISO most of the time after its demotion ($other_share SCHED_OTHER)"
/usr/bin/python3 -c "import sys; sys.exit(0 if 0 <= $restored_after < 2.0 else 1)" ||
	fail "not ISO again within 2 s of blocking: $restored_after"
# the guard's last word on it is "lifted": because it blocked, or, when
# a back-off's trial came just before it stopped spinning, by that trial
grep "thread $tid.* burst guard" "$ISO_TMP/isod.log" | tail -n1 | grep -q "burst guard lifted" ||
	fail "isod did not log that the guard was lifted for $tid"
wait $spinner || fail "the spinner was killed or failed"
grep -q "^cpu $tid" "$out" || fail "the spinner did not finish its work"
echo "PASS"
