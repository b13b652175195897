#!/bin/sh
# study.sh OUT: run the points of the ncube study and write OUT/*.csv
# (see Makefile). QUICK=1: fewer units and seeds. JOBS: runs at a time.
# ONLY=PART (stages, crossbar, load, slow, local): that part's runs and
# CSVs alone.
# Each run: wlgen declares saturated (or probability-P) model sources,
# netrun's ncube model generates and routes them, lstat measures after a
# warm-up of a fifth of the run; the CSVs give the mean over seeds and
# the 95% half-width (Student's t).
out=${1:-out}
mkdir -p "$out/runs" || exit 1
jobs=${JOBS:-2}
if [ -n "$QUICK" ]; then
	units=400 seeds="1 2 3" stages_max=11
else
	units=2000 seeds="1 2 3 4 5" stages_max=11
fi
warm=$((units / 5))

# run ID NET MODEL P LSTAT WL: one run into $out/runs/ID.csv (lstat's CSV
# row of all) on the network NET (wlgen's and netrun's options) with the
# model options MODEL and wlgen's WL; the message count gives about
# $units units at 0.7 per input.
run() {
	id=$1 net=$2 model=$3 p=$4 extra=$5 wl=$6
	f="$out/runs/$id.csv"
	[ -s "$f" ] && return 0
	# inputs: from the topology
	n=$(netrun --preset ncube $net --show-config | awk '
		/^--topo/ { split($2, a, /[:,x]/); if (a[1] == "crossbar") print a[2];
			    else if (a[1] == "grid") print a[2] * a[3];
			    else { x = 1; for (i = 0; i < a[3]; i++) x *= a[2]; print x } }')
	msgs=$(awk -v n="$n" -v u="$units" -v p="$p" 'BEGIN { printf "%d", n * u * p * 0.7 + 100 }')
	seed=${id##*_s}
	# shellcheck disable=SC2086
	wlgen --preset ncube $net $wl --arrival "model:$p" -n "$msgs" --seed "$seed" |
		netrun --preset ncube $net $model --seed "$seed" -q |
		lstat --csv --warmup-time "$warm" $extra > "$f.tmp" &&
		mv "$f.tmp" "$f"
}

# The points, one per line: ID|NET|MODEL|P|LSTAT|WL
points() {
	for s in $seeds; do
		d=1
		while [ $d -le "$stages_max" ]; do
			for b in 1 2 3 5 10; do
				echo "stages_perfect_d${d}_b${b}_s$s|--stages $d|--fifo $b|1|"
				echo "stages_prob_d${d}_b${b}_s$s|--stages $d|--fifo $b --sink prob:0.75|1|"
			done
			d=$((d + 1))
		done
		for n in 2 4 8 16 32 64 128 256; do
			echo "crossbar_n${n}_s$s|--topo crossbar:$n||1|"
		done
		for p in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1; do
			echo "load_p${p}_s$s|--stages 6|--fifo 2|$p|"
		done
		d=1
		while [ $d -le 8 ]; do
			echo "slow_d${d}_b1_s$s|--stages $d|--fifo 1|1|--slow-inputs 4"
			echo "slow_d${d}_b2_s$s|--stages $d|--fifo 2|1|--slow-inputs 16"
			echo "slow_d${d}_b5_s$s|--stages $d|--fifo 5|1|--slow-inputs 25"
			d=$((d + 1))
		done
		# grids and trees of 64 terminals, saturated, under local
		# traffic (within L hops) and uniform
		for b in 2 5; do
			for L in 1 2 4 uniform; do
				dest="--dest local:$L" tl=local$L
				[ $L = uniform ] && dest="" tl=uniform
				echo "local_ngrid8x8_d${tl}_b${b}_s$s|--topo grid:8x8|--fifo $b|1||$dest"
				echo "local_ntree2-6_d${tl}_b${b}_s$s|--topo tree:2,6|--fifo $b|1||$dest"
				echo "local_ntree4-3_d${tl}_b${b}_s$s|--topo tree:4,3|--fifo $b|1||$dest"
			done
		done
	done
}

# Run the points JOBS at a time.
points | grep "^${ONLY:-}" > "$out/points.txt"
i=0
while IFS='|' read -r id net model p extra wl; do
	run "$id" "$net" "$model" "$p" "$extra" "$wl" &
	i=$((i + 1))
	[ $((i % jobs)) -eq 0 ] && wait
done < "$out/points.txt"
wait
for id in $(cut -d'|' -f1 "$out/points.txt"); do
	[ -s "$out/runs/$id.csv" ] || { echo "ncube: run $id failed" >&2; exit 1; }
done

# summarize PREFIX KEYS COLS: one row per point (the run id without its
# prefix and seed; its fields are the KEYS, a letter then the value) with
# the mean and 95% half-width over seeds of lstat's columns COLS.
summarize() {
	prefix=$1 keys=$2 want=$3
	for f in "$out/runs/$prefix"_*.csv; do
		id=$(basename "$f" .csv)
		key=${id%_s*}
		key=${key#"$prefix"_}
		awk -F, -v key="$key" -v want="$want" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
			NR == 2 { line = key; n = split(want, w, ",")
				  for (j = 1; j <= n; j++) line = line " " ($c[w[j]] == "" ? "nan" : $c[w[j]])
				  print line }' "$f"
	done | awk -v keys="$keys" -v want="$want" '
	BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", tq, " ")
		nw = split(want, w, ",") }
	{
		key = $1
		if (!(key in cnt)) order[++nk] = key
		cnt[key]++
		for (j = 1; j <= nw; j++) {
			x = $(j + 1)
			if (x == "nan") { bad[key, j] = 1; continue }
			s[key, j] += x; s2[key, j] += x * x
		}
	}
	END {
		line = keys
		for (j = 1; j <= nw; j++) line = line "," w[j] "," w[j] "_ci95"
		print line ",seeds"
		for (k = 1; k <= nk; k++) {
			key = order[k]; n = cnt[key]
			nkv = split(key, kv, "_"); line = ""
			for (i = 1; i <= nkv; i++)
				line = line (i > 1 ? "," : "") substr(kv[i], 2)
			for (j = 1; j <= nw; j++) {
				if (bad[key, j]) { line = line ",,"; continue }
				m = s[key, j] / n
				var = n > 1 ? (s2[key, j] - n * m * m) / (n - 1) : 0
				if (var < 0) var = 0
				ci = n > 1 ? tq[n - 1 <= 9 ? n - 1 : 9] * sqrt(var / n) : 0
				line = line sprintf(",%.6f,%.6f", m, ci)
			}
			print line "," n
		}
	}'
}

# header, then the rows sorted numerically by the given keys
sorted() {
	awk 'NR == 1' "$1"
	# shellcheck disable=SC2086
	awk 'NR > 1' "$1" | sort -t, $2
}

part() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
if part stages; then
summarize stages_perfect "stages,fifo" "throughput" > "$out/a.tmp"
summarize stages_prob "stages,fifo" "throughput" > "$out/b.tmp"
{
	awk 'NR == 1 { print "sink," $0 }' "$out/a.tmp"
	awk 'NR > 1 { print "perfect," $0 }' "$out/a.tmp" | sort -t, -k3,3n -k2,2n
	awk 'NR > 1 { print "prob:0.75," $0 }' "$out/b.tmp" | sort -t, -k3,3n -k2,2n
} > "$out/stages.csv"
fi
if part crossbar; then
summarize crossbar "n" "throughput" > "$out/a.tmp"
sorted "$out/a.tmp" -k1,1n > "$out/crossbar.csv"
fi
if part load; then
summarize load "p" "throughput,pkt_lat_mean" > "$out/a.tmp"
sorted "$out/a.tmp" -k1,1g > "$out/load.csv"
fi
if part slow; then
summarize slow "stages,fifo" "throughput,slow_time,slow_rate" > "$out/a.tmp"
sorted "$out/a.tmp" "-k2,2n -k1,1n" > "$out/slow.csv"
fi
if part local; then
summarize local "net,dest,fifo" "throughput,pkt_lat_mean,hops_mean" > "$out/a.tmp"
sorted "$out/a.tmp" "-k1,1 -k3,3n -k2,2" > "$out/local.csv"
fi
rm -f "$out/a.tmp" "$out/b.tmp"
echo "ncube: $(wc -l < "$out/points.txt") runs; CSVs in $out/"
