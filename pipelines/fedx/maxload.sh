#!/bin/sh
# Fed-X study (d): the highest sustainable load of one configuration,
# found by bisection. maxload.sh CASE SEED [LO HI] runs points of
# pipelines/fedx/maxload (CASE names a configuration there) through its
# make machinery, so every run is cached like any sweep point, and prints
# one CSV line:
#   case,seed,sustainable,saturated,runs
# the highest load found sustainable and the lowest found saturated, 0.01
# apart, and the number of points it looked at. LO (default 0.50) must be
# sustainable and HI (default 0.95) saturated; when LO is saturated the
# line reads sustainable "" (below LO), when HI is sustainable saturated
# "" (above HI).
#
# A point is saturated when netrun recorded it so (status column:
# backlog limit or its own trend check, growth of the sources' queues by
# more than 5% of the packets offered in the second half of the input),
# or when, over the second half of the input, the packets the fabric
# accepted from the sources fall short of those offered by more than the
# 95% confidence interval of the shortfall (columns q_short and
# q_short_ci95 of growth.sh). The second test is the one that decides in
# practice; it finds overloads of about 1% of the load with the runs of
# pipelines/fedx/maxload.
#
# Environment: OUT, the maxload output directory (default out); MAKE.
set -eu
[ $# -ge 2 ] || { echo "usage: maxload.sh CASE SEED [LO HI]" >&2; exit 2; }
case=$1
seed=$2
dir=$(cd "$(dirname "$0")/maxload" && pwd)
out=${OUT:-out}
make=${MAKE:-make}
# Loads in hundredths.
lo=$(awk -v x="${3:-0.50}" 'BEGIN { printf "%d", x * 100 + 0.5 }')
hi=$(awk -v x="${4:-0.95}" 'BEGIN { printf "%d", x * 100 + 0.5 }')
runs=0

# Prints "sat" or "ok" for load $1 (hundredths).
verdict() {
	load=$(awk -v x="$1" 'BEGIN { printf "%.2f", x / 100 }')
	f=$out/stat/${case}_${load}_${seed}.csv
	$make -s --no-print-directory -C "$dir" "$f" OUT="$out" case="$case" load="$load" seed="$seed" >&2
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["group"] == "all" {
			s = $c["status"] == "saturated" || $c["status"] == "deadlock" ||
			    $c["q_short"] + 0 > $c["q_short_ci95"] + 0
			print s ? "sat" : "ok"; found = 1
		}
		END { if (!found) print "sat" }' "$dir/$f"
}

v=$(verdict "$lo"); runs=1
if [ "$v" = sat ]; then
	echo "$case,$seed,,$(awk -v x="$lo" 'BEGIN { printf "%.2f", x / 100 }'),$runs"
	exit 0
fi
v=$(verdict "$hi"); runs=2
if [ "$v" = ok ]; then
	echo "$case,$seed,$(awk -v x="$hi" 'BEGIN { printf "%.2f", x / 100 }'),,$runs"
	exit 0
fi
while [ $((hi - lo)) -gt 1 ]; do
	mid=$(((lo + hi) / 2))
	v=$(verdict "$mid"); runs=$((runs + 1))
	if [ "$v" = sat ]; then hi=$mid; else lo=$mid; fi
done
awk -v c="$case" -v s="$seed" -v lo="$lo" -v hi="$hi" -v r="$runs" \
	'BEGIN { printf "%s,%s,%.2f,%.2f,%d\n", c, s, lo / 100, hi / 100, r }'
