#!/bin/sh
# Regenerate the golden outputs of the packet model from the programs in
# a tools directory: for each line of configs, the messages (and
# dependencies) wlgen writes, every record kind of netrun's output as
# mpcat -c prints it, and lstat --csv. Usage: mkgolden.sh TOOLSDIR
# [OUTDIR] (OUTDIR defaults to this directory). golden.bats runs it on
# the current tools and compares.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: mkgolden.sh TOOLSDIR [OUTDIR]" >&2; exit 2; }
tools=$(cd "$1" && pwd)
out=${2:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Trace paths in configs are relative to the top of the repository.
cd "$here/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
grep -v '^#' "$here/configs" | while IFS='|' read -r name wl sc nr; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	"$tools/wlgen" $wl >"$tmp/msgs.mps"
	if [ "$sc" != - ]; then
		# shellcheck disable=SC2086
		"$tools/sched" $sc "$tmp/msgs.mps" >"$tmp/in.mps"
	else
		cp "$tmp/msgs.mps" "$tmp/in.mps"
	fi
	[ "$nr" != - ] || nr=
	# shellcheck disable=SC2086
	"$tools/netrun" -q $nr "$tmp/in.mps" >"$tmp/out.mps"
	{
		for r in msg inj dep; do
			echo "## $r"
			"$tools/mpcat" -c -r "$r" "$tmp/in.mps"
		done
		for r in pkt dlv util run rel; do
			echo "## $r"
			"$tools/mpcat" -c -r "$r" "$tmp/out.mps"
		done
	} >"$out/$name.csv"
	"$tools/lstat" --csv "$tmp/out.mps" >"$out/$name.lstat.csv"
	"$tools/lstat" --csv --by hops "$tmp/out.mps" >>"$out/$name.lstat.csv"
done
