#!/bin/sh
# make demo: the default pipeline on the built-in PO2 configuration (E6,
# 10% long messages, offered load 0.5) for the three routing strategies,
# as one table; then lstat's full table for derouting by message length.
set -e
cd "$(dirname "$0")/.."
PATH="$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

n=20000
warm=2000
echo "PO2 fabric E6 (91 nodes), bimodal messages with 10% long (25 packets),"
echo "offered load 0.5, $n messages, seed 1, first $warm messages discarded."
echo
wlgen --preset po2 --long 10 --load 0.5 -n $n --seed 1 -o "$tmp/w.mps"
for r in deterministic best derouting; do
	sched --alpha 0 "$tmp/w.mps" | netrun --preset po2 --route $r -k \
		-o "$tmp/$r.mps"
	lstat --csv --warmup $warm "$tmp/$r.mps" >"$tmp/$r.csv"
done
awk -F, '
BEGIN {
	printf "%-14s %10s %8s %9s %9s %9s %6s %8s %8s  %s\n", "strategy",
	    "msg_lat", "+-ci95", "norm_lat", "pkt_lat", "pkt_p99", "hops",
	    "pe_util", "int_util", "status"
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$1 == "all" {
	s = FILENAME; sub(/.*\//, "", s); sub(/\.csv$/, "", s)
	printf "%-14s %10.1f %8.1f %9.1f %9.1f %9.1f %6.3f %8.4f %8.4f  %s\n", s,
	    $col["msg_lat_mean"], $col["msg_lat_ci95"], $col["norm_lat_mean"],
	    $col["pkt_lat_mean"], $col["pkt_lat_p99"], $col["hops_mean"],
	    $col["pe_util"], $col["int_util"], $col["status"]
}' "$tmp/deterministic.csv" "$tmp/best.csv" "$tmp/derouting.csv"
echo
echo "Latencies in units (one unit = one byte time on a port); utilizations"
echo "as fractions of time busy (refused attempts included)."
echo
echo "lstat --by length, derouting:"
lstat --by length --warmup $warm "$tmp/derouting.mps"
echo
echo "To run these programs yourself, put them on your PATH (or make install):"
echo "  export PATH=\"$PWD/tools:\$PATH\""
