# figures.awk: the figures README.md quotes, as blocks for ../figures.sh
# ("@@ name" and its lines), from a finished sweep. Loaded after
# tables.awk, whose arrays it reads (S: summary, V: per-seed values,
# model sums), with the same files and a fourth, checks.csv:
#
#   awk -F, -v figures=1 -v nmsg='200000 40000 10000' -v warmup=10 \
#     -v loads_uniform='0.10 0.50 0.70 0.90' -v loads_bursty='...' \
#     -f tables.awk -f figures.awk summary.csv model.csv results.csv checks.csv
#
# Every number of README.md between figures markers comes from here; the
# text around the blocks says what they show without quoting figures.

function pct(a, b) { return sprintf("%.1f%%", 100 * (a - b) / b) }
function ratio(a, b) { return b > 0 ? a / b : 0 }
function pmv(w, r, l, m, g) { return lat(S[w, r, l, g == "" ? "all" : g, m], S[w, r, l, g == "" ? "all" : g, m "_ci95"]) }
function u3(w, r, l, m) { return f(S[w, r, l, "all", m], 3) }
function ok(w, r, l) { return ((w, r, l, "all") in row) && S[w, r, l, "all", "status"] == "ok" }
function has(w, r, l) { return (w, r, l, "all") in row }
function listjoin(a, n, sep,    i, s) { s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? sep : "") a[i]; return s }

# Loads (from AL, in order) where order(w, l, m) reads exactly want.
function loads_where(w, m, want, paired,    j, l, o, s, first, prev, k) {
	s = ""; k = 0
	for (j = 1; j <= nal; j++) {
		l = AL[j]
		o = paired ? porder(w, l, m) : order(w, l, m)
		if (o == want) { if (first == "") first = l; prev = l; k++ }
		else if (first != "") { s = s (s == "" ? "" : ", ") (first == prev ? first : first "-" prev); first = "" }
	}
	if (first != "") s = s (s == "" ? "" : ", ") (first == prev ? first : first "-" prev)
	return s == "" ? "none" : s
}

# The table of a workload at the loads ld (space-separated).
function table(w, ld,    nl2, LL, j, k, r, l, st, sat, short) {
	short = ((w, R[1], AL[1], "short") in row)
	nl2 = split(ld, LL, " ")
	printf "| load | strategy | message latency | normalized | packet latency |%s PE util | internal util | status |\n", \
		short ? " short |" : ""
	printf "|---|---|---|---|---|%s---|---|---|\n", short ? "---|" : ""
	for (j = 1; j <= nl2; j++)
		for (k = 1; k <= 3; k++) {
			r = R[k]; l = LL[j]
			if (!has(w, r, l)) continue
			st = S[w, r, l, "all", "status"]; sat = st != "ok"
			printf "| %s | %s | %s | %s | %s |", l, r, \
				sat ? "(" pm(S[w, r, l, "all", "msg_lat"], "", 0) ")" : pmv(w, r, l, "msg_lat"), \
				sat ? "-" : pmv(w, r, l, "norm_lat"), sat ? "-" : pmv(w, r, l, "pkt_lat")
			if (short) printf " %s |", sat ? "-" : pmv(w, r, l, "msg_lat", "short")
			printf " %s | %s | %s |\n", pm(S[w, r, l, "all", "pe_util"], S[w, r, l, "all", "pe_util_ci95"], 3), \
				pm(S[w, r, l, "all", "int_util"], S[w, r, l, "all", "int_util_ci95"], 3), \
				st (S[w, r, l, "all", "saturated"] + 0 > 0 ? " (" S[w, r, l, "all", "saturated"] " of " S[w, r, l, "all", "runs"] ")" : "")
		}
}

# "deterministic from 0.75 (1 of 5 runs; all from 0.80)" per strategy.
function satline(w,    k, r, j, l, first, all, s, lastok) {
	s = ""
	for (k = 1; k <= 3; k++) {
		r = R[k]; first = all = lastok = ""
		for (j = 1; j <= nal; j++) {
			l = AL[j]
			if (!has(w, r, l)) continue
			if (S[w, r, l, "all", "status"] != "ok") {
				if (first == "") { first = l; fk = S[w, r, l, "all", "saturated"]; fn = S[w, r, l, "all", "runs"] }
				if (all == "" && S[w, r, l, "all", "saturated"] == S[w, r, l, "all", "runs"]) all = l
			} else if (first == "") lastok = l
		}
		LASTOK[w, r] = lastok
		s = s sprintf("%s%s: %s", s == "" ? "" : "; ", r, first == "" ? "none up to " AL[nal] : \
			"from " first " (" fk " of " fn " runs" (all == "" ? "" : all == first ? "" : "; all from " all) ")")
	}
	return s
}

function block(n) { printf "@@ %s\n", n }
function ord2(w, l, m,    a, b) {
	a = order(w, l, m); b = porder(w, l, m)
	if (a ~ /^\(saturated/) return a
	return a == b ? a : a " (paired: " b ")"
}

END {
	if (!figures) exit
	split(nmsg, NM, " "); nseeds = nseed
	uni = "uniform"; l10 = "long10"; l80 = "long80"

	block("po2-axes")
	printf "| axis | values |\n|---|---|\n"
	printf "| workload | `uniform` (single-packet messages), `long10` (bimodal: 90%% of 1-5 packets, 10%% of 25), `long80` (80%% long) |\n"
	printf "| route | `deterministic`, `best`, `derouting` |\n"
	printf "| load | %s to %s (%d loads) |\n", AL[1], AL[nal], nal
	printf "| seed | %s |\n", (nseed > 1 ? SD[1] " to " SD[nseed] : SD[1])
	printf "\nRuns are of %s, %s and %s messages (uniform, long10, long80), about the same number of packets and so the same simulated time; the first %s%% of the messages of each run are left out as warm-up.\n", NM[1], NM[2], NM[3], warmup

	# Across seeds against one run's batch means.
	block("po2-ci")
	n = 0; lo = hi = ""
	for (key in row) {
		split(key, kk, SUBSEP)
		if (kk[4] != "all" || kk[3] + 0 < 0.3 || S[kk[1], kk[2], kk[3], "all", "status"] != "ok") continue
		a = S[kk[1], kk[2], kk[3], "all", "msg_lat_ci95"]; b = S[kk[1], kk[2], kk[3], "all", "msg_lat_ci95_bm"]
		if (a == "" || b == "" || b + 0 <= 0) continue
		q = a / b; QS[++n] = q
	}
	# sort QS
	for (i = 2; i <= n; i++) { v = QS[i]; for (j = i - 1; j >= 1 && QS[j] > v; j--) QS[j + 1] = QS[j]; QS[j + 1] = v }
	if (n) printf "Message latency, every point below saturation at loads of 0.30 and above (%d points): the half-width across seeds is %.2f to %.2f times the pooled batch-means half-width, median %.2f (uniform deterministic at 0.70: ±%s across seeds, ±%s by batch means).\n", \
		n, QS[1], QS[n], n % 2 ? QS[(n + 1) / 2] : (QS[n / 2] + QS[n / 2 + 1]) / 2, \
		f(S[uni, "deterministic", "0.70", "all", "msg_lat_ci95"], 1), f(S[uni, "deterministic", "0.70", "all", "msg_lat_ci95_bm"], 1)
	else printf "No point below saturation has both intervals.\n"

	block("po2-uniform")
	table(uni, loads_uniform)
	printf "\nSaturated: %s.\n", satline(uni)

	block("po2-uniform-facts")
	# Largest relative gap of message latency between strategies.
	gap = 0
	for (j = 1; j <= nal; j++) {
		l = AL[j]
		if (!sorted(uni, l, "msg_lat")) continue
		g = ratio(S[uni, o[3], l, "all", "msg_lat"], S[uni, o[1], l, "all", "msg_lat"]) - 1
		if (g > gap) { gap = g; gl = l; ga = o[3]; gb = o[1] }
		g2 = ratio(S[uni, "best", l, "all", "msg_lat"], S[uni, "derouting", l, "all", "msg_lat"]) - 1
		if (g2 < 0) g2 = -g2
		if (g2 > gap2) gap2 = g2
	}
	printf "- Message latency, largest gap between the strategies: %.1f%% at %s (%s %s, %s %s); best and derouting within %.1f%% of each other at every load below saturation.\n", \
		100 * gap, gl, ga, f(S[uni, ga, gl, "all", "msg_lat"], 0), gb, f(S[uni, gb, gl, "all", "msg_lat"], 0), 100 * gap2
	printf "- Order of message latency, 95%% CIs apart (derouting < best < deterministic) at loads %s; paired, seed by seed, at loads %s.\n", \
		loads_where(uni, "msg_lat", "derouting < best < deterministic", 0), loads_where(uni, "msg_lat", "derouting < best < deterministic", 1)
	printf "- Order of packet latency, 95%% CIs apart at loads %s; paired at loads %s.\n", \
		loads_where(uni, "pkt_lat", "derouting < best < deterministic", 0), loads_where(uni, "pkt_lat", "derouting < best < deterministic", 1)
	printf "- Internal port utilization, derouting against deterministic:"
	nl2 = split(loads_uniform, LL, " ")
	for (j = 2; j <= nl2; j++) {
		l = LL[j]
		printf "%s %s against %s at %s (%+.0f%%)", (j > 2 ? "," : ""), u3(uni, "derouting", l, "int_util"), u3(uni, "deterministic", l, "int_util"), l, \
			100 * (ratio(S[uni, "derouting", l, "all", "int_util"], S[uni, "deterministic", l, "all", "int_util"]) - 1)
	}
	l = LL[nl2]
	printf "; mean hops at %s: derouting %.2f, deterministic %.2f.\n", l, S[uni, "derouting", l, "all", "hops"], S[uni, "deterministic", l, "all", "hops"]
	l = AL[nal]
	printf "- At %s: throughput %s, %s and %s (deterministic, best, derouting) against %s offered; PE utilization %s, %s and %s.\n", l, \
		u3(uni, "deterministic", l, "throughput"), u3(uni, "best", l, "throughput"), u3(uni, "derouting", l, "throughput"), f(S[uni, "deterministic", l, "all", "offered"], 3), \
		u3(uni, "deterministic", l, "pe_util"), u3(uni, "best", l, "pe_util"), u3(uni, "derouting", l, "pe_util")

	block("po2-long10")
	table(l10, loads_bursty)
	printf "\nSaturated: %s.\n", satline(l10)
	block("po2-long80")
	table(l80, loads_bursty)
	printf "\nSaturated: %s.\n", satline(l80)

	# The orders at every load: CIs across seeds, and paired where that
	# reads otherwise.
	for (wi = 2; wi <= 3; wi++) {
		w = wi == 2 ? l10 : l80
		block("po2-orders-" w)
		printf "| load | message latency | packet latency | PE util | internal util |\n|---|---|---|---|---|\n"
		for (j = 1; j <= nal; j++) {
			l = AL[j]
			printf "| %s | %s | %s | %s | %s |\n", l, ord2(w, l, "msg_lat"), ord2(w, l, "pkt_lat"), ord2(w, l, "pe_util"), ord2(w, l, "int_util")
		}
	}
	block("po2-orders")
	# Carried and refused PE utilization at 0.50, from model.csv sums.
	for (wi = 2; wi <= 3; wi++) {
		w = wi == 2 ? l10 : l80; l = "0.50"
		printf "- %s at %s: PE utilization carried (utilization minus refused)", w, l
		for (k = 1; k <= 3; k++) {
			r = R[k]; n = pn[w, r, l]
			printf "%s %s %s", (k > 1 ? "," : ""), r, n ? sprintf("%.3f", (pu[w, r, l] - pr[w, r, l]) / n) : "-"
		}
		printf "; refused"
		for (k = 1; k <= 3; k++) {
			r = R[k]; n = pn[w, r, l]
			printf "%s %s", (k > 1 ? "," : ""), n ? sprintf("%.3f", pr[w, r, l] / n) : "-"
		}
		printf ".\n"
	}
	# Last ok loads, and what is carried in saturation at 0.90.
	for (wi = 2; wi <= 3; wi++) {
		w = wi == 2 ? l10 : l80
		satline(w)
		printf "- %s, last load below saturation: deterministic %s, best %s, derouting %s; throughput there %s, %s and %s of the offered load; at 0.90 throughput %s, %s and %s.\n", w, \
			LASTOK[w, "deterministic"], LASTOK[w, "best"], LASTOK[w, "derouting"], \
			f(ratio(S[w, "deterministic", LASTOK[w, "deterministic"], "all", "throughput"], S[w, "deterministic", LASTOK[w, "deterministic"], "all", "offered"]), 3), \
			f(ratio(S[w, "best", LASTOK[w, "best"], "all", "throughput"], S[w, "best", LASTOK[w, "best"], "all", "offered"]), 3), \
			f(ratio(S[w, "derouting", LASTOK[w, "derouting"], "all", "throughput"], S[w, "derouting", LASTOK[w, "derouting"], "all", "offered"]), 3), \
			u3(w, "deterministic", "0.90", "throughput"), u3(w, "best", "0.90", "throughput"), u3(w, "derouting", "0.90", "throughput")
	}

	block("po2-model")
	printf "| workload | strategy | runs | mean diff | largest diff (load) | mean diff, carried | largest, carried (load) |\n|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nw; i++) {
		w = W[i]
		for (k = 1; k <= 3; k++) {
			r = R[k]
			if (!n2[w, r]) continue
			printf "| %s | %s | %d | %+.2f | %+.2f (%s) | %+.2f | %+.2f (%s) |\n", w, r, n2[w, r], sd[w, r] / n2[w, r], \
				mxd[w, r], mxl[w, r], sdc[w, r] / n2[w, r], mxcd[w, r], mxcl[w, r]
		}
	}
	# Hops against the model's path, and the refused share, at a few points.
	printf "\nMean over the runs below saturation: simulated hops against the model's mean path, and refused internal utilization:\n\n"
	printf "| workload | strategy | load | runs | hops | model path | internal util | refused part |\n|---|---|---|---|---|---|---|---|\n"
	np = split(model_points, MP, " ")
	for (j = 1; j <= np; j++) {
		split(MP[j], pp, ":"); w = pp[1]; r = pp[2]; l = pp[3]; n = hn[w, r, l]
		if (!n) { printf "| %s | %s | %s | 0 | - | - | - | - |\n", w, r, l; continue }
		printf "| %s | %s | %s | %d | %.2f | %.2f | %.3f | %.3f |\n", w, r, l, n, hs[w, r, l] / n, ps[w, r, l] / n, iu[w, r, l] / n, rs[w, r, l] / n
	}

	block("po2-checks")
	if (!nck) printf "(no checks.csv)\n"
	else {
		printf "| check | status | hops | model path | diff, carried (pp) | internal util | message latency |\n|---|---|---|---|---|---|---|\n"
		for (j = 1; j <= nck; j++) printf "%s\n", CK[j]
	}
}

# model.csv again, for the PE refused part per point (tables.awk keeps
# only the internal one).
file == 2 && $c[2, "status"] == "ok" {
	w = $c[2, "workload"]; r = $c[2, "route"]; l = $c[2, "load"]
	pn[w, r, l]++; pu[w, r, l] += $c[2, "pe_util"]; pr[w, r, l] += $c[2, "pe_refused"]
	iu[w, r, l] += $c[2, "int_util"]
}

# checks.csv: one row per check, its name, its model.sh row and lstat's
# message latency.
file == 4 {
	CK[++nck] = sprintf("| %s | %s | %.3f | %s | %s | %.3f | %s |", $c[4, "check"], $c[4, "status"], $c[4, "hops_mean"], \
		$c[4, "model_path"] == "" ? "-" : sprintf("%.3f", $c[4, "model_path"]), \
		$c[4, "diff_carried_pp"] == "" ? "-" : sprintf("%+.2f", $c[4, "diff_carried_pp"]), $c[4, "int_util"], \
		$c[4, "msg_lat_mean"] == "" ? "-" : lat($c[4, "msg_lat_mean"], $c[4, "msg_lat_ci95"]) ($c[4, "msg_lat_ci95"] == "" ? " ± -" : ""))
}
