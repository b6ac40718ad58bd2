#!/usr/bin/env bash
# rule_audit — the tests' auditor (tests/integration/audit.sh, python)
# and isod's rule (src/core/iso_rule.c) give the same verdict on every
# case of rule_table's table: the auditor cannot drift from the daemon.
# meson passes RULE_TABLE (the table program) and AUDIT (audit.sh).
set -eu
: "${RULE_TABLE:?}" "${AUDIT:?}"
want=$(mktemp) got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
"$RULE_TABLE" >"$want"
n=$(wc -l <"$want")
[ "$n" -gt 100 ] || { echo "rule_table printed only $n cases"; exit 1; }
# the cases without the daemon's verdict, judged by the auditor
awk '{ $NF = ""; sub(/ $/, ""); print }' "$want" | bash "$AUDIT" --judge >"$got"
if ! diff -u "$want" "$got"; then
	echo "FAIL: audit.sh's judge() and iso_rule_judge disagree (lines above: - isod, + auditor)"
	exit 1
fi
for v in not-rt root tracked rtprio stray; do
	grep -q " $v\$" "$want" || { echo "FAIL: no case in the table gives $v"; exit 1; }
done
echo "PASS: $n cases, the same verdicts"
