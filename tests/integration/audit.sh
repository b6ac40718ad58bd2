#!/usr/bin/env bash
# audit.sh — the auditor: is the rule "no thread is kernel RT unless isod
# polices it" true on this machine right now?
#
#   ISOCTL=build/src/cli/isoctl bash tests/integration/audit.sh [--band LO:HI]...
#
# Scans every thread on the machine and fails (exit 1) if a thread of a
# non-root user (real or effective uid not 0) is kernel SCHED_FIFO or
# SCHED_RR at a band priority and is tracked by no running isod, printing
# "STRAY pid P tid T user U comm C policy FIFO|RR prio N" for each.
#
# - The bands: those of every running isod, those given with --band, and
#   the default 10..40.
# - "Tracked": listed by `isoctl status --json` of ANY running isod (found
#   in /proc: comm "isod", its --socket/-s argument, else the default
#   socket). Several private isods may run at once during development.
# - Exempt: a thread whose process's HARD RLIMIT_RTPRIO allows its
#   priority: the administrator's limits put it there (limits.conf's
#   "@audio - rtprio 95", systemd's LimitRTPRIO=).
# - Races: status is asked before and after the scan; a thread listed in
#   either is tracked (granted during the scan, or released — and so
#   demoted — during it).
#
# Needs root (to read every thread's limits and to ask status
# unthrottled). Exit: 0 clean, 1 strays found, 2 usage/environment error.
set -u
: "${ISOCTL:?ISOCTL not set (path to isoctl)}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

bands=("10:40")
while [ $# -gt 0 ]; do
	case "$1" in
	--band) [ $# -ge 2 ] || { echo "audit: --band LO:HI" >&2; exit 2; }; bands+=("$2"); shift 2;;
	*) echo "audit: unknown argument $1" >&2; exit 2;;
	esac
done

# The sockets of every running isod.
isod_sockets() {
	local p comm sock args a prev
	for p in /proc/[0-9]*; do
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		[ "$comm" = isod ] || continue
		mapfile -d '' args <"$p/cmdline" 2>/dev/null || continue
		sock=/run/isosched/isod.sock
		prev=
		for a in "${args[@]}"; do
			case "$prev" in --socket|-s) sock=$a;; esac
			case "$a" in --socket=*) sock=${a#--socket=};; esac
			prev=$a
		done
		echo "$sock"
	done | sort -u
}

# "tid ..." lines and "band LO HI" lines of every isod's status.
ask_isods() {
	local s
	for s in $(isod_sockets); do
		[ -S "$s" ] || continue
		ISOSCHED_SOCKET=$s "$ISOCTL" status --json 2>/dev/null | "$PY" -c '
import json, sys
try:
    j = json.load(sys.stdin)
except Exception:
    sys.exit(0)
print("band %d %d" % tuple(j["band"]))
for t in j["threads"]:
    print("tid %d" % t["tid"])
'
	done
}

before=$(ask_isods)
scan=$("$PY" - "${bands[@]}" <<'EOF'
import os, sys
bands = [tuple(int(x) for x in b.split(":")) for b in sys.argv[1:]]
def in_band(p):
    return any(lo <= p <= hi for lo, hi in bands)
def hard_rtprio(pid):
    try:
        for l in open("/proc/%s/limits" % pid):
            if l.startswith("Max realtime priority"):
                h = l.split()[4]
                return 99 if h == "unlimited" else int(h)
    except OSError:
        pass
    return 0
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        tids = os.listdir("/proc/%s/task" % pid)
    except OSError:
        continue
    for tid in tids:
        base = "/proc/%s/task/%s/" % (pid, tid)
        try:
            stat = open(base + "stat").read()
            f = stat.rsplit(")", 1)[1].split()
            prio, pol = int(f[37]), int(f[38])
            if pol not in (1, 2) or not in_band(prio):
                continue
            uids = [l.split()[1:3] for l in open(base + "status") if l.startswith("Uid:")][0]
            comm = open(base + "comm").read().strip()
        except (OSError, IndexError, ValueError):
            continue
        if uids[0] == "0" and uids[1] == "0":
            continue
        if hard_rtprio(pid) >= prio:
            print("exempt pid %s tid %s uid %s comm %s prio %d: hard RLIMIT_RTPRIO allows it" %
                  (pid, tid, uids[0], comm, prio))
            continue
        print("cand %s %s %s %s %s %d" % (pid, tid, uids[0] if uids[0] != "0" else uids[1],
                                          comm.replace(" ", "_"), "FIFO" if pol == 1 else "RR", prio))
EOF
) || { echo "audit: scanner failed" >&2; exit 2; }
after=$(ask_isods)

tracked=" $(printf '%s\n%s\n' "$before" "$after" | awk '$1=="tid"{print $2}' | sort -u | tr '\n' ' ') "
bad=0
while read -r kind pid tid uid comm pol prio; do
	[ "$kind" = cand ] || continue
	case "$tracked" in *" $tid "*) continue;; esac
	# demoted (policed) or gone meanwhile? look again
	now=$(cat "/proc/$pid/task/$tid/stat" 2>/dev/null) || continue
	now=${now##*) }
	set -- $now
	case "${39}" in 1|2) ;; *) continue;; esac
	user=$(getent passwd "$uid" | cut -d: -f1)
	echo "STRAY pid $pid tid $tid user ${user:-$uid} comm $comm policy $pol prio $prio" >&2
	bad=1
done <<<"$scan"
[ -n "${AUDIT_VERBOSE:-}" ] && grep '^exempt' <<<"$scan" >&2
exit $bad
