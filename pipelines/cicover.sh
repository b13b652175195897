#!/bin/sh
# make cicover: do lstat's 95% confidence intervals cover? Runs the PO2
# study's default point (E6, 10% long, load 0.5, sched --alpha 8, derouting,
# 20000 messages) with SEEDS independent seeds (default 40) and, for message,
# packet and normalized latency, counts the runs whose interval covers the
# grand mean over all runs (a run whose interval is '-' does not cover).
# With honest intervals about 95% cover; 34 of 40 is the bar set for
# lstat(1). Also prints the spread of the run means against the spread the
# intervals imply (half-width / t, about 1.96 here): near 1 when honest.
# Environment: SEEDS, FIRST (first seed, default 1), N (messages per
# run), ARGS (extra lstat options).
set -e
cd "$(dirname "$0")/.."
PATH="$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
SEEDS=${SEEDS:-40}
FIRST=${FIRST:-1}
N=${N:-20000}

s=$FIRST
while [ "$s" -lt $((FIRST + SEEDS)) ]; do
	wlgen --preset po2 --long 10 --load 0.5 -n "$N" --seed "$s" |
		sched --alpha 8 |
		netrun --preset po2 --route derouting --seed "$s" |
		lstat --csv $ARGS | awk -F, -v OFS=, -v s="$s" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == "all" { print s, $c["msg_lat_mean"], $c["msg_lat_ci95"],
				      $c["pkt_lat_mean"], $c["pkt_lat_ci95"],
				      $c["norm_lat_mean"], $c["norm_lat_ci95"],
				      $c["status"] }' >>"$tmp/runs"
	s=$((s + 1))
done
echo "lstat CI coverage: PO2 E6, 10% long, load 0.5, alpha 8, derouting,"
echo "$N messages, seeds $FIRST..$((FIRST + SEEDS - 1))${ARGS:+, lstat $ARGS}"
awk -F, '
{
	n++
	for (k = 0; k < 3; k++) {
		m[n, k] = $(2 + 2 * k); ci[n, k] = $(3 + 2 * k)
		sum[k] += m[n, k]
	}
	if ($8 != "ok") bad++
}
END {
	split("message packet normalized", name, " ")
	printf "%-11s %9s %8s %10s %10s  %s\n", "latency", "grand", "covered",
	    "sd(means)", "sd(CI)", "ratio"
	for (k = 0; k < 3; k++) {
		g = sum[k] / n; cov = 0; ss = 0; cs = 0; nc = 0
		for (i = 1; i <= n; i++) {
			d = m[i, k] - g; ss += d * d
			if (ci[i, k] == "") continue
			nc++; cs += (ci[i, k] / 1.96) ^ 2
			if (d <= ci[i, k] && -d <= ci[i, k]) cov++
		}
		sdm = sqrt(ss / (n - 1)); sdc = nc ? sqrt(cs / nc) : 0
		printf "%-11s %9.2f %5d/%-2d %10.3f %10.3f  %s\n", name[k + 1], g,
		    cov, n, sdm, sdc, (sdc > 0 ? sprintf("%.2f", sdm / sdc) : "-")
		if (nc < n) printf "  (%d runs without an interval; %d of the %d intervals cover)\n", n - nc, cov, nc
	}
	if (bad) printf "note: %d runs not ok\n", bad
}' "$tmp/runs"
