#!/bin/sh
# Where netrun's instructions go: runs netrun under callgrind on reference
# configurations of the benchmark (by default the 8x8 torus and the PO2
# demo at load 0.9 with derouting) and prints the 10 functions with the
# most instructions of their own, as instructions per packet-hop.
#
# Usage: sh pipelines/bench/profile.sh [config ...]
# A config is a name from bench.sh's section 1 (e.g. po2-0.5-best) or
# "all".  PROFILE_N overrides the number of messages; PROFILE_OUT=dir keeps
# the callgrind profiles there (callgrind.<config>.out) for
# callgrind_annotate or kcachegrind.
#
# PROFILE_TOOL=cachegrind profiles memory and branches instead: netrun
# under cachegrind's cache and branch-prediction simulation (raw output),
# first-level data cache misses and mispredicted branches per packet-hop,
# and the 10 functions with the most of them. Instruction counts do not
# show these stalls, which decide much of the elapsed time at saturation.
cd "$(dirname "$0")/../.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
. pipelines/bench/common.sh

if ! command -v valgrind >/dev/null 2>&1 ||
    ! command -v callgrind_annotate >/dev/null 2>&1; then
	echo "profile: valgrind is not installed (Debian package valgrind)" >&2
	exit 1
fi
freeze_tools wlgen netrun || exit 1
if [ -n "$PROFILE_OUT" ]; then
	mkdir -p "$PROFILE_OUT" || exit 1
fi

# The configuration numbers to profile.
want=
if [ $# -eq 0 ]; then
	want="8 6"
fi
for a in "$@"; do
	i=1 found=
	while ref_config $i; do
		if [ "$a" = all ] || [ "$a" = "$name" ]; then
			want="$want $i"
			found=1
		fi
		i=$((i + 1))
	done
	if [ -z "$found" ]; then
		echo "profile: unknown configuration: $a; one of:" >&2
		i=1
		while ref_config $i; do
			echo "  $name" >&2
			i=$((i + 1))
		done
		exit 2
	fi
done

status=0
for i in $want; do
	ref_config $i
	n=${PROFILE_N:-$cg_n}
	wlgen $wargs -n "$n" --seed 1 --raw -o "$tmp/w.raw" || exit 1
	echo "$name:"
	if [ "$PROFILE_TOOL" = cachegrind ]; then
		echo "  valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes netrun $nargs -k -v --raw -o /dev/null w.raw"
		echo "  (w.raw: wlgen $wargs -n $n --seed 1 --raw)"
		if ! h=$(cachegrind "$tmp/cg.out" "$tmp/w.raw" $nargs); then
			echo "profile: $name: cachegrind run failed:" >&2
			cat "$tmp/cg.out.err" >&2
			status=1
			continue
		fi
		cachegrind_top "$tmp/cg.out" "$h" 10
		echo
		if [ -n "$PROFILE_OUT" ]; then
			cp "$tmp/cg.out" "$PROFILE_OUT/cachegrind.$name.out"
		fi
		continue
	fi
	echo "  valgrind --tool=callgrind netrun $nargs -k -v -o /dev/null w.raw"
	echo "  (w.raw: wlgen $wargs -n $n --seed 1 --raw)"
	if ! set -- $(callgrind "$tmp/cg.out" "$tmp/w.raw" $nargs) ||
	    [ $# -ne 2 ]; then
		echo "profile: $name: callgrind run failed:" >&2
		cat "$tmp/cg.out.err" >&2
		status=1
		continue
	fi
	z=$(cg_lib "$tmp/cg.out" libzstd)
	awk -v ir="$1" -v h="$2" -v z="$z" 'BEGIN {
		printf "  %.0f instructions, %d packet-hops: %.0f per hop", ir, h, ir / h
		printf " (%.0f of them in libzstd)\n\n", z / h }'
	echo "      Ir/hop   share  function"
	cg_top "$tmp/cg.out" "$2" 10
	echo
	if [ -n "$PROFILE_OUT" ]; then
		cp "$tmp/cg.out" "$PROFILE_OUT/callgrind.$name.out"
	fi
done
exit $status
