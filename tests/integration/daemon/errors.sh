#!/usr/bin/env bash
# Refusals come back as the kernel's errno: another user's thread (EPERM),
# a bad priority (EINVAL), a dead thread (ESRCH), too many threads (EAGAIN);
# garbage and truncated packets get an error reply and isod keeps serving.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
start_isod --max-threads-per-user 2

# EPERM: nobody names a root-owned thread; it stays SCHED_OTHER
sleep 30 & victim=$!
ISO_CHILDREN+=($victim)
err=$(as_nobody "$ISOCTL" set --fifo -p 10 "$victim" 2>&1) && fail "cross-user set succeeded"
echo "$err" | grep -qi "not permitted" || fail "cross-user: want EPERM, got: $err"
[ "$(kernel_sched "$victim" | cut -d' ' -f1)" = 0 ] || fail "victim changed"

# EINVAL: priority 0 for ISO and 100, through the library (spin)
err=$(as_nobody "$SPIN" --seconds 0.1 --iso fifo --prio 0 2>&1) && fail "prio 0 accepted"
echo "$err" | grep -q "Invalid argument" || fail "prio 0: want EINVAL, got: $err"
err=$(as_nobody "$SPIN" --seconds 0.1 --iso rr --prio 100 2>&1) && fail "prio 100 accepted"
echo "$err" | grep -q "Invalid argument" || fail "prio 100: want EINVAL, got: $err"
# a limit above the administrator's maximum (default: iso_cpu)
err=$(as_nobody "$SPIN" --seconds 0.1 --iso rr --prio 10 --limit 90 2>&1) && fail "limit 90 accepted"
echo "$err" | grep -q "not permitted" || fail "limit 90: want EPERM, got: $err"

# ESRCH: a thread that does not exist
err=$(as_nobody "$ISOCTL" set --rr -p 10 999999 2>&1) && fail "dead thread accepted"
echo "$err" | grep -qi "no such process" || fail "dead thread: want ESRCH, got: $err"

# EAGAIN: three threads for a user capped at two
err=$(as_nobody "$SPIN" --threads 3 --seconds 0.5 --duty 10 --iso rr --prio 10 2>&1) && fail "cap not enforced"
echo "$err" | grep -q "Resource temporarily unavailable" || fail "cap: want EAGAIN, got: $err"

# Garbage, truncated, oversized and wrong-version packets
python3 - "$ISOSCHED_SOCKET" <<'PY' || fail "garbage handling"
import socket, struct, sys, os
path = sys.argv[1]
def ask(payload):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(2)
    s.connect(path)
    s.send(payload)
    r = s.recv(65536)
    s.close()
    err = struct.unpack_from("<i", r, 16)[0]
    return err
hdr = lambda typ, ln, ver=1: struct.pack("<IHHII", 0x534f5349, ver, typ, ln, 9)
good_get = hdr(2, 24) + struct.pack("<ii", 0, os.getpid())
assert ask(good_get) == 0
for bad in [b"x", b"\0" * 15, os.urandom(200), good_get[:20], good_get + b"!",
            hdr(2, 24, ver=7) + b"\0" * 8, hdr(77, 16), b"A" * 20000]:
    e = ask(bad)
    assert e < 0, (bad[:20], e)
PY
# still alive and serving
kill -0 "$ISOD_PID" || fail "isod died"
"$ISOCTL" status >/dev/null || fail "isod stopped answering"
echo "PASS"
