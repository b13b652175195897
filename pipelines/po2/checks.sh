#!/bin/sh
# checks.sh OUT WARMUP: the one-off runs README.md cites beside the sweep,
# each on a message stream of the sweep (OUT/msg) with one netrun option
# changed, as one CSV: the check's name, model.sh's row of the run
# (measured and modelled utilization, hops, model path) and lstat's
# message latency with its batch-means interval. A run whose status is
# not ok (a deadlock) still gives its row.
#
#   bp-none-<load>   long80, derouting, seed 1, no backpressure (--bp none)
#   bp-message-<load> the sweep's own run of that point (message backpressure)
#   notify-<load>    long80, derouting, seed 1, --retry notify
#   immediate-<load> the sweep's own run (immediate retries)
set -eu
out=$1
warm=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM HUP
hdr=
# one NAME LOAD [NETRUN-OPTIONS...]: the row of one run (the sweep's own
# deliveries when no option is given).
one() {
	name=$1 load=$2
	shift 2
	msg=$out/msg/long80_${load}_1.mps
	[ -f "$msg" ] || { echo "checks.sh: $msg: no such stream: run the full sweep first" >&2; exit 1; }
	dlv=$out/dlv/long80_derouting_${load}_1.mps
	if [ $# -gt 0 ]; then
		dlv=$tmp/d.mps
		# A deadlock is a result here (netrun exits 1, its records
		# complete); any other failure is not.
		sched --alpha 0 "$msg" | netrun --preset po2 --route derouting -k --seed 1 "$@" > "$dlv" 2> "$tmp/err" ||
			grep -q '^netrun: deadlock' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	fi
	lstat --csv --warmup "$warm" "$dlv" |
		awk -v pre="long80,derouting,$load,1" 'BEGIN { FS = OFS = "," }
			NR == 1 { print "workload,route,load,seed," $0; next } { print pre, $0 }' > "$tmp/s.csv"
	"$here/model.sh" "$tmp/s.csv" "$dlv" > "$tmp/m.csv"
	lat=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["group"] == "all" { print $c["msg_lat_mean"] "," $c["msg_lat_ci95"] }' "$tmp/s.csv")
	if [ -z "$hdr" ]; then
		echo "check,$(head -n 1 "$tmp/m.csv"),msg_lat_mean,msg_lat_ci95"
		hdr=1
	fi
	echo "$name,$(tail -n 1 "$tmp/m.csv"),$lat"
}
one bp-message-0.40 0.40
one bp-none-0.40 0.40 --bp none
one bp-none-0.60 0.60 --bp none
one immediate-0.70 0.70
one notify-0.70 0.70 --retry notify
