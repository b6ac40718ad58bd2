# unit_confine.sh — start the test's private isod confined the way
# packaging/isod.service.in confines the real one (sourced by lib.sh when
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
#   LimitNOFILE=            setrlimit (unit_confine.py)
#   ProtectSystem=strict    a private mount namespace (unit_confine.py) in which
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

UNIT_FILE=${UNIT_FILE:-$SRC_ROOT/packaging/isod.service.in}
[ -r "$UNIT_FILE" ] || fail "confined run: cannot read $UNIT_FILE"

# Every [Service] setting used below, parsed in one pass (one awk: this is
# sourced by every test), systemd's way for list settings: assignments
# accumulate, an empty one resets. Sets UNIT_<KEY> for each KEY.
declare -A UNIT_SETTING=()
while IFS='=' read -r key val; do
	UNIT_SETTING[$key]=$val
done < <(awk '
	/^\[/ { sect = $0; next }
	sect != "[Service]" || /^[ \t]*[#;]/ || !/=/ { next }
	{
		k = substr($0, 1, index($0, "=") - 1)
		v = substr($0, index($0, "=") + 1)
		acc[k] = (v == "") ? "" : (acc[k] == "" ? v : acc[k] " " v)
	}
	END { for (k in acc) print k "=" acc[k] }' "$UNIT_FILE")
UNIT_CAPS=${UNIT_SETTING[CapabilityBoundingSet]:-}
UNIT_AMBIENT=${UNIT_SETTING[AmbientCapabilities]:-}
UNIT_NNP=${UNIT_SETTING[NoNewPrivileges]:-}
UNIT_NOFILE=${UNIT_SETTING[LimitNOFILE]:-}
UNIT_PROTECT_SYSTEM=${UNIT_SETTING[ProtectSystem]:-}
UNIT_PROTECT_HOME=${UNIT_SETTING[ProtectHome]:-}
[ -n "$UNIT_CAPS" ] || fail "confined run: no CapabilityBoundingSet= in $UNIT_FILE"

# unit_caps_setpriv VAR "CAP_SYS_NICE CAP_IPC_LOCK": VAR=",+sys_nice,+ipc_lock"
# (setpriv's spelling; no subshell)
unit_caps_setpriv() {
	local -n out=$1
	local c
	out=
	for c in $2; do
		case $c in
		~*) fail "confined run: inverted capability list ($c) not supported";;
		CAP_*) ;;
		*) fail "confined run: unknown capability $c in $UNIT_FILE";;
		esac
		c=${c#CAP_}
		out+=",+${c,,}"
	done
}
unit_caps_setpriv _bnd "$UNIT_CAPS"
unit_caps_setpriv _amb "$UNIT_AMBIENT"
UNIT_SETPRIV=(setpriv "--bounding-set=-all$_bnd" "--inh-caps=-all$_amb" "--ambient-caps=-all$_amb")
case $UNIT_NNP in yes|true|on|1) UNIT_SETPRIV+=(--no-new-privs);; esac
UNIT_SETPRIV+=(--)
UNIT_ROOT_STEP=(/usr/bin/python3 "$SRC_ROOT/tests/integration/unit_confine.py"
	--protect-system "$UNIT_PROTECT_SYSTEM" --protect-home "$UNIT_PROTECT_HOME")
case $UNIT_NOFILE in
'') ;;
*:*) UNIT_ROOT_STEP+=(--nofile "$UNIT_NOFILE");;
*) UNIT_ROOT_STEP+=(--nofile "$UNIT_NOFILE:$UNIT_NOFILE");;
esac

# unit_confine_cmd RWDIR...: sets UNIT_CONFINE, the command prefix that
# runs a program confined as the unit (the program keeps its pid:
# unit_confine.py and setpriv exec the next step).
UNIT_CONFINE=()
unit_confine_cmd() {
	local d
	UNIT_CONFINE=("${UNIT_ROOT_STEP[@]}")
	for d in "$@"; do UNIT_CONFINE+=(--rw "$d"); done
	UNIT_CONFINE+=(-- "${UNIT_SETPRIV[@]}")
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

# UNIT_CAP_MASK: the unit's bounding set as the hex mask of /proc/PID/status.
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
	printf -v UNIT_CAP_MASK '%016x' "$mask"
}
unit_cap_mask

# unit_confine_check PID: is it confined as the unit says? (few forks: it
# runs at every start_isod)
unit_confine_check() {
	local pid=$1 st lim want line field val mnt
	st=$(<"/proc/$pid/status") || fail "confined run: isod $pid is gone"
	want=$UNIT_CAP_MASK
	while IFS=$' \t' read -r field val _; do
		case $field in
		CapBnd:|CapEff:) [ "$val" = "$want" ] ||
			fail "confined run: isod's $field $val, want $want";;
		CapAmb:) [ "$val" = 0000000000000000 ] || fail "confined run: isod has ambient capabilities $val";;
		NoNewPrivs:) case $UNIT_NNP in
			yes|true|on|1) [ "$val" = 1 ] || fail "confined run: isod lacks no_new_privs";;
			esac;;
		esac
	done <<<"$st"
	if [ -n "$UNIT_NOFILE" ]; then
		while read -r line; do
			case $line in
			"Max open files"*) read -r _ _ _ _ lim _ <<<"$line";;
			esac
		done <"/proc/$pid/limits"
		[ "${lim:-}" = "${UNIT_NOFILE##*:}" ] ||
			fail "confined run: isod's hard RLIMIT_NOFILE ${lim:-?}, want ${UNIT_NOFILE##*:}"
	fi
	if [ "$UNIT_PROTECT_SYSTEM" = strict ]; then
		mnt=$(readlink "/proc/$pid/ns/mnt")
		[ "$mnt" != "$(readlink /proc/self/ns/mnt)" ] ||
			fail "confined run: isod is not in its own mount namespace"
	fi
}
