"""unit_confine.py [--nofile SOFT:HARD] [--protect-system strict]
[--protect-home yes] [--rw DIR]... -- CMD...: the part of isod.service's
confinement that needs root, in one process (unit_confine.sh: the
capabilities are dropped after it, by setpriv in CMD). Sets RLIMIT_NOFILE,
enters a private mount namespace, makes every mount read-only but the --rw
directories (ProtectSystem=strict; /proc/sys and /sys too, as
ProtectKernelTunables= and ProtectControlGroups=), hides /home, /root and
/run/user under an empty mode-000 tmpfs (ProtectHome=yes), then execs CMD
(same pid). One process instead of prlimit + unshare + a mount(8) per
mount point: on a loaded machine those took seconds per start."""
import ctypes
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18

libc = ctypes.CDLL(None, use_errno=True)


def mount(src, target, fstype, flags, data=None):
    if libc.mount(src and src.encode(), target.encode(), fstype and fstype.encode(),
                  ctypes.c_ulong(flags), data and data.encode()) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (target, os.strerror(e)))


def mount_points():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mp = line.split()[4]
            yield mp.encode().decode("unicode_escape")  # \040 -> space


def main(argv):
    nofile, system, home, rw = None, "", "", []
    while argv and argv[0] != "--":
        opt, val, argv = argv[0], argv[1], argv[2:]
        if opt == "--nofile":
            nofile = [int(x) for x in val.split(":")]
        elif opt == "--protect-system":
            system = val
        elif opt == "--protect-home":
            home = val
        elif opt == "--rw":
            rw.append(os.path.realpath(val))
        else:
            sys.exit("unit_confine.py: unknown option " + opt)
    cmd = argv[1:]
    if nofile:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile[0], nofile[-1]))
    if libc.unshare(CLONE_NEWNS) != 0:
        sys.exit("unit_confine.py: unshare: " + os.strerror(ctypes.get_errno()))
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    for d in rw:
        mount(d, d, None, MS_BIND)
    if home == "yes":
        for d in ("/home", "/root", "/run/user"):
            if os.path.isdir(d):
                mount("none", d, "tmpfs", MS_RDONLY, "mode=000,size=4k")
    if system == "strict":
        mount("/proc/sys", "/proc/sys", None, MS_BIND)
        for mp in mount_points():
            if mp in ("/proc", "/dev") or mp.startswith(("/proc/", "/dev/")) and mp != "/proc/sys":
                continue
            if mp in rw:
                continue
            try:
                mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
            except OSError:
                pass  # e.g. a mount hidden under another: not reachable anyway
    os.execvp(cmd[0], cmd)


main(sys.argv[1:])
