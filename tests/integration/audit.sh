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

exec "$PY" - "$ISOCTL" "${bands[@]}" <<'EOF'
import json, os, pwd, subprocess, sys

isoctl = sys.argv[1]
bands = [tuple(int(x) for x in b.split(":")) for b in sys.argv[2:]]

def isod_sockets():
    socks = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if open("/proc/%s/comm" % pid).read().strip() != "isod":
                continue
            args = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        sock, prev = "/run/isosched/isod.sock", b""
        for a in args:
            if prev in (b"--socket", b"-s"):
                sock = a.decode(errors="replace")
            elif a.startswith(b"--socket="):
                sock = a[9:].decode(errors="replace")
            prev = a
        socks.add(sock)
    return socks

def ask_isods():
    """(tracked tids, bands) of every running isod"""
    tids, bs = set(), []
    for s in isod_sockets():
        try:
            out = subprocess.run([isoctl, "status", "--json"], capture_output=True, timeout=5,
                                 env=dict(os.environ, ISOSCHED_SOCKET=s)).stdout
            j = json.loads(out)
        except Exception:
            continue
        bs.append(tuple(j["band"]))
        tids.update(t["tid"] for t in j["threads"])
    return tids, bs

def hard_rtprio(pid):
    try:
        for l in open("/proc/%s/limits" % pid):
            if l.startswith("Max realtime priority"):
                h = l.split()[4]
                return 99 if h == "unlimited" else int(h)
    except OSError:
        pass
    return 0

def sched(base):
    f = open(base + "stat").read().rsplit(")", 1)[1].split()
    return int(f[38]), int(f[37])  # policy, rt_priority

before, bs = ask_isods()
bands += bs
cands = []
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
            pol, prio = sched(base)
            if pol not in (1, 2) or not any(lo <= prio <= hi for lo, hi in bands):
                continue
            uids = [l.split()[1:3] for l in open(base + "status") if l.startswith("Uid:")][0]
            comm = open(base + "comm").read().strip()
        except (OSError, IndexError, ValueError):
            continue
        if uids == ["0", "0"]:
            continue
        uid = int(uids[0]) if uids[0] != "0" else int(uids[1])
        if hard_rtprio(pid) >= prio:
            if os.environ.get("AUDIT_VERBOSE"):
                print("exempt pid %s tid %s uid %d comm %s prio %d: its hard RLIMIT_RTPRIO allows it"
                      % (pid, tid, uid, comm, prio), file=sys.stderr)
            continue
        cands.append((pid, int(tid), uid, comm, pol, prio, base))
after, _ = ask_isods()
bad = 0
for pid, tid, uid, comm, pol, prio, base in cands:
    if tid in before or tid in after:
        continue
    try:  # demoted (policed) or gone meanwhile?
        if sched(base)[0] not in (1, 2):
            continue
    except (OSError, IndexError, ValueError):
        continue
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    print("STRAY pid %s tid %d user %s comm %s policy %s prio %d"
          % (pid, tid, user, comm, "FIFO" if pol == 1 else "RR", prio), file=sys.stderr)
    bad = 1
sys.exit(bad)
EOF
