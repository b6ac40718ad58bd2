#!/usr/bin/env bash
# Declared reservations (issue 32) through isoctl, as nobody: a
# reservation runs as kernel SCHED_DEADLINE with the parameters asked;
# one over the user's part of reserve_cpu is refused with EBUSY and the
# figure left, which is then admitted; another user has a part of its
# own; parameters the kernel would refuse are EINVAL; the reservation's
# children start SCHED_OTHER and are not adopted; where DEADLINE cannot
# serve (affinity narrower than the root domain) it runs as band ISO with
# the reason in status.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/reserve/rlib.sh"
need_root
command -v chrt >/dev/null || skip "no chrt"
start_isod --reserve-cpu 30 --reserve-user "$RES_USER"

# accepted: 1 ms every 5.333 ms (18.75 % of a CPU), as SCHED_DEADLINE
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 1ms/5333us -- sleep 60 &
a=$!; ISO_CHILDREN+=($a)
wait_policy "$a" 6 || {
	r=$(reserve_of "$a")
	case "$r" in fallback*) skip "this kernel does not run SCHED_DEADLINE for isod: $r";; esac
	fail "reservation of $a: kernel $(kernel_sched "$a"), isod says '$r'"
}
[ "$(dl_params "$a")" = 1000000/5333000/5333000 ] || fail "kernel DL parameters $(dl_params "$a")"
[ "$(reserve_of "$a")" = reserved ] || fail "status: '$(reserve_of "$a")', want reserved"
"$ISOCTL" status | grep -E "^ *$a .* iso,reserved " >/dev/null ||
	fail "status text does not say reserved: $("$ISOCTL" status)"
chrt -p "$a" | grep -q SCHED_RESET_ON_FORK || fail "no RESET_ON_FORK: $(chrt -p "$a")"
log "admitted: $(chrt -p "$a" | tr '\n' ' ')"

# refused over the user's cap, with what is left
if as_nobody "$ISOCTL" run --reserve 1ms/5333us -- true 2>"$ISO_TMP/err"; then
	fail "a second 18.75 % was admitted over nobody's $RES_CAP_PCT %"
fi
grep -q "Device or resource busy" "$ISO_TMP/err" || fail "refusal not EBUSY: $(cat "$ISO_TMP/err")"
left=$(grep -oE '[0-9.]+ % left' "$ISO_TMP/err" | cut -d' ' -f1)
/usr/bin/python3 -c "import sys; sys.exit(abs($left - ($RES_CAP_PCT - 18.75)) > 0.01)" ||
	fail "refusal says $left % left, want $RES_CAP_PCT - 18.75: $(cat "$ISO_TMP/err")"
log "refused: $(cat "$ISO_TMP/err")"
# what it said is left is admitted (in us, rounded down)
us=$(grep -oE 'at most [0-9]+ us every 5333 us' "$ISO_TMP/err" | awk '{print $3}')
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve "${us}us/5333us" -- sleep 60 &
b=$!; ISO_CHILDREN+=($b)
wait_policy "$b" 6 || fail "the ${us} us said to be left was not admitted: $(kernel_sched "$b")"
# and then nothing more (1 % of a CPU is more than its rounding dust)
if as_nobody "$ISOCTL" run --reserve 100us/10ms -- true 2>"$ISO_TMP/err"; then
	fail "nobody holds more than its cap"
fi

# another user has a part of its own
setpriv --reuid=daemon --regid=daemon --clear-groups -- "$ISOCTL" run --reserve 1ms/5333us -- sleep 60 &
c=$!; ISO_CHILDREN+=($c)
wait_policy "$c" 6 || fail "daemon's reservation: $(kernel_sched "$c") $(reserve_of "$c")"

# parameters the kernel refuses: EINVAL from isod (50 us period)
if as_nobody "$ISOCTL" run --reserve 10us/50us -- true 2>"$ISO_TMP/err"; then
	fail "a 50 us period was admitted"
fi
grep -q "Invalid argument" "$ISO_TMP/err" || fail "50 us period: $(cat "$ISO_TMP/err")"
# and isoctl's own check
as_nobody "$ISOCTL" run --reserve 2ms/1ms -- true 2>/dev/null && fail "runtime > period accepted"

# release: the thread is SCHED_OTHER, and its bandwidth is given back
as_nobody "$ISOCTL" set --normal "$b" >/dev/null || fail "release of $b"
[ "$(kernel_sched "$b" | cut -d' ' -f1)" = 0 ] || fail "released $b is $(kernel_sched "$b")"
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve "${us}us/5333us" -- sleep 60 &
b2=$!; ISO_CHILDREN+=($b2)
wait_policy "$b2" 6 || fail "bandwidth of released $b not given back: $(kernel_sched "$b2")"
kill "$b2"

# a reservation's children start SCHED_OTHER (RESET_ON_FORK) and isod
# does not adopt them
out=$ISO_TMP/fork.out
as_nobody "$ISOCTL" set --normal "$a" >/dev/null
"${AS_NOBODY[@]}" "$ISOCTL" run --reserve 200us/10ms -- \
	/bin/sh -c 'sleep 30 & echo "child $!"; wait' >"$out" &
f=$!; ISO_CHILDREN+=($f)
wait_policy "$f" 6 || fail "fork test: parent not DEADLINE: $(kernel_sched "$f")"
for _ in $(seq 50); do grep -q '^child ' "$out" && break; sleep 0.1; done
child=$(awk '/^child/{print $2}' "$out")
[ -n "$child" ] || fail "the reservation's shell did not fork: $(cat "$out")"
ISO_CHILDREN+=($child)
[ "$(kernel_sched "$child" | cut -d' ' -f1)" = 0 ] || fail "child $child is $(kernel_sched "$child")"
[ "$(reserve_of "$child")" = untracked ] || fail "child $child adopted: $(reserve_of "$child")"

# where DEADLINE cannot serve: a thread pinned to one CPU of several
# (its affinity does not span the root domain) runs as band ISO_FIFO 99,
# and status says why
if [ "$(nproc)" -ge 2 ]; then
	"${AS_NOBODY[@]}" taskset -c 0 "$ISOCTL" run --reserve 100us/10ms -- sleep 60 &
	p=$!; ISO_CHILDREN+=($p)
	wait_policy "$p" 1 || fail "pinned reservation: kernel $(kernel_sched "$p"), isod '$(reserve_of "$p")'"
	[ "$(kernel_sched "$p")" = "1 40" ] || fail "fallback is $(kernel_sched "$p"), want FIFO 40 (ISO 99)"
	[ "$(reserve_of "$p")" = "fallback(affinity)" ] || fail "status: '$(reserve_of "$p")'"
	grep -q "not served by SCHED_DEADLINE (its CPU affinity does not span its root domain)" \
		"$ISO_TMP/isod.log" || fail "no fallback line in isod's log"
fi
echo PASS
