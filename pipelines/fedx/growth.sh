#!/bin/sh
# Queue growth of one Fed-X run, for the saturation test of maxload.sh:
# growth.sh DELIVERIES WARMUP prints lstat's CSV (--warmup WARMUP) with
# five columns added to every row, measured over the second half of the
# input (from half the last arrival time to the last arrival, as netrun's
# own trend check), cut into 32 equal time batches:
#   q_offered      packets arriving at the sources, in load units
#   q_accepted     packets the fabric accepted from them, in load units
#   q_short        mean of offered - accepted over the batches
#   q_short_ci95   its 95% half-width (Student t, 31 degrees of freedom)
#   q_batches      32
# A load is sustainable while accepted keeps up with offered: q_short > 0
# by more than q_short_ci95 means the sources' queues grow. Unlike
# lstat's throughput, the window ends at the last arrival, so the time
# the fabric takes to drain after the input does not count as shortfall.
set -eu
f=$1
warmup=$2
hdr=$(mpcat -H "$f")
nodes=$(printf '%s\n' "$hdr" | sed -n 's/^nodes=//p')
pe=$(printf '%s\n' "$hdr" | sed -n 's/^pe_time=//p')
q=$({ mpcat -c -r dlv "$f"; mpcat -c -r pkt "$f"; } | awk -F, -v n="$nodes" -v pe="$pe" '
	# Columns by name; a header row starts each section.
	$1 == "class" {
		sec = ($3 == "flags") ? "pkt" : "dlv"
		for (i = 1; i <= NF; i++) col[sec, $i] = i
		if (sec == "pkt") {
			t1 = tlast; t0 = tlast / 2; w = (t1 - t0) / K
			for (i = 1; i <= na; i++) bin(at[i], ap[i], off)
		}
		next
	}
	sec == "dlv" { na++; at[na] = $col["dlv", "t_arrive"]; ap[na] = $col["dlv", "packets"]
		if (at[na] > tlast) tlast = at[na]; next }
	{ bin($col["pkt", "t_inject"], 1, acc) }
	function bin(t, k, a,   b) {
		if (t < t0 || t >= t1 || w <= 0) return
		b = int((t - t0) / w); if (b >= K) b = K - 1
		a[b] += k
	}
	BEGIN { K = 32; tq = 2.0395 }
	END {
		if (w <= 0) { print ",,,,"; exit }
		f = pe / (n * w)
		for (b = 0; b < K; b++) {
			o = off[b] * f; x = acc[b] * f; d = o - x
			so += o; sx += x; sd += d; sd2 += d * d
		}
		m = sd / K; v = (sd2 - K * m * m) / (K - 1); if (v < 0) v = 0
		printf "%.6f,%.6f,%.6f,%.6f,%d\n", so / K, sx / K, m, tq * sqrt(v / K), K
	}')
lstat --csv --warmup "$warmup" "$f" | awk -v q="$q" '
	NR == 1 { print $0 ",q_offered,q_accepted,q_short,q_short_ci95,q_batches"; next }
	{ print $0 "," q }'
