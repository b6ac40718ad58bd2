#!/usr/bin/env bash
# jackd (JACK2, unmodified) as nobody with the shim, on its dummy driver
# (48 kHz, 64 frames: no sound card), and a JACK client (isobench --audio
# jack, through libjack) with the shim too: jackd's real-time threads and
# the client's process thread ask the kernel for SCHED_FIFO (jackd -R
# -P 70, libjack one below the server) and get ISO from isod instead —
# kernel FIFO in the band, listed by isod as nobody's. The client runs
# its cycles; when jackd ends nothing of nobody's is RT (lib.sh's audit).
# Needs jackd (jackd2) and an isobench built with libjack.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/preload/common.sh"
JACKD=${JACKD:-$(command -v jackd)}
[ -x "$JACKD" ] || skip "no jackd (apt-get install jackd2)"
[ -x "${ISOBENCH:-}" ] || skip "isobench not built"
"$ISOBENCH" --audio jack --seconds 1 2>&1 </dev/null | grep -q "built without libjack" &&
	skip "isobench built without libjack (libjack-jackd2-dev)"

start_isod
read_band
# a server name of its own, never started by a client, its files in a
# directory of the test's (HOME: ~/.jackdrc is not read from elsewhere)
jack_env=(env JACK_DEFAULT_SERVER="isotest-$$" JACK_NO_START_SERVER=1 HOME="$ISO_TMP"
	  JACK_NO_AUDIO_RESERVATION=1)
[ -n "${JACK_DRIVER_DIR:-}" ] && jack_env+=(JACK_DRIVER_DIR="$JACK_DRIVER_DIR")
chmod 755 "$ISO_TMP"
# setpriv and env exec: $! is jackd's pid (lib.sh ends it with the test)
setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"${jack_env[@]}" LD_PRELOAD="$PRELOAD" "$JACKD" -R -P 70 -d dummy -r 48000 -p 64 \
	>"$ISO_TMP/jackd.log" 2>&1 &
jackd=$!
ISO_CHILDREN+=($jackd)

# iso_tids PID: the threads of PID isod lists as ISO, "tid:prio" each
iso_tids() {
	"$ISOCTL" status --json | /usr/bin/python3 -c '
import json, sys
pid = int(sys.argv[1])
print(" ".join("%d:%d" % (t["tid"], t["prio"]) for t in json.load(sys.stdin)["threads"]
               if t["uid"] == 65534 and t["pid"] == pid))' "$1"
}
# its RT threads are ISO before a client can connect (the driver thread
# starts with the server)
server=
for _ in $(seq 200); do
	server=$(iso_tids "$jackd")
	[ -n "$server" ] && break
	kill -0 "$jackd" 2>/dev/null || break
	sleep 0.05
done
[ -n "$server" ] || { cat "$ISO_TMP/jackd.log" >&2; fail "isod lists no ISO thread of jackd (pid $jackd)"; }
for tp in $server; do
	expect_kernel "${tp%%:*}" 1
done
log "jackd's ISO threads (tid:ISO priority): $server"

# the client, 2 s of cycles at 20 % work
timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	"${jack_env[@]}" LD_PRELOAD="$PRELOAD" "$ISOBENCH" --audio jack --work 20 --seconds 2 \
	--warmup 0.5 --json >"$ISO_TMP/client.json" 2>"$ISO_TMP/client.err" </dev/null ||
	{ cat "$ISO_TMP/client.err" "$ISO_TMP/jackd.log" >&2; fail "the JACK client failed"; }
log "client: $(cat "$ISO_TMP/client.json")"
/usr/bin/python3 - "$ISO_TMP/client.json" "$BAND_LO" "$BAND_HI" <<'PY' || fail "the client's run: see above"
import json, sys
d = json.load(open(sys.argv[1]))
lo, hi = int(sys.argv[2]), int(sys.argv[3])
def need(c, what):
    if not c:
        sys.exit("preload-jackd: " + what + ": " + json.dumps(d))
need(d.get("server") == "jack" and d.get("quantum") == 64 and d.get("rate") == 48000, "not jackd's 64 at 48 kHz")
need(d.get("client_cycles", 0) > 0, "no cycle ran")
t = d.get("thread", {})
for when in ("start", "end"):
    need(t.get("policy_" + when) == "SCHED_FIFO" and lo <= t.get("prio_" + when, 0) <= hi,
         "the process thread at the %s is not kernel FIFO in the band %d..%d" % (when, lo, hi))
PY
# isod served it: the client's process thread was one of nobody's ISO
# threads (its grant line), not RT by another path
tid=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["thread"]["tid"])' "$ISO_TMP/client.json")
grep -qE "thread $tid \(pid [0-9]+, uid 65534\): SCHED_ISO" "$ISO_TMP/isod.log" ||
	fail "isod never granted the client's process thread $tid"

# jackd ends: its threads leave ISO with it
kill -TERM "$jackd"
wait "$jackd" 2>/dev/null
for _ in $(seq 100); do
	[ -z "$(iso_tids "$jackd")" ] && break
	sleep 0.05
done
[ -z "$(iso_tids "$jackd")" ] || fail "isod still lists jackd's threads after it ended: $(iso_tids "$jackd")"
echo PASS
