#!/usr/bin/env bash
# Escape: a granted thread execs a setuid-root program. The kernel keeps
# the thread's SCHED_FIFO across the exec; the program then runs with euid
# 0 but real uid nobody. Three ways:
#  A. a non-main thread execs a setuid copy of sleep (made in the test's
#     temp dir; the system is not modified): the program runs untracked
#     under the process id — a stray (a user's real uid), demoted;
#  B. the main thread does: the same thread stays tracked, but a program
#     that changes identity is not the client's to run as ISO: isod
#     withdraws ISO at the exec event and demotes it;
#  C. a non-main thread execs the system's /usr/bin/passwd --help (setuid,
#     exits at once): nothing may be left behind.
source "$SRC_ROOT/tests/integration/lib.sh"
source "$SRC_ROOT/tests/integration/escape/elib.sh"
need_root
suid=$ISO_TMP/suid-sleep
cp /usr/bin/sleep "$suid" && chown root:root "$suid" && chmod 4755 "$suid" || skip "cannot make a setuid copy"
case "$(findmnt -n -o OPTIONS -T "$ISO_TMP")" in *nosuid*) skip "$ISO_TMP is nosuid";; esac

start_policing_isod
# A
"${NOBODY[@]}" "$ESCAPETOOL" exec-thread "$ESC_LIFE" "$suid" "$ESC_LIFE" >"$ISO_TMP/a.out" 2>&1 &
ISO_CHILDREN+=($!); a=$!
wait_for "$ISO_TMP/a.out" '^granted ' || fail "A did not run: $(cat "$ISO_TMP/a.out")"
sleep 0.3
grep -q '^Uid:.*65534.*0' "/proc/$a/status" 2>/dev/null || log "A: setuid did not take: $(grep Uid "/proc/$a/status")"
wait_not_rt "$a" 20 || fail "A: the setuid program $a is kernel RT untracked: $(kernel_sched "$a")"
stray_logged "$a" "$a" || fail "A: no stray line for $a"
audit_ok "A: exec of a setuid program from a non-main thread"
# B
"${NOBODY[@]}" "$ESCAPETOOL" exec-main "$ESC_LIFE" "$suid" "$ESC_LIFE" >"$ISO_TMP/b.out" 2>&1 &
ISO_CHILDREN+=($!); b=$!
wait_for "$ISO_TMP/b.out" '^granted ' || fail "B did not run: $(cat "$ISO_TMP/b.out")"
wait_not_rt "$b" 20 || fail "B: the setuid program $b is still kernel RT: $(kernel_sched "$b")"
wait_log "thread $b (process $b, uid 65534) exec'd a program that changes its identity" ||
	fail "B: isod did not say it withdrew ISO from $b"
audit_ok "B: exec of a setuid program from the main thread"
# C
as_nobody "$ESCAPETOOL" exec-thread 2 /usr/bin/passwd --help >"$ISO_TMP/c.out" 2>&1
grep -q '^granted ' "$ISO_TMP/c.out" || fail "C did not run: $(cat "$ISO_TMP/c.out")"
audit_ok "C: passwd --help from a non-main thread"
echo PASS
