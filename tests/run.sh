#!/bin/sh
# Run every C unit test and every bats file; show one line per unit test
# program and per bats file as each finishes, the TAP output of those with
# failures, and last "N passed, N failed, N skipped". Exit 1 when anything
# failed.
# Environment: TESTS="wlgen lstat" limits the bats files to those names;
# JOBS (default 2) bats files run at once.
cd "$(dirname "$0")/.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
JOBS=${JOBS:-2}
case $JOBS in '' | *[!0-9]* | 0) echo "run.sh: JOBS must be a positive integer" >&2; exit 2 ;; esac
status=0

# count FILE: "ok not-ok skipped" of a TAP output.
count() {
	awk '/^ok .*# [sS][kK][iI][pP]/ { s++; next }
	     /^ok / { p++ } /^not ok / { f++ }
	     END { print p + 0, f + 0, s + 0 }' "$1"
}

for u in tests/unit/*.c; do
	b=${u%.c}
	n=$(basename "$b")
	if [ ! -x "$b" ]; then
		echo "not ok - $b was not built" >"$out/unit-$n.tap"
		echo "1" >"$out/unit-$n.rc"
	else
		"$b" >"$out/unit-$n.tap" 2>&1
		echo $? >"$out/unit-$n.rc"
	fi
	set -- $(count "$out/unit-$n.tap")
	echo "# $b: $1 passed, $2 failed, $3 skipped"
done

if [ -n "$TESTS" ]; then
	files=$(for t in $TESTS; do echo "tests/$t.bats"; done)
else
	files=$(ls tests/*.bats 2>/dev/null)
fi
if [ -n "$files" ]; then
	# One bats per file, JOBS at a time; each says how it went when done.
	printf '%s\n' $files | xargs -P "$JOBS" -I{} sh -c '
		f=$1; out=$2; n=$(basename "$f" .bats)
		t0=$(date +%s)
		bats --tap "$f" >"$out/bats-$n.tap" 2>&1
		echo $? >"$out/bats-$n.rc"
		t=$(( $(date +%s) - t0 ))
		awk -v f="$f" -v t="$t" "
			/^ok .*# [sS][kK][iI][pP]/ { s++; next }
			/^ok / { p++ } /^not ok / { x++ }
			END { printf \"# %s: %d passed, %d failed, %d skipped (%d s)\\n\", f, p, x, s, t }
		" "$out/bats-$n.tap"' sh {} "$out"
fi

# The full output of whatever failed.
for tap in "$out"/*.tap; do
	[ -e "$tap" ] || continue
	rc=$(cat "${tap%.tap}.rc" 2>/dev/null || echo 1)
	set -- $(count "$tap")
	if [ "$rc" != 0 ] || [ "$2" -gt 0 ]; then
		status=1
		echo "# ---- $(basename "$tap" .tap) (exit $rc)"
		cat "$tap"
	fi
done

pass=0 fail=0 skip=0
for tap in "$out"/*.tap; do
	[ -e "$tap" ] || continue
	set -- $(count "$tap")
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$status" -eq 0 ]
