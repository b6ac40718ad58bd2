#!/usr/bin/env bash
# The state file is written without following symlinks, in a directory
# only root can write (issue 11, item 10c).
#  A. a symlink planted at STATE.tmp (isod's temp name) pointing at
#     another file: grants still recorded in a regular STATE, the link's
#     target untouched (before: isod wrote the state into the target and
#     renamed the link over STATE);
#  B. a state directory writable by others (mode 1777): isod does not
#     trust it — it neither reads a record planted there nor writes one,
#     so grants are refused (fail safe), and it says why.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/hardening/hlib.sh"
need_root

# A. planted symlink
sdir=$ISO_TMP/state
mkdir -m 755 "$sdir"
echo "precious" >"$ISO_TMP/victim"
ln -s "$ISO_TMP/victim" "$sdir/isod.state.tmp"
start_isod $(no_rate_limit) --state-file "$sdir/isod.state"
"${AS_NOBODY[@]}" "$ISOCTL" run --rr -p 10 -- sleep 3 &
client=$!; ISO_CHILDREN+=($client)
for _ in $(seq 50); do
	grep -qE "^[0-9]+ " "$sdir/isod.state" 2>/dev/null && break
	sleep 0.1
done
[ "$(cat "$ISO_TMP/victim")" = precious ] ||
	fail "the symlink's target was overwritten: $(head -2 "$ISO_TMP/victim")"
[ -f "$sdir/isod.state" ] && [ ! -L "$sdir/isod.state" ] ||
	fail "the state file is not a regular file: $(ls -l "$sdir")"
grep -qE "^[0-9]+ [0-9]+ 65534 " "$sdir/isod.state" ||
	fail "the grant is not recorded: $(cat "$sdir/isod.state")"
log "A: grant recorded in a regular file, the symlink's target untouched"
wait "$client" || fail "the client's grant failed"
stop_isod

# B. a directory others can write
pdir=$ISO_TMP/public
mkdir -m 1777 "$pdir"
start_isod $(no_rate_limit) --state-file "$pdir/isod.state"
if as_nobody "$ISOCTL" run --rr -p 10 -- true 2>"$ISO_TMP/client.err"; then
	fail "a grant was made with the state in a world-writable directory"
fi
grep -q "writable by" "$ISO_TMP/isod.log" ||
	fail "isod did not say why: $(tail -5 "$ISO_TMP/isod.log")"
[ ! -e "$pdir/isod.state" ] || fail "isod wrote its state into $pdir"
log "B: $(grep -m1 "writable by" "$ISO_TMP/isod.log")"
stop_isod
echo PASS
