# portal_app.sh — the "sandboxed app" of portal.sh, run inside bwrap: its
# own sleeper, then one Realtime portal call per pid read from /req (a
# fifo; the pid as the app sees it, in its PID namespace), the outcome of
# each printed. Bounded by the sleeper and by timeout.
sleep 60 &
echo "sleeper $!"
exec 3<>/req
while read -r -t 60 p <&3; do
	if out=$(busctl --user call org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop \
		org.freedesktop.portal.Realtime MakeThreadRealtimeWithPID ttu "$p" "$p" 20 2>&1); then
		echo "ask $p ok"
	else
		echo "ask $p error $out"
	fi
done
