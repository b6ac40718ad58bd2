"""status_rtt.py SOCKET N: N STATUS round trips to isod (connect, request,
reply, close: what one `isoctl status` costs isod's clients), timed inside
one process so that process start-up on a loaded machine is not counted.
Prints one line per try: the milliseconds, or "fail REASON".
Run with /usr/bin/python3 (the clients are unprivileged users)."""
import socket
import struct
import sys
import time

MAGIC, VERSION, STATUS, REPLY = 0x534F5349, 1, 3, 0x8000


def one(path, seq):
    req = struct.pack("<IHHII", MAGIC, VERSION, STATUS, 20, seq) + struct.pack("<I", 0)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # blocking, as libisosched's: a non-blocking connect() fails with
    # EAGAIN while isod's listen queue is full instead of waiting its turn
    tv = struct.pack("ll", 5, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    try:
        s.connect(path)
        s.send(req)
        rep = s.recv(65536)
    finally:
        s.close()
    if len(rep) < 16:
        raise OSError("short reply (%d bytes)" % len(rep))
    magic, _, rtype, _, rseq = struct.unpack_from("<IHHII", rep)
    if magic != MAGIC or rseq != seq or rtype & ~REPLY != STATUS:
        raise OSError("reply does not match the request")


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    for seq in range(1, n + 1):
        t0 = time.perf_counter()
        try:
            one(path, seq)
            print("%.1f" % ((time.perf_counter() - t0) * 1000))
        except OSError as e:
            print("fail", str(e).replace(" ", "_"))
        sys.stdout.flush()
        time.sleep(0.01)


main()
