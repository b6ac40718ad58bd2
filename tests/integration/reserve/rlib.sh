# rlib.sh — helpers of the reserve suite, on top of lib.sh.

# wait_policy TID POLICY [TENTHS]: until the kernel runs TID with POLICY
# (0 OTHER, 1 FIFO, 2 RR, 6 DEADLINE); 1 if it never did
wait_policy() {
	local i
	for ((i = 0; i < ${3:-50}; i++)); do
		[ "$(kernel_sched "$1" | cut -d' ' -f1)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# reserve_of TID: the "reserve" field isod gives for TID ("reserved",
# "fallback(WHY)", "" when none), or "untracked"
reserve_of() {
	"$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys
t=[t for t in json.load(sys.stdin)["threads"] if t["tid"]==int(sys.argv[1])]
print(t[0]["reserve"] if t else "untracked")' "$1"
}

# wait_untracked TID: until isod no longer lists TID (bounded, 5 s)
wait_untracked() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(reserve_of "$1")" = untracked ] && return 0
		sleep 0.1
	done
	return 1
}

# dl_params TID: "runtime/deadline/period" in ns as the kernel has them
dl_params() {
	chrt -p "$1" | sed -n 's#.*runtime/deadline/period parameters: *##p'
}

# The user's part of reserve_cpu is 30 % of one CPU on any machine:
# reserve_cpu 30 of all CPUs, reserve_user 100/N percent of that.
RES_USER=$((100 / $(nproc)))
RES_CAP_PCT=$(/usr/bin/python3 -c "print(30 * $(nproc) * $RES_USER / 100)")
