#!/usr/bin/env bash
# Runs in the kernel61 guest (started by guest/init, as root, with the
# host's /usr and /etc): meson test on the shared build directory, the
# daemon suite and the escape suite if the build has one, without the
# 'timing' suite (CPU-share figures mean nothing under TCG). Writes the
# meson output, meson's log and the exit status to /out for run.sh.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C.UTF-8 LC_ALL=C.UTF-8
# the kernel the guest really runs: run.sh checks this line
echo "K61 uname: $(uname -r)"
echo "K61 kernel: $(uname -srvm)"
echo "K61 sched_rt: $(cat /proc/sys/kernel/sched_rt_runtime_us)/$(cat /proc/sys/kernel/sched_rt_period_us)"
echo "K61 sched_ext: $([ -d /sys/kernel/sched_ext ] && echo present || echo absent)"

# For the tests: how much slower than the host this machine is. meson
# scales the timeouts by it; a test whose spinner lives a fixed few
# seconds while it checks it can scale that lifetime too (docs/kernel61.md)
export ISOSCHED_TEST_TIME_SCALE=$K61_MULTIPLIER
# This kernel has BTF and the guest runs as root: the BPF accounting must
# load, and a program its verifier refuses is a failure, not a skip (the
# 6.1 verifier forgets the bounds of 32-bit spills; 6.18 does not)
export ISOSCHED_EXPECT_BPF=1
args=()
for s in $K61_SUITES; do
	args+=(--suite "$s")
done
# tests by name instead of suites (run.sh's ISOSCHED_KERNEL61_TESTS)
if [ -n "${K61_TESTS:-}" ]; then
	read -ra args <<<"$K61_TESTS"
	K61_SUITES=$K61_TESTS
fi
t0=$(date +%s)
# meson's log under its own name: the host's testlog.txt of the same
# build directory stays as it was, and so does another guest's running
# other suites on the same build at the same time (tests/run-all.sh)
logbase=kernel61-${K61_SUITES// /-}
meson test -C "$K61_BUILD" --no-rebuild --print-errorlogs --num-processes 1 \
	--timeout-multiplier "$K61_MULTIPLIER" --logbase "$logbase" \
	"${args[@]}" --no-suite timing 2>&1 | tee /out/meson.out
rc=${PIPESTATUS[0]}
t1=$(date +%s)
cp "$K61_BUILD/meson-logs/$logbase.txt" /out/testlog.txt 2>/dev/null
echo "K61 meson test exited $rc after $((t1 - t0)) s"
echo "$rc" >/out/status
sync
