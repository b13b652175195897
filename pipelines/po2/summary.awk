# summary.awk: results.csv (one row per run and lstat group) to one row
# per point (workload, route, load) and group, over the seeds.
#
# Each metric is the mean over the runs (msg_lat for lstat's msg_lat_mean
# and so on). Its *_ci95 is the half-width of
# the 95% confidence interval: over k >= 2 runs (independent seeds),
# t(0.975, k-1) * sd / sqrt(k) of the runs' values; for one run, lstat's
# batch-means half-width for the latencies and nothing for the rest. The
# *_ci95_bm columns pool the runs' batch-means half-widths, sqrt(sum ci^2) / k,
# to compare the two. status is saturated (or the worst status seen) when
# any run of the point was not ok; saturated counts those runs.
#
# Run as: awk -F, -f summary.awk results.csv

function tq(df) {
	# Student's t 0.975 quantile.
	if (df <= 30) return T[df]
	return df <= 60 ? 2.000 : 1.960
}

function worse(a, b) {
	return rank[b] > rank[a] ? b : a
}

BEGIN {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
	      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
	rank["ok"] = 0; rank["stopped"] = 1; rank["saturated"] = 2; rank["deadlock"] = 3
	# Metrics averaged, and those with a batch-means CI from lstat.
	nm = split("offered throughput msg_lat_mean norm_lat_mean pkt_lat_mean " \
		   "msg_lat_p99 pkt_lat_p99 hops_mean pe_util int_util", M, " ")
	CI["msg_lat_mean"] = "msg_lat_ci95"
	CI["norm_lat_mean"] = "norm_lat_ci95"
	CI["pkt_lat_mean"] = "pkt_lat_ci95"
	OFS = ","
}

NR == 1 {
	for (i = 1; i <= NF; i++) c[$i] = i
	for (j = 1; j <= nm; j++)
		if (!(M[j] in c)) { print "summary.awk: no column " M[j] > "/dev/stderr"; exit 1 }
	next
}

{
	key = $c["workload"] OFS $c["route"] OFS $c["load"] OFS $c["group"]
	if (!(key in k)) { order[++nk] = key; st[key] = "ok" }
	k[key]++
	msgs[key] += $c["messages"]
	if ($c["status"] != "ok") { nsat[key]++; st[key] = worse(st[key], $c["status"]) }
	for (j = 1; j <= nm; j++) {
		m = M[j]; v = $c[m]
		if (v == "") { miss[key, m] = 1; continue }
		s1[key, m] += v; s2[key, m] += v * v; n[key, m]++
		last[key, m] = v
		if (m in CI) {
			w = $c[CI[m]]
			if (w == "") bmiss[key, m] = 1
			else { bm[key, m] += w * w; lastci[key, m] = w }
		}
	}
}

END {
	printf "workload,route,load,group,runs,saturated,status,messages"
	for (j = 1; j <= nm; j++) {
		name = M[j]; sub(/_mean$/, "", name)
		printf ",%s,%s", name, name "_ci95"
		if (M[j] in CI) printf ",%s", name "_ci95_bm"
	}
	printf "\n"
	for (i = 1; i <= nk; i++) {
		key = order[i]
		printf "%s,%d,%d,%s,%d", key, k[key], nsat[key], st[key], msgs[key]
		for (j = 1; j <= nm; j++) {
			m = M[j]; cnt = n[key, m]
			mean = ci = pooled = ""
			if (cnt > 0 && !((key, m) in miss)) {
				mean = s1[key, m] / cnt
				if (cnt >= 2) {
					var = (s2[key, m] - cnt * mean * mean) / (cnt - 1)
					ci = tq(cnt - 1) * sqrt(var > 0 ? var : 0) / sqrt(cnt)
				} else if (m in CI && !((key, m) in bmiss))
					ci = lastci[key, m]
				if (m in CI && !((key, m) in bmiss))
					pooled = sqrt(bm[key, m]) / cnt
			}
			fmt = (m ~ /util|throughput|offered/) ? "%.6f" : (m == "hops_mean" ? "%.4f" : "%.3f")
			printf ",%s,%s", mean == "" ? "" : sprintf(fmt, mean), ci == "" ? "" : sprintf(fmt, ci)
			if (m in CI)
				printf ",%s", pooled == "" ? "" : sprintf(fmt, pooled)
		}
		printf "\n"
	}
}
