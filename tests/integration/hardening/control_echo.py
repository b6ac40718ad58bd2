"""control_echo.py SOCKET SECONDS: the control for isod's round trips
(hlib.sh's assert_serving): a server as plain as isod's server thread —
one SCHED_OTHER thread, one packet in, the same packet back, close — on
a SOCK_SEQPACKET socket anyone may connect to, for SECONDS at most.
What its clients wait is what the machine's load alone makes them wait.
Prints "ready" once it listens. Run with /usr/bin/python3."""
import os
import socket
import sys
import time

path, end = sys.argv[1], time.monotonic() + float(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(path)
os.chmod(path, 0o666)
s.listen(64)
s.settimeout(0.5)
print("ready", flush=True)
while time.monotonic() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    try:
        c.settimeout(5)
        m = c.recv(65536)
        if m:
            c.send(m)
    except OSError:
        pass
    finally:
        c.close()
