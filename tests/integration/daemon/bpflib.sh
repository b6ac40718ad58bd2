# bpflib.sh — helpers of the BPF accounting tests (sourced after lib.sh).

# start_bpf_isod [isod options]: a private isod with accounting = auto;
# skips the test (77) if it fell back to /proc, with the reason isod gave
# (a build without -Dbpf, a kernel without BTF, no CAP_BPF/CAP_PERFMON).
start_bpf_isod() {
	"$ISOD" --help | grep -q -- --accounting || skip "isod has no accounting setting"
	start_isod --accounting auto "$@"
	if ! grep -q "accounting bpf:" "$ISO_TMP/isod.log"; then
		local why
		why=$(grep -o "BPF not available: .*" "$ISO_TMP/isod.log" | head -n1)
		stop_isod
		skip "BPF accounting unavailable here (${why:-no reason logged})"
	fi
}

# poll_policy TID WANT TENTHS: until the kernel policy of TID is WANT
# (0 OTHER, 1 FIFO), polled from SCHED_FIFO 90 so that spinners in any
# test band cannot starve the poller; 0 if seen.
poll_policy() {
	chrt -f 90 bash -c '
		tid=$1 want=$2 n=$3
		for ((i = 0; i < n; i++)); do
			s=$(cat /proc/$tid/stat 2>/dev/null) || exit 1
			s=${s##*) }
			set -- $s
			[ "${39}" = "$want" ] && exit 0
			sleep 0.1
		done
		exit 1' poll "$1" "$2" "$3"
}
