# tables.awk: the numbers of README.md from summary.csv and model.csv,
# as Markdown: per workload a table at a few loads, the order of the
# strategies at every load, the saturation points, and the model's
# agreement with the simulation.
#
# Run as: awk -F, -v loads='0.10 0.50 0.90' -f tables.awk summary.csv \
#   model.csv results.csv
#
# In an order, a < b means a's mean is lower and the two 95% confidence
# intervals do not overlap; a ~ b means they overlap; a ? b that one has
# no interval across seeds (a single seed), so the order cannot be told.
# A missing interval is never taken as zero. A paired order
# compares the runs of the same seed instead (the strategies see the same
# messages for a seed): a < b when the 95% confidence interval of the
# mean of the per-seed differences b - a excludes 0.

function f(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
function pm(v, h, d) { return v == "" ? "-" : (h == "" ? f(v, d) : f(v, d) " ± " f(h, d)) }
# Latencies: one decimal below 1000 units.
function lat(v, h) { return pm(v, h, v != "" && v + 0 < 1000 ? 1 : 0) }

# The three strategies at workload w, load l into o[1..3], by metric m
# from the lowest; 0 when one of them is missing or not "ok".
function sorted(w, l, m,    i, j, t) {
	for (i = 1; i <= 3; i++) {
		if (!((w, R[i], l, "all") in row) || S[w, R[i], l, "all", "status"] != "ok")
			return 0
		o[i] = R[i]
	}
	for (i = 1; i <= 3; i++)
		for (j = i + 1; j <= 3; j++)
			if (S[w, o[j], l, "all", m] + 0 < S[w, o[i], l, "all", m] + 0) {
				t = o[i]; o[i] = o[j]; o[j] = t
			}
	return 3
}

# The order of the three strategies at workload w, load l, for metric m.
function order(w, l, m,    i, n, s, a, b, ha, hb) {
	if (!(n = sorted(w, l, m)))
		return "(saturated: " sats(w, l) ")"
	s = o[1]
	for (i = 2; i <= n; i++) {
		ha = S[w, o[i-1], l, "all", m "_ci95"]
		hb = S[w, o[i], l, "all", m "_ci95"]
		# One run's interval (batch means) says nothing of the spread
		# over seeds, which is what an order between strategies needs.
		if (ha == "" || hb == "" || S[w, o[i-1], l, "all", "runs"] < 2 ||
		    S[w, o[i], l, "all", "runs"] < 2) {
			s = s " ? " o[i]
			continue
		}
		a = S[w, o[i-1], l, "all", m] + ha
		b = S[w, o[i], l, "all", m] - hb
		s = s (a < b ? " < " : " ~ ") o[i]
	}
	return s
}

# The same order, from the per-seed differences.
function porder(w, l, m,    i, n, s, lo) {
	if (!(n = sorted(w, l, m)))
		return "(saturated)"
	s = o[1]
	for (i = 2; i <= n; i++) {
		lo = pdiff(w, l, m, o[i-1], o[i])
		s = s (lo == "" ? " ? " : lo > 0 ? " < " : " ~ ") o[i]
	}
	return s
}

# Lower end of the 95% CI of the mean per-seed difference b - a at w, l;
# "" with fewer than 2 common seeds.
function pdiff(w, l, m, a, b,    k, n, d, s1, s2, mean, var) {
	n = s1 = s2 = 0
	for (k = 1; k <= nseed; k++)
		if ((w, l, a, SD[k], m) in V && (w, l, b, SD[k], m) in V) {
			d = V[w, l, b, SD[k], m] - V[w, l, a, SD[k], m]
			n++; s1 += d; s2 += d * d
		}
	if (n < 2) return ""
	mean = s1 / n; var = (s2 - n * mean * mean) / (n - 1)
	return mean - tq(n - 1) * sqrt(var > 0 ? var : 0) / sqrt(n)
}

function tq(df) {
	if (df <= 30) return T[df]
	return df <= 60 ? 2.000 : 1.960
}

function sats(w, l,    i, s) {
	s = ""
	for (i = 1; i <= 3; i++)
		if (S[w, R[i], l, "all", "status"] != "ok")
			s = s (s == "" ? "" : ", ") R[i]
	return s
}

BEGIN {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
	      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
	      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
	split("deterministic best derouting", R, " ")
	nl = split(loads, L, " ")
}

FNR == 1 { file++; for (i = 1; i <= NF; i++) c[file, $i] = i; next }

file == 1 {
	w = $c[1, "workload"]; r = $c[1, "route"]; l = $c[1, "load"]; g = $c[1, "group"]
	if (!(w in seenw)) { seenw[w] = 1; W[++nw] = w }
	if (!(l in seenl)) { seenl[l] = 1; AL[++nal] = l }
	row[w, r, l, g] = 1
	for (k in c) {
		split(k, kk, SUBSEP)
		if (kk[1] == 1) S[w, r, l, g, kk[2]] = $c[k]
	}
	next
}

file == 2 {
	w = $c[2, "workload"]; r = $c[2, "route"]
	if ($c[2, "status"] != "ok" || $c[2, "diff_pp"] == "") next
	d = $c[2, "diff_pp"] + 0; dc = $c[2, "diff_carried_pp"] + 0
	n2[w, r]++; sd[w, r] += d; sdc[w, r] += dc
	if (!((w, r) in mx) || (d < 0 ? -d : d) > mx[w, r]) { mx[w, r] = d < 0 ? -d : d; mxl[w, r] = $c[2, "load"]; mxd[w, r] = d }
	if (!((w, r) in mxc) || (dc < 0 ? -dc : dc) > mxc[w, r]) { mxc[w, r] = dc < 0 ? -dc : dc; mxcl[w, r] = $c[2, "load"]; mxcd[w, r] = dc }
	ln = $c[2, "load"]
	if ((w, r, ln) in hn) { hn[w, r, ln]++ } else hn[w, r, ln] = 1
	hs[w, r, ln] += $c[2, "hops_mean"]; ps[w, r, ln] += $c[2, "model_path"]
	rs[w, r, ln] += $c[2, "int_refused"]; dd[w, r, ln] += d; ddc[w, r, ln] += dc
}

file == 3 {
	if ($c[3, "group"] != "all") next
	w = $c[3, "workload"]; r = $c[3, "route"]; l = $c[3, "load"]; sv = $c[3, "seed"]
	if (!(sv in seens)) { seens[sv] = 1; SD[++nseed] = sv }
	V[w, l, r, sv, "msg_lat"] = $c[3, "msg_lat_mean"]
	V[w, l, r, sv, "pkt_lat"] = $c[3, "pkt_lat_mean"]
	V[w, l, r, sv, "pe_util"] = $c[3, "pe_util"]
	V[w, l, r, sv, "int_util"] = $c[3, "int_util"]
}

# figures.awk, loaded after this file with -v figures=1, prints the
# README's blocks from the same arrays instead of these tables.
END { if (!figures) tables() }

function tables() {
	for (i = 1; i <= nw; i++) {
		w = W[i]
		short = ((w, R[1], L[1], "short") in row)
		printf "\n### %s\n\n", w
		printf "| load | strategy | message latency | normalized | packet latency |%s PE util | internal util | status |\n", \
			short ? " short msg latency |" : ""
		printf "|---|---|---|---|---|%s---|---|---|\n", short ? "---|" : ""
		for (j = 1; j <= nl; j++)
			for (k = 1; k <= 3; k++) {
				r = R[k]; l = L[j]
				if (!((w, r, l, "all") in row)) continue
				st = S[w, r, l, "all", "status"]
				sat = st != "ok"
				printf "| %s | %s | %s | %s | %s |", l, r, \
					sat ? "(" pm(S[w, r, l, "all", "msg_lat"], "", 0) ")" : lat(S[w, r, l, "all", "msg_lat"], S[w, r, l, "all", "msg_lat_ci95"]), \
					sat ? "-" : lat(S[w, r, l, "all", "norm_lat"], S[w, r, l, "all", "norm_lat_ci95"]), \
					sat ? "-" : lat(S[w, r, l, "all", "pkt_lat"], S[w, r, l, "all", "pkt_lat_ci95"])
				if (short)
					printf " %s |", sat ? "-" : lat(S[w, r, l, "short", "msg_lat"], S[w, r, l, "short", "msg_lat_ci95"])
				printf " %s | %s | %s |\n", \
					pm(S[w, r, l, "all", "pe_util"], S[w, r, l, "all", "pe_util_ci95"], 3), \
					pm(S[w, r, l, "all", "int_util"], S[w, r, l, "all", "int_util_ci95"], 3), \
					st (S[w, r, l, "all", "saturated"] + 0 > 0 ? " (" S[w, r, l, "all", "saturated"] "/" S[w, r, l, "all", "runs"] ")" : "")
			}
		printf "\nOrders (lowest first; < : 95%% CIs apart, ~ : they overlap, ? : no CI, one seed):\n\n"
		printf "| load | message latency | packet latency | PE util | internal util |\n|---|---|---|---|---|\n"
		for (j = 1; j <= nal; j++) {
			l = AL[j]
			printf "| %s | %s | %s | %s | %s |\n", l, order(w, l, "msg_lat"), order(w, l, "pkt_lat"), \
				order(w, l, "pe_util"), order(w, l, "int_util")
		}
		if (nseed >= 2) {
			printf "\nPaired orders (per-seed differences; < : 95%% CI of the difference excludes 0, ~ : it does not):\n\n"
			printf "| load | message latency | packet latency | PE util | internal util |\n|---|---|---|---|---|\n"
			for (j = 1; j <= nal; j++) {
				l = AL[j]
				printf "| %s | %s | %s | %s | %s |\n", l, porder(w, l, "msg_lat"), porder(w, l, "pkt_lat"), \
					porder(w, l, "pe_util"), porder(w, l, "int_util")
			}
		}
		printf "\nSaturation (status not ok in any run):"
		for (k = 1; k <= 3; k++) {
			r = R[k]; first = ""; lastok = ""
			for (j = 1; j <= nal; j++) {
				l = AL[j]
				if (!((w, r, l, "all") in row)) continue
				if (S[w, r, l, "all", "status"] != "ok") { if (first == "") first = l }
				else if (first == "") lastok = l
			}
			printf " %s: %s;", r, first == "" ? "none up to " AL[nal] : "from " first " (last ok " lastok ")"
		}
		printf "\n\nSimulation minus model (hexflow), internal utilization, runs below saturation, percentage points:\n\n"
		printf "| strategy | runs | mean diff | largest diff (load) | mean diff, carried | largest, carried (load) |\n|---|---|---|---|---|---|\n"
		for (k = 1; k <= 3; k++) {
			r = R[k]
			if (!n2[w, r]) continue
			printf "| %s | %d | %+.2f | %+.2f (%s) | %+.2f | %+.2f (%s) |\n", r, n2[w, r], sd[w, r] / n2[w, r], \
				mxd[w, r], mxl[w, r], sdc[w, r] / n2[w, r], mxcd[w, r], mxcl[w, r]
		}
		printf "\nPer load (mean over the runs below saturation): measured - model (carried), refused internal utilization, simulated hops / model mean path:\n\n"
		printf "| load |"
		for (k = 1; k <= 3; k++) printf " %s |", R[k]
		printf "\n|---|---|---|---|\n"
		for (j = 1; j <= nal; j++) {
			l = AL[j]; printf "| %s |", l
			for (k = 1; k <= 3; k++) {
				r = R[k]; n = hn[w, r, l]
				if (!n) { printf " - |"; continue }
				printf " %+.1f (%+.1f), %.3f, %.2f/%.2f |", dd[w, r, l] / n, ddc[w, r, l] / n, \
					rs[w, r, l] / n, hs[w, r, l] / n, ps[w, r, l] / n
			}
			printf "\n"
		}
	}
}
