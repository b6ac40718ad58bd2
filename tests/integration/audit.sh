#!/usr/bin/env bash
# audit.sh — the auditor: is the rule "no thread is kernel RT unless isod
# polices it" true on this machine right now?
#
#   ISOCTL=build/src/cli/isoctl bash tests/integration/audit.sh
#
# Scans every thread on the machine and fails (exit 1) if a thread breaks
# THE RULE (src/core/iso_rule.h): a thread of a non-root user (real or
# effective uid not 0) that is kernel SCHED_FIFO or SCHED_RR at ANY
# priority 1..99, or SCHED_DEADLINE, tracked by no running isod and not
# allowed by its process's hard RLIMIT_RTPRIO, printing
# "STRAY pid P tid T user U comm C policy FIFO|RR|DEADLINE prio N" for each.
#
# - Not only the band: below it is one unprivileged sched_setscheduler
#   away, and exec carries the policy on (issue 28). --band LO:HI is still
#   accepted (older callers) and means nothing now.
# - "Tracked": listed by `isoctl status --json` of ANY running isod (found
#   in /proc: comm "isod", its --socket/-s argument, else the default
#   socket). Several private isods may run at once during development.
# - Exempt: a FIFO/RR thread whose process's HARD RLIMIT_RTPRIO allows its
#   priority: the administrator's limits put it there (limits.conf's
#   "@audio - rtprio 95", systemd's LimitRTPRIO=). Never DEADLINE: the
#   kernel wants CAP_SYS_NICE for it whatever the limit.
# - Races: status is asked before and after the scan; a thread listed in
#   either is tracked (granted during the scan, or released — and so
#   demoted — during it).
#
#   bash tests/integration/audit.sh --judge   (no ISOCTL, no root)
#
# reads lines "policy prio ruid euid hard tracked" (hard: a number or
# "unlimited", tracked 0|1) and prints each with the auditor's verdict
# appended — not-rt, root, tracked, rtprio or stray — so that the unit test
# rule_audit can hold judge() below to isod's iso_rule_judge.
#
# Needs root (to read every thread's limits and to ask status
# unthrottled). Exit: 0 clean, 1 strays found, 2 usage/environment error.
set -u
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

judge=0
while [ $# -gt 0 ]; do
	case "$1" in
	--band) [ $# -ge 2 ] || { echo "audit: --band LO:HI" >&2; exit 2; }; shift 2;;
	--judge) judge=1; shift;;
	*) echo "audit: unknown argument $1" >&2; exit 2;;
	esac
done
[ "$judge" = 1 ] || : "${ISOCTL:?ISOCTL not set (path to isoctl)}"

# the program as an argument: --judge reads the cases on stdin
script=$(cat <<'EOF'
import json, os, pwd, subprocess, sys

isoctl = sys.argv[1]
UNLIMITED = 1 << 64
RESET_ON_FORK = 0x40000000

def judge(pol, prio, ruid, euid, hard, tracked):
    """src/core/iso_rule.c's iso_rule_judge, word for word (rule_audit
    checks it on a table of cases)"""
    pol &= ~RESET_ON_FORK
    if pol not in (1, 2, 6):  # FIFO, RR (any priority), DEADLINE
        return "not-rt"
    if ruid == 0 and euid == 0:
        return "root"
    if tracked:
        return "tracked"
    if pol != 6 and 0 <= prio <= hard:  # DEADLINE: never by RLIMIT_RTPRIO
        return "rtprio"
    return "stray"

if sys.argv[2] == "1":
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        hard = UNLIMITED if f[4] == "unlimited" else int(f[4])
        print(" ".join(f + [judge(int(f[0]), int(f[1]), int(f[2]), int(f[3]), hard, f[5] == "1")]))
    sys.exit(0)

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
    """tracked tids of every running isod"""
    tids = set()
    for s in isod_sockets():
        try:
            out = subprocess.run([isoctl, "status", "--json"], capture_output=True, timeout=5,
                                 env=dict(os.environ, ISOSCHED_SOCKET=s)).stdout
            j = json.loads(out)
        except Exception:
            continue
        tids.update(t["tid"] for t in j["threads"])
    return tids

def hard_rtprio(pid):
    try:
        for l in open("/proc/%s/limits" % pid):
            if l.startswith("Max realtime priority"):
                h = l.split()[4]
                return UNLIMITED if h == "unlimited" else int(h)
    except OSError:
        pass
    return 0

def sched(base):
    f = open(base + "stat").read().rsplit(")", 1)[1].split()
    return int(f[38]), int(f[37])  # policy, rt_priority

PF_EXITING = 0x4

def leaving(base):
    """on its way out: a zombie or dead task (state Z, X) or one past
    do_exit's start (PF_EXITING) never runs user code again — isod demotes
    it without calling it a stray (src/daemon/exiting.h); a killed
    process's zombie keeps its policy until it is reaped"""
    f = open(base + "stat").read().rsplit(")", 1)[1].split()
    return f[0] in ("Z", "X", "x") or int(f[6]) & PF_EXITING != 0

before = ask_isods()
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
            if judge(pol, prio, 1, 1, 0, False) == "not-rt":
                continue
            uids = [l.split()[1:3] for l in open(base + "status") if l.startswith("Uid:")][0]
            comm = open(base + "comm").read().strip()
        except (OSError, IndexError, ValueError):
            continue
        ruid, euid = int(uids[0]), int(uids[1])
        uid = ruid if ruid != 0 else euid
        verdict = judge(pol, prio, ruid, euid, hard_rtprio(pid), False)
        if verdict == "rtprio" and os.environ.get("AUDIT_VERBOSE"):
            print("exempt pid %s tid %s uid %d comm %s prio %d: its hard RLIMIT_RTPRIO allows it"
                  % (pid, tid, uid, comm, prio), file=sys.stderr)
        if verdict != "stray":
            continue
        cands.append((pid, int(tid), uid, comm, pol, prio, base))
after = ask_isods()
bad = 0
for pid, tid, uid, comm, pol, prio, base in cands:
    if tid in before or tid in after:
        continue
    try:  # demoted (policed), exiting or gone meanwhile?
        if judge(*sched(base), 1, 1, 0, False) == "not-rt" or leaving(base):
            continue
    except (OSError, IndexError, ValueError):
        continue
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    print("STRAY pid %s tid %d user %s comm %s policy %s prio %d"
          % (pid, tid, user, comm, {1: "FIFO", 2: "RR", 6: "DEADLINE"}[pol], prio),
          file=sys.stderr)
    bad = 1
sys.exit(bad)
EOF
)
exec "$PY" -c "$script" "${ISOCTL:-}" "$judge"
