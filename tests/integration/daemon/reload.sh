#!/usr/bin/env bash
# SIGHUP re-reads the configuration file; a bad file changes nothing and
# isod keeps serving. Command-line options still win over the file.
source "$SRC_ROOT/tests/integration/lib.sh"
need_root
conf=$(write_config "iso_cpu = 70" "max_threads_per_user = 8")
start_isod --config "$conf" --iso-period 7

cpu() { "$ISOCTL" status --json | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["iso_cpu"], s["iso_period"])'; }
[ "$(cpu)" = "70 7" ] || fail "start: $(cpu)"

write_config "iso_cpu = 50" "iso_period = 3" >/dev/null
kill -HUP "$ISOD_PID"
for _ in $(seq 40); do [ "$(cpu)" = "50 7" ] && break; sleep 0.05; done
[ "$(cpu)" = "50 7" ] || fail "after SIGHUP: $(cpu), want '50 7' (--iso-period beats the file)"

write_config "iso_cpu = lots" >/dev/null
kill -HUP "$ISOD_PID"
# isod logs the refusal once it has read the file and kept the running one
wait_log "new configuration refused" || fail "no refusal logged"
kill -0 "$ISOD_PID" || fail "isod died on a bad configuration"
[ "$(cpu)" = "50 7" ] || fail "a bad file changed the configuration: $(cpu)"
echo "PASS"
