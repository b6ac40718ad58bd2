# scx_iso loads (state enabled, ops iso), pins its maps, and unloads cleanly.
. /t/lib.sh
[ -e /sys/kernel/sched_ext/state ] || { echo "no sched_ext in this kernel"; exit 77; }
is_disabled || fail "a sched_ext scheduler is already loaded"
start_scx
for m in tasks tune cpus; do
	[ -e /sys/fs/bpf/isosched/$m ] || fail "map $m not pinned"
done
scx_iso --dump | grep -q '^tune iso_cpu=70 iso_period_ms=5000' || fail "tune map not initialised"
[ "$(scx_iso --dump | grep -c '^cpu ')" = "$(nproc)" ] || fail "cpus map: one line per CPU expected"
# the machine keeps working under it: a normal spinner gets its CPU time
spin --threads 2 --seconds 1 >"$T/n.out" || fail "spin failed under scx_iso"
[ "$(grep -c '^cpu' "$T/n.out")" = 2 ] || fail "normal spinners did not finish"
kill "$SCX_PID"
wait "$SCX_PID"
rc=$?
SCX_PID=
[ "$rc" = 0 ] || fail "scx_iso exited $rc on SIGTERM"
wait_for 50 is_disabled || fail "not unloaded: $(scx_state)"
[ ! -e /sys/fs/bpf/isosched/tasks ] || fail "maps still pinned after unload"
grep -q "unregistered from user space" "$T/scx.log" || fail "no clean unregister"
pass
