#!/bin/sh
# Run every C unit test and every bats file; print a TAP stream and a
# final "N passed, N failed" line. Exit 1 when anything failed.
# Environment: TESTS="wlgen lstat" limits the bats files to those names.
cd "$(dirname "$0")/.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
status=0
for u in tests/unit/*.c; do
	b=${u%.c}
	[ -x "$b" ] || { echo "not ok - $b was not built"; status=1; continue; }
	echo "# unit: $b"
	"$b" >"$out" 2>&1 || status=1
	cat "$out"
	grep -E '^(ok|not ok) ' "$out" >>"$out.all"
done
if [ -n "$TESTS" ]; then
	files=$(for t in $TESTS; do echo "tests/$t.bats"; done)
else
	files=$(ls tests/*.bats 2>/dev/null)
fi
if [ -n "$files" ]; then
	echo "# bats: $(echo $files)"
	bats --tap $files >"$out" 2>&1 || status=1
	cat "$out"
	grep -E '^(ok|not ok) ' "$out" >>"$out.all"
fi
pass=$(grep -c '^ok ' "$out.all" 2>/dev/null)
fail=$(grep -c '^not ok ' "$out.all" 2>/dev/null)
rm -f "$out.all"
echo "${pass:-0} passed, ${fail:-0} failed"
[ "${fail:-0}" -eq 0 ] && [ "$status" -eq 0 ]
