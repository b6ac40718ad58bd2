#!/bin/bash
# ISOSCHED_SOCKET must be ignored in secure execution (issue 11, item 8):
# a setuid or file-capability program — one run under /etc/ld.so.preload
# with the shim, say — must not be steered to a socket its caller chose.
# A copy of secureprobe given a harmless file capability in a temp dir
# runs with AT_SECURE set for user nobody; the plain copy is the control.
# Nothing outside the temp dir is touched.
. "$(dirname "$0")/../lib.sh"
need_root
[ -n "${SECUREPROBE:-}" ] && [ -x "$SECUREPROBE" ] || skip "secureprobe not built"
command -v setcap >/dev/null || skip "no setcap(8) (libcap2-bin)"

cp "$SECUREPROBE" "$ISO_TMP/plain"
cp "$SECUREPROBE" "$ISO_TMP/capped"
chmod 755 "$ISO_TMP/plain" "$ISO_TMP/capped"
setcap cap_net_bind_service+p "$ISO_TMP/capped" ||
	skip "cannot set file capabilities in $ISO_TMP"
chosen="$ISO_TMP/chosen.sock"

out=$(ISOSCHED_SOCKET="$chosen" as_nobody "$ISO_TMP/plain") || fail "plain probe failed"
log "plain:  $out"
[ "$out" = "secure=0 socket=$chosen" ] ||
	fail "an ordinary program does not follow ISOSCHED_SOCKET: $out"

out=$(ISOSCHED_SOCKET="$chosen" as_nobody "$ISO_TMP/capped") || fail "capped probe failed"
log "capped: $out"
case "$out" in
"secure=1 "*) ;;
*) skip "the capped copy does not run in secure mode (nosuid mount?): $out" ;;
esac
[ "$out" != "secure=1 socket=$chosen" ] ||
	fail "secure execution followed ISOSCHED_SOCKET to $chosen"
exit 0
