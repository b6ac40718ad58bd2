"""conn_flood.py SOCKET SECONDS: connect to isod, send 64 zero bytes (a
malformed request), close, as fast as possible for SECONDS (issue 11,
item 3: this delayed other users' requests by hundreds of ms).
Prints "flooding" after its first round, and "connects N" at the end. Run with /usr/bin/python3 as an unprivileged user."""
import socket
import sys
import time

path, end = sys.argv[1], time.monotonic() + float(sys.argv[2])
n = 0
while time.monotonic() < end:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(path)
        s.send(b"\0" * 64)
        s.close()
        n += 1
        if n == 1:
            # the test measures the others' service on this line, not on time
            print("flooding", flush=True)
    except OSError:
        pass
print("connects", n)
