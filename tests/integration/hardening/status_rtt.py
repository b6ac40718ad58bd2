"""status_rtt.py SOCKET N [CONTROL]: N STATUS round trips to isod (connect,
request, reply, close: what one `isoctl status` costs isod's clients),
timed inside one process so that process start-up on a loaded machine is
not counted. Prints one line per try: the milliseconds, or "fail REASON".
With CONTROL (control_echo.py's socket), each try is followed by one
round trip to the control, and the line is "ISOD_MS CONTROL_MS": what the
machine's load alone costs a client at that moment; then "c=MS", the part
of isod's round trip spent in connect() (waiting for a place in isod's
listen queue), for a failure's message.
Run with /usr/bin/python3 (the clients are unprivileged users)."""
import socket
import struct
import sys
import time

MAGIC, VERSION, STATUS, REPLY = 0x534F5349, 1, 3, 0x8000


def one(path, seq, took):
    req = struct.pack("<IHHII", MAGIC, VERSION, STATUS, 20, seq) + struct.pack("<I", 0)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # blocking, as libisosched's: a non-blocking connect() fails with
    # EAGAIN while isod's listen queue is full instead of waiting its turn
    tv = struct.pack("ll", 5, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    try:
        t0 = time.perf_counter()
        s.connect(path)
        took.append(time.perf_counter() - t0)
        s.send(req)
        rep = s.recv(65536)
    finally:
        s.close()
    if len(rep) < 16:
        raise OSError("short reply (%d bytes)" % len(rep))
    magic, _, rtype, _, rseq = struct.unpack_from("<IHHII", rep)
    if magic != MAGIC or rseq != seq or rtype & ~REPLY != STATUS:
        raise OSError("reply does not match the request")


def timed(path, seq, took=None):
    t0 = time.perf_counter()
    one(path, seq, took if took is not None else [])
    return "%.1f" % ((time.perf_counter() - t0) * 1000)


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    control = sys.argv[3] if len(sys.argv) > 3 else None
    for seq in range(1, n + 1):
        took = []
        try:
            line = timed(path, seq, took)
        except OSError as e:
            line = "fail " + str(e).replace(" ", "_")
        if control and not line.startswith("fail"):
            try:
                # the echo of a STATUS request passes one()'s checks
                line += " " + timed(control, seq) + " c=%.1f" % (took[0] * 1000)
            except OSError as e:
                line = "fail control:" + str(e).replace(" ", "_")
        print(line)
        sys.stdout.flush()
        time.sleep(0.01)


main()
