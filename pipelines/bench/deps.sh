#!/bin/sh
# Closed-loop replay (issue 17): netrun on generated dependency traces
# (wlgen --chains: request/response chains between random nodes, each
# message waiting for the one before in its chain) on the cmp preset, at
# 10^5, 10^6 and 10^7 messages: messages per CPU-second and peak RSS
# (GNU time), and the RSS of the largest against the smallest, which
# should stay flat (within 10%): netrun's memory follows the messages
# outstanding, not the trace. A benchmark: it prints, it judges nothing.
#
# Variables: BENCH_BIG=0 leaves out 10^7 messages (a minute or more),
# DEPS_CHAINS (default 64), DEPS_THINK (default 20).
cd "$(dirname "$0")/../.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
. pipelines/bench/common.sh
[ -x /usr/bin/time ] || { echo "bench: needs GNU time as /usr/bin/time" >&2; exit 1; }

chains=${DEPS_CHAINS:-64}
think=${DEPS_THINK:-20}
sizes="100000 1000000"
[ "${BENCH_BIG:-1}" = 0 ] || sizes="$sizes 10000000"

echo "== Closed-loop replay: generated dependency traces (cmp, $chains chains, think $think)"
echo
echo "  wlgen --preset cmp --chains $chains --think $think -n N -o trace.mps"
echo "  /usr/bin/time -v netrun --preset cmp trace.mps -o out.mps"
echo "  lstat out.mps   (makespan, trace_end, dependency wait)"
echo
printf '%-10s %12s %10s %14s %12s %10s %10s\n' messages "CPU s" "elapsed s" "msgs/CPU-s" "peak RSS MB" makespan dep_wait
first=
for n in $sizes; do
	wlgen --preset cmp --chains "$chains" --think "$think" -n "$n" \
	    -o "$tmp/t.mps" || exit 1
	: >"$tmp/time"
	timed "$tmp/time" netrun --preset cmp -q "$tmp/t.mps" \
	    -o "$tmp/o.mps" || exit 1
	read -r el rss cpu <"$tmp/time"
	el=$(printf '%.2f' "$el")
	rss=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
	app=$(lstat --csv "$tmp/o.mps" | tail -1 | cut -d, -f38,40)
	printf '%-10s %12s %10s %14.0f %12s %10s %10s\n' "$n" "$cpu" "$el" \
	    "$(awk -v n="$n" -v c="$cpu" 'BEGIN { print (c > 0 ? n / c : 0) }')" \
	    "$rss" "${app%,*}" "${app#*,}"
	[ -n "$first" ] || first=$rss
	last=$rss
	rm -f "$tmp/t.mps" "$tmp/o.mps"
done
echo
awk -v a="$first" -v b="$last" 'BEGIN {
	printf "peak RSS, largest/smallest: %.3f (flat within 10%%: %s)\n", b / a,
	    (b / a <= 1.10 ? "yes" : "no") }'
