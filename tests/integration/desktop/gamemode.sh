#!/usr/bin/env bash
# gamemode's soft real time on a mainline kernel (issue 31, item 3).
# gamemoded (Debian's 1.7, softrealtime=on) calls
# sched_setscheduler(game, SCHED_ISO | SCHED_RESET_ON_FORK, {0}) for a game
# registered with gamemoderun: policy 4 at priority 0, on another process
# of its user. Mainline answers EINVAL (checked first, gamemoded without
# the shim); with the shim preloaded into gamemoded (docs/rtkit.md) the
# game's main thread is ISO_RR 1, kernel SCHED_RR at the band's bottom,
# tracked by isod, and gamemoded logs no failure. A game that spins
# without a break is demoted by the burst guard, and not killed. All as
# nobody on a private session bus (desklib.sh).
DESK_RT=isod # what this test checks is isod's
source "$SRC_ROOT/tests/integration/desktop/desklib.sh"
for c in gamemoded gamemoderun; do
	PATH=$PATH:/usr/games command -v "$c" >/dev/null ||
		desk_need "$c is missing (apt-get install gamemode: scripts/install-deps.sh)"
done
[ -n "${PRELOAD:-}" ] && [ -f "$PRELOAD" ] || desk_need "the shim is not built"
desk_session
read -r band_lo _ < <("$ISOCTL" status --json | /usr/bin/python3 -c \
	'import json,sys; b=json.load(sys.stdin)["band"]; print(b[0], b[1])')
# the user's gamemode.ini: soft real time on; no renice, no I/O priority,
# no screensaver (the governor request fails without cpufreq and pkexec:
# gamemoded logs it and goes on)
cat >"$ISO_TMP/cfg/gamemode.ini" <<'INI'
[general]
softrealtime=on
renice=0
inhibit_screensaver=0
igpu_power_threshold=-1
INI
chown nobody:nogroup "$ISO_TMP/cfg/gamemode.ini"

# gm_start NAME [env...]: gamemoded as nobody (its log line-buffered:
# stdbuf), until it owns its bus name: this gamemoded, by its PID. A name
# that is only activatable (busctl lists it, PID "-") is not enough: a
# game registering then makes the bus start a gamemoded of its own, which
# takes the name first (CI saw ours fail with "File exists")
gm_start() {
	local name=$1 i
	shift
	desk_bg "$name" env "$@" stdbuf -oL -eL gamemoded
	GM_PID=$DESK_LAST
	for ((i = 0; i < 200; i++)); do
		nobody_env busctl --user list --no-legend 2>/dev/null |
			awk -v p="$GM_PID" '$1 == "com.feralinteractive.GameMode" && $2 == p { f = 1 } END { exit !f }' &&
			return 0
		kill -0 "$GM_PID" 2>/dev/null || break
		sleep 0.05
	done
	fail "gamemoded did not start: $(cat "$ISO_TMP/$name.log")"
}
# gm_stop: SIGTERM, and wait for gamemoded to exit (its log is complete)
gm_stop() {
	kill -TERM "$GM_PID"
	wait "$GM_PID" 2>/dev/null
}
# game NAME ARGS...: the game through gamemoderun; GAME_PID, then its ready line
game() {
	local name=$1
	shift
	desk_bg "$name" gamemoderun "$GAME" "$@"
	GAME_PID=$DESK_LAST
	wait_file_lines "$ISO_TMP/$name.log" '^ready' 1 10 || fail "$name did not start: $(cat "$ISO_TMP/$name.log")"
}

# --- mainline without the shim: gamemoded's EINVAL -----------------------
gm_start gm-plain
game game-plain --duty 10 --seconds 0.5
wait "$GAME_PID" || fail "the game without the shim failed"
grep -q "^ready tid $GAME_PID policy 0 " "$ISO_TMP/game-plain.log" ||
	fail "without the shim the game is not SCHED_OTHER: $(cat "$ISO_TMP/game-plain.log")"
wait_file_lines "$ISO_TMP/gm-plain.log" "Failed setting client \[$GAME_PID\] into SCHED_ISO mode.*Invalid argument" 1 ||
	fail "gamemoded did not report mainline's EINVAL: $(cat "$ISO_TMP/gm-plain.log")"
gm_stop

# --- with the shim: the game is ISO ---------------------------------------
gm_start gm LD_PRELOAD="$PRELOAD" ISOSCHED_SOCKET="$ISOSCHED_SOCKET"
mark=$(log_line_of .)
game game --duty 30 --seconds 4
# the game says ready before gamemoded has heard of it (gamemoderun's
# registration is its own): wait for isod's line, written after the grant
# is applied (grants.c, grant_announce)
wait_log_after "$mark" "thread $GAME_PID (pid $GAME_PID, uid 65534): SCHED_ISO_RR priority 1 " ||
	fail "isod did not grant the game ISO_RR 1: $(tail -n 20 "$ISO_TMP/isod.log"); gamemoded: $(cat "$ISO_TMP/gm.log")"
read -r pol prio < <(kernel_sched "$GAME_PID")
[ "$pol" = 2 ] && [ "$prio" = "$band_lo" ] ||
	fail "the game's main thread is kernel '$pol $prio', not SCHED_RR at the band's bottom $band_lo"
"$ISOCTL" status --json | /usr/bin/python3 -c '
import json, sys
t = [x for x in json.load(sys.stdin)["threads"] if x["tid"] == int(sys.argv[1])]
sys.exit(not (t and t[0]["policy"] == "SCHED_ISO_RR" and t[0]["prio"] == 1 and t[0]["uid"] == 65534))' "$GAME_PID" ||
	fail "isod does not track the game's thread as ISO_RR 1: $("$ISOCTL" status)"
log "game: $(head -n1 "$ISO_TMP/game.log"); isod: $("$ISOCTL" status | grep " $GAME_PID ")"
# 30 % of each frame: never demoted, runs to its end
wait "$GAME_PID" || fail "the game exited with $?"
grep -q '^frames ' "$ISO_TMP/game.log" || fail "the game did not finish: $(cat "$ISO_TMP/game.log")"
if grep -q "thread $GAME_PID ran [0-9]* ms without blocking" "$ISO_TMP/isod.log"; then
	fail "a game busy 30 % of each frame was demoted"
fi
grep -q "Adding game: $GAME_PID" "$ISO_TMP/gm.log" || fail "gamemoded did not register the game"

# --- a game that spins without a break: demoted, not killed ---------------
game game-spin --duty 30 --spin-after 1 --seconds 4
mark=$(log_line_of .)
wait_file_lines "$ISO_TMP/game-spin.log" '^spinning' 1 5 || fail "the game did not start spinning"
wait_log_after "$mark" "thread $GAME_PID ran [0-9]* ms without blocking: burst guard" ||
	fail "isod did not demote the spinning game: $(tail -n 20 "$ISO_TMP/isod.log")"
log "isod: $(grep "thread $GAME_PID ran" "$ISO_TMP/isod.log" | head -n1)"
kill -0 "$GAME_PID" 2>/dev/null || fail "the spinning game is gone"
wait "$GAME_PID"
rc=$?
[ "$rc" = 0 ] || fail "the spinning game exited with $rc (killed?)"
grep -q '^frames ' "$ISO_TMP/game-spin.log" || fail "the spinning game did not finish: $(cat "$ISO_TMP/game-spin.log")"
gm_stop
grep -c "Adding game" "$ISO_TMP/gm.log" | grep -qx 2 || fail "gamemoded did not register both games: $(cat "$ISO_TMP/gm.log")"
if grep -q "SCHED_ISO" "$ISO_TMP/gm.log"; then
	fail "gamemoded with the shim logged a SCHED_ISO failure: $(cat "$ISO_TMP/gm.log")"
fi
echo PASS
