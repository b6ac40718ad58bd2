#!/usr/bin/env bash
# The BPF accounting (accounting = auto, loaded): a runaway of unprivileged
# ISO spinners is demoted (the kernel policy really changes) on CPU time
# the kernel program counted; for a live thread, the BPF figure agrees
# with /proc's schedstat (same thread, same moment: isod logs both when it
# lets the thread go); the band time aggregate grew. Skipped (77) where
# BPF cannot load.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/daemon/bpflib.sh"
need_root
# the patch's budget alone, as runaway.sh
start_bpf_isod --burst-ms 0 --stall-ms 0
n=$(nproc)
out=$ISO_TMP/spin.out
"${AS_NOBODY[@]}" "$SPIN" --threads "$n" --seconds $((12 * TIME_SCALE)) --idle-after $((20 * TIME_SCALE)) \
	--iso fifo --prio 30 >"$out" &
ISO_CHILDREN+=($!)
for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
tids=$(awk '/^tid/{print $2}' "$out")
[ -n "$tids" ] || fail "spinners did not start"
first=$(echo $tids | cut -d' ' -f1)
# over budget within ~2 s (70 % of the CPUs over 5 s, from nothing):
# the kernel policy of the spinner goes to SCHED_OTHER
poll_policy "$first" 0 90 || { tail -30 "$ISO_TMP/isod.log" >&2; fail "spinner $first never demoted"; }
log "spinner $first demoted: $(kernel_sched "$first")"
wait_log "above iso_cpu, ISO threads demoted" || fail "no refractory line"

# BPF against /proc for a live thread: release it, isod logs both figures
as_nobody "$ISOCTL" set --normal "$first" >/dev/null || fail "release of $first"
wait_line() { for _ in $(seq 50); do grep -q "$1" "$ISO_TMP/isod.log" && return 0; sleep 0.1; done; return 1; }
wait_line "thread $first leaves the BPF accounting" || fail "no BPF/proc comparison logged for $first"
line=$(grep "thread $first leaves the BPF accounting" "$ISO_TMP/isod.log" | tail -n1)
bpf_us=$(sed -E 's/.*: ([0-9]+) us on CPU counted by BPF.*/\1/' <<<"$line")
proc_us=$(sed -E 's/.*, ([0-9]+) us by \/proc.*/\1/' <<<"$line")
log "thread $first: BPF $bpf_us us, /proc $proc_us us"
[ "$bpf_us" -gt 0 ] || fail "BPF counted nothing for a spinner: $line"
# a check of correctness, not of timing: the same order of magnitude (the
# two reads are microseconds apart; a wrong clock, unit or field is not)
[ $((bpf_us * 2)) -ge "$proc_us" ] && [ "$bpf_us" -le $((proc_us * 2)) ] ||
	fail "BPF and /proc disagree: $line"

stop_isod
band=$(grep -o "ran [0-9.]* s at band priorities" "$ISO_TMP/isod.log" | awk '{print $2}')
[ -n "$band" ] || fail "no band time logged at exit"
python3 -c "import sys; sys.exit(0 if $band > 0 else 1)" || fail "band time did not grow: $band s"
log "band time counted by BPF: $band s"
echo PASS
