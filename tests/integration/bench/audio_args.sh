# bench-audio-args: isobench --audio's argument checks, without any audio
# server: bad values exit 2 with a message; a build without libjack or
# libpipewire says so (exit 2); a build with them that finds no server
# (a runtime dir that does not exist, a JACK server name nobody uses)
# fails with the reason (exit 1). No session is started, nothing runs
# real-time.
. "$SRC_ROOT/tests/integration/lib.sh"

: "${ISOBENCH:?ISOBENCH not set (run through meson test)}"

# no_server ARGS...: isobench ARGS where no audio server can be found,
# whatever runs on the machine: a runtime dir that does not exist, a JACK
# server name nobody uses
no_server() {
	env -u PIPEWIRE_REMOTE XDG_RUNTIME_DIR="$ISO_TMP/none" PIPEWIRE_RUNTIME_DIR="$ISO_TMP/none" \
		JACK_DEFAULT_SERVER="isobench-test-none-$$" JACK_NO_START_SERVER=1 \
		"$ISOBENCH" "$@" </dev/null
}

# expect RC PATTERN ARGS...: isobench ARGS exits RC, its stderr matches
# PATTERN (grep -E)
expect() {
	local want=$1 pat=$2 rc=0
	shift 2
	no_server "$@" >"$ISO_TMP/out" 2>"$ISO_TMP/err" || rc=$?
	[ "$rc" = "$want" ] || fail "isobench $*: exit $rc, expected $want: $(cat "$ISO_TMP/err")"
	grep -qE -- "$pat" "$ISO_TMP/err" || fail "isobench $*: no '$pat' in: $(cat "$ISO_TMP/err")"
	log "isobench $*: exit $rc: $(grep -E -- "$pat" "$ISO_TMP/err" | head -n 1)"
}

"$ISOBENCH" --help | grep -q -- '--audio pipewire' || fail "--help does not document --audio"

expect 2 "--audio: 'alsa' is not pipewire or jack" --audio alsa
expect 2 "--work: '101' is not a number in 0..100" --audio pipewire --work 101
expect 2 "--work: 'x' is not a number" --audio jack --work x
expect 2 "--work: '-1' is not a number" --audio pipewire --work -1
expect 2 "--seconds: '0' is not a number in 1..3600" --audio pipewire --seconds 0
expect 2 "--quantum: '8' is not an integer in 16..8192" --audio pipewire --quantum 8
expect 2 "--quantum is for --audio pipewire" --audio jack --quantum 64
expect 2 "need --audio" --work 30
expect 2 "--audio excludes the other modes" --audio pipewire --stall
expect 2 "takes none of --policy" --audio pipewire --policy fifo

# the dependencies: missing, exit 2 with the reason; present, no server
if no_server --audio jack --seconds 1 --warmup 0 2>&1 | grep -q "built without libjack"; then
	expect 2 "built without libjack \(install libjack-jackd2-dev" --audio jack --seconds 1
	expect 2 "built without libjack" --audio pipewire --seconds 1
else
	expect 1 "--audio jack: no JACK server to connect to" --audio jack --seconds 1 --warmup 0
	if no_server --audio pipewire --seconds 1 --warmup 0 2>&1 |
		grep -q "built without libpipewire"; then
		expect 2 "built without libpipewire-0.3 \(install libpipewire-0.3-dev" \
			--audio pipewire --seconds 1
	else
		expect 1 "--audio pipewire: cannot connect to PipeWire" --audio pipewire \
			--seconds 1 --warmup 0
	fi
fi
echo PASS
