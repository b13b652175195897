#!/bin/sh
# figures.sh: put a study's generated figures into its README, or check
# that they are there.
#
#   figures.sh README BLOCKS          rewrite README's blocks in place
#   figures.sh -c README BLOCKS       check: exit 1, with a diff, on drift
#
# BLOCKS (a file, or - for standard input) is what a study's generator
# printed: blocks, each a line "@@ NAME" followed by its lines. README
# holds each block between the lines
#   <!-- figures:NAME begin -->
#   <!-- figures:NAME end -->
# and everything between them is replaced by the block's lines. Every
# block of README must be generated, and every generated block must be
# in README once: a name on one side only is an error (exit 1), so a
# figure cannot be dropped or forgotten silently. Text outside the
# markers is left as it is. README is written under a temporary name
# and renamed, and only when it changes. A block named measured-... holds
# what this machine measured (CPU times): it is rewritten, but -c
# compares only that it is there, since a rerun never gives the same.
set -eu
prog=figures.sh
check=0
if [ "${1:-}" = -c ]; then check=1; shift; fi
[ $# -eq 2 ] || { echo "usage: $prog [-c] README BLOCKS" >&2; exit 2; }
readme=$1
blocks=$2
[ -f "$readme" ] || { echo "$prog: $readme: no such file" >&2; exit 1; }
tmp=$(mktemp "$readme.tmpXXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM HUP
# The blocks file first (fed as the first operand), then README.
awk -v prog="$prog" -v readme="$readme" -v check=$check '
	function fail(m) { print prog ": " readme ": " m > "/dev/stderr"; bad = 1; exit 1 }
	# (by name: an empty BLOCKS has no first line to count)
	FNR == 1 { file = FILENAME == ARGV[2] ? 2 : 1 }
	file == 1 {
		if ($0 ~ /^@@ /) {
			name = substr($0, 4)
			if (name in gen) fail("block " name " generated twice")
			gen[name] = 1; n[name] = 0; order[++ng] = name
			next
		}
		if (name == "") fail("generated text before the first block: " $0)
		body[name, ++n[name]] = $0
		next
	}
	{
		if (match($0, /^<!-- figures:[^ ]+ begin -->$/)) {
			if (inside != "") fail("line " FNR ": block " inside " not ended")
			inside = substr($0, 14, length($0) - 23)
			if (!ng) fail("no blocks generated (" ARGV[1] " is empty)")
			if (!(inside in gen)) fail("line " FNR ": block " inside " is not generated")
			if (inside in used) fail("line " FNR ": block " inside " appears twice")
			used[inside] = 1
			print
			keep = check && inside ~ /^measured-/
			if (!keep)
				for (i = 1; i <= n[inside]; i++) print body[inside, i]
			next
		}
		if (match($0, /^<!-- figures:[^ ]+ end -->$/)) {
			e = substr($0, 14, length($0) - 21)
			if (e != inside) fail("line " FNR ": end of " e " outside its block")
			inside = ""
			keep = 0
			print
			next
		}
		if (inside == "" || keep) print
	}
	END {
		if (bad) exit 1
		if (inside != "") fail("block " inside " not ended")
		for (i = 1; i <= ng; i++)
			if (!(order[i] in used))
				fail("generated block " order[i] " has no place (no <!-- figures:" order[i] " begin --> line)")
	}' "$blocks" "$readme" > "$tmp"
if cmp -s "$readme" "$tmp"; then
	exit 0
fi
if [ $check = 1 ]; then
	echo "$prog: $readme: figures differ from what the results give (run the readme target):" >&2
	diff -u "$readme" "$tmp" >&2 || true
	exit 1
fi
mv "$tmp" "$readme"
echo "$prog: $readme: figures rewritten"
