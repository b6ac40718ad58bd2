# unit_confine.sh — start the test's private isod confined the way
# packaging/isod.service confines the real one (sourced by lib.sh when
# ISOSCHED_TEST_CONFINED=unit; meson: `meson test --setup unit`).
#
# The directives are read from the unit file itself, so the tests and the
# unit cannot drift apart: add a capability to the unit and the confined
# run grants it; remove one isod needs and the confined run fails.
#
# Reproduced (what decides what isod can do):
#   CapabilityBoundingSet=  setpriv --bounding-set=-all,+... (isod is root,
#                           so its permitted and effective sets become the
#                           bounding set at exec, as under systemd)
#   AmbientCapabilities=    setpriv --inh-caps/--ambient-caps
#   NoNewPrivileges=        setpriv --no-new-privs
#   LimitNOFILE=            prlimit --nofile=SOFT:HARD
#   ProtectSystem=strict    a private mount namespace (unshare -m) in which
#                           every mount is read-only except the test's own
#                           directories (socket, state file): they stand in
#                           for RuntimeDirectory=/run/isosched
#   ProtectKernelTunables=  /proc/sys and /sys read-only there (which also
#   ProtectControlGroups=   covers /sys/fs/cgroup)
#   ProtectHome=yes         an empty, read-only, mode 000 tmpfs over /home
#                           and /root
# Not reproduced, and why:
#   RestrictAddressFamilies=, MemoryDenyWriteExecute=, RestrictNamespaces=,
#   SystemCallArchitectures=, LockPersonality=, RestrictSUIDSGID=,
#   ProtectClock=, ProtectHostname=, ProtectKernelModules/Logs=: systemd
#   implements them as seccomp filters, which no stock tool installs
#   (tests must not use the machine's systemd: no systemd-run). isod only
#   opens AF_UNIX and AF_NETLINK sockets, never maps W+X memory, and makes
#   none of the filtered calls.
#   PrivateTmp=, PrivateDevices=: the test's directory lives in /tmp, so /tmp
#   stays (read-only but for it) instead of being replaced; /dev stays (isod
#   opens only /dev/null, which PrivateDevices= keeps).
#   UMask=, Restart=: not about what isod may do.
#
# Exit code of unit_confine_check: 0 if the running isod is confined as
# the unit says, else the test fails (a test that believes it runs
# confined and does not would prove nothing).

UNIT_FILE=${UNIT_FILE:-$SRC_ROOT/packaging/isod.service}
[ -r "$UNIT_FILE" ] || fail "confined run: cannot read $UNIT_FILE"

# unit_value KEY: the effective value of KEY= in [Service], systemd's way
# for list settings: assignments accumulate, an empty one resets.
unit_value() {
	awk -v key="$1" '
		/^\[/ { sect = $0; next }
		sect != "[Service]" || /^[ \t]*[#;]/ { next }
		index($0, key "=") == 1 {
			v = substr($0, length(key) + 2)
			acc = (v == "") ? "" : (acc == "" ? v : acc " " v)
		}
		END { print acc }' "$UNIT_FILE"
}

# CAP_SYS_NICE CAP_IPC_LOCK -> +sys_nice,+ipc_lock (setpriv's spelling)
unit_caps_setpriv() {
	local c out=
	for c in $1; do
		case $c in
		~*) fail "confined run: inverted capability list ($c) not supported";;
		CAP_*) ;;
		*) fail "confined run: unknown capability $c in $UNIT_FILE";;
		esac
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "$out"
}

UNIT_CAPS=$(unit_value CapabilityBoundingSet)
UNIT_AMBIENT=$(unit_value AmbientCapabilities)
UNIT_NNP=$(unit_value NoNewPrivileges)
UNIT_NOFILE=$(unit_value LimitNOFILE)
UNIT_PROTECT_SYSTEM=$(unit_value ProtectSystem)
UNIT_PROTECT_HOME=$(unit_value ProtectHome)
[ -n "$UNIT_CAPS" ] || fail "confined run: no CapabilityBoundingSet= in $UNIT_FILE"

unit_setpriv_args() {
	local amb
	amb=$(unit_caps_setpriv "$UNIT_AMBIENT")
	echo "--bounding-set=-all$(unit_caps_setpriv "$UNIT_CAPS")"
	echo "--inh-caps=-all$amb"
	echo "--ambient-caps=-all$amb"
	case $UNIT_NNP in yes|true|on|1) echo "--no-new-privs";; esac
}

# The mount namespace's set-up, run by bash inside `unshare -m` before it
# execs setpriv: arguments are the writable directories, then "--", then
# the command.
UNIT_MOUNTS_SCRIPT='
set -e
rw=()
while [ "$1" != -- ]; do rw+=("$1"); shift; done
shift
for w in "${rw[@]}"; do mount --bind "$w" "$w"; done
if [ "$PROTECT_HOME" = yes ]; then
	for h in /home /root /run/user; do
		[ -d "$h" ] && mount -t tmpfs -o ro,mode=000,size=4k none "$h"
	done
fi
if [ "$PROTECT_SYSTEM" = strict ]; then
	mount --bind /proc/sys /proc/sys
	while read -r _ _ _ _ mp _; do
		mp=$(printf "%b" "${mp//\\/\\0}")
		case $mp in
		/proc|/proc/[0-9]*|/dev|/dev/*) continue;;
		esac
		skip=
		for w in "${rw[@]}"; do [ "$mp" = "$w" ] && skip=1; done
		[ -n "$skip" ] || mount -o remount,bind,ro "$mp" 2>/dev/null || true
	done </proc/self/mountinfo
fi
exec "$@"
'

# unit_confine_cmd RWDIR...: sets UNIT_CONFINE, the command prefix that
# runs a program confined as the unit (the program keeps its pid: every
# step execs the next).
UNIT_CONFINE=()
unit_confine_cmd() {
	local nofile=()
	if [ -n "$UNIT_NOFILE" ]; then
		case $UNIT_NOFILE in
		*:*) nofile=(prlimit "--nofile=$UNIT_NOFILE" --);;
		*) nofile=(prlimit "--nofile=$UNIT_NOFILE:$UNIT_NOFILE" --);;
		esac
	fi
	mapfile -t _sp < <(unit_setpriv_args)
	UNIT_CONFINE=("${nofile[@]}" env PROTECT_SYSTEM="$UNIT_PROTECT_SYSTEM"
		PROTECT_HOME="$UNIT_PROTECT_HOME"
		unshare -m --propagation private -- bash -c "$UNIT_MOUNTS_SCRIPT" unit-mounts
		"$@" -- setpriv "${_sp[@]}" --)
}

# The capability numbers of linux/capability.h, in order (for the mask
# /proc/PID/status shows).
UNIT_CAP_NAMES=(chown dac_override dac_read_search fowner fsetid kill setgid
	setuid setpcap linux_immutable net_bind_service net_broadcast net_admin
	net_raw ipc_lock ipc_owner sys_module sys_rawio sys_chroot sys_ptrace
	sys_pacct sys_admin sys_boot sys_nice sys_resource sys_time
	sys_tty_config mknod lease audit_write audit_control setfcap
	mac_override mac_admin syslog wake_alarm block_suspend audit_read
	perfmon bpf checkpoint_restore)

# The unit's bounding set as the hex mask of /proc/PID/status.
unit_cap_mask() {
	local c n mask=0 name
	for c in $UNIT_CAPS; do
		name=${c#CAP_}
		name=${name,,}
		for n in "${!UNIT_CAP_NAMES[@]}"; do
			[ "${UNIT_CAP_NAMES[$n]}" = "$name" ] && break
		done
		[ "${UNIT_CAP_NAMES[$n]}" = "$name" ] || fail "confined run: unknown capability $c"
		mask=$((mask | (1 << n)))
	done
	printf '%016x\n' "$mask"
}

# unit_confine_check PID: is it confined as the unit says?
unit_confine_check() {
	local st want lim
	st=$(cat "/proc/$1/status") || fail "confined run: isod $1 is gone"
	want=$(unit_cap_mask)
	echo "$st" | grep -q "^CapBnd:[[:space:]]*$want$" ||
		fail "confined run: isod's bounding set $(echo "$st" | awk '/^CapBnd/{print $2}'), want $want"
	echo "$st" | grep -q "^CapEff:[[:space:]]*$want$" ||
		fail "confined run: isod's effective set $(echo "$st" | awk '/^CapEff/{print $2}'), want $want"
	echo "$st" | grep -q '^CapAmb:[[:space:]]*0*$' || fail "confined run: isod has ambient capabilities"
	case $UNIT_NNP in
	yes|true|on|1) echo "$st" | grep -q '^NoNewPrivs:[[:space:]]*1$' ||
		fail "confined run: isod lacks no_new_privs";;
	esac
	if [ -n "$UNIT_NOFILE" ]; then
		lim=$(awk '/^Max open files/{print $5}' "/proc/$1/limits")
		[ "$lim" = "${UNIT_NOFILE##*:}" ] ||
			fail "confined run: isod's hard RLIMIT_NOFILE $lim, want ${UNIT_NOFILE##*:}"
	fi
	if [ "$UNIT_PROTECT_SYSTEM" = strict ]; then
		[ "$(readlink "/proc/$1/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
			fail "confined run: isod is not in its own mount namespace"
	fi
}
