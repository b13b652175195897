# figures.awk: the figures README.md quotes, as blocks for ../figures.sh
# ("@@ name" and its lines), from the four studies' results:
#
#   awk -F, -f figures.awk hotspot/out/results.csv alpha/out/results.csv \
#     balanced/out/results.csv maxload/out/maxload.csv maxload/out/summary.csv
#
# Latencies are means with the 95% half-width of lstat's batch means (one
# run per point); "-" where lstat gives no interval. Study (d)'s
# intervals are across seeds.

function f(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
function lat(v, h) { return v == "" ? "-" : f(v, 0) " ± " (h == "" ? "-" : f(h, 0)) }
function sat(st) { return st == "ok" ? "" : " (" (st == "saturated" ? "sat." : st) ")" }
# Ratio a / b with the half-width of its 95% interval from the two
# (independent) intervals, first order.
function rat(a, ha, b, hb,    r) {
	if (a == "" || b == "" || b + 0 == 0) return "-"
	r = a / b
	if (ha == "" || hb == "") return f(r, 2) " ± -"
	return f(r, 2) " ± " f(r * sqrt((ha / a) ^ 2 + (hb / b) ^ 2), 2)
}
function min_(a, b) { return a == "" || b < a ? b : a }
function max_(a, b) { return a == "" || b > a ? b : a }
function block(n) { printf "@@ %s\n", n }
function pc(x) { return sprintf("%+.1f%%", 100 * x) }

FNR == 1 { file++; for (i = 1; i <= NF; i++) c[file, $i] = i; next }
function v(name) { return $c[file, name] }

# hotspot: workload,hot,bp,load,seed,group,...
file <= 3 && v("group") == "all" { NST[file, v("status")]++; if (!(v("status") in stseen)) { stseen[v("status")] = 1; STN[++nstn] = v("status") } }
file == 1 {
	k = v("workload") SUBSEP v("hot") SUBSEP v("bp") SUBSEP v("load") SUBSEP v("group")
	H[k, "msg"] = v("msg_lat_mean"); H[k, "msgci"] = v("msg_lat_ci95")
	H[k, "pkt"] = v("pkt_lat_mean"); H[k, "pktci"] = v("pkt_lat_ci95")
	H[k, "thr"] = v("throughput"); H[k, "n"] = v("messages"); H[k, "st"] = v("status")
	if (!(v("load") in hl)) { hl[v("load")] = 1; HL[++nhl] = v("load") }
	next
}
# alpha: alpha,load,seed,group,...
file == 2 {
	k = v("alpha") SUBSEP v("load") SUBSEP v("group")
	A[k, "msg"] = v("msg_lat_mean"); A[k, "msgci"] = v("msg_lat_ci95")
	A[k, "pkt"] = v("pkt_lat_mean"); A[k, "pktci"] = v("pkt_lat_ci95"); A[k, "st"] = v("status")
	if (!(v("load") in al)) { al[v("load")] = 1; AL[++nal] = v("load") }
	if (!(v("alpha") in aa)) { aa[v("alpha")] = 1; AA[++naa] = v("alpha") }
	next
}
# balanced: bal,alpha,load,seed,group,...
file == 3 {
	if (v("group") != "all") next
	k = v("bal") SUBSEP v("alpha") SUBSEP v("load")
	B[k, "msg"] = v("msg_lat_mean"); B[k, "msgci"] = v("msg_lat_ci95")
	B[k, "pkt"] = v("pkt_lat_mean"); B[k, "pktci"] = v("pkt_lat_ci95"); B[k, "st"] = v("status")
	if (!(v("load") in bl)) { bl[v("load")] = 1; BL[++nbl] = v("load") }
	next
}
# maxload.csv: case,seed,sustainable,saturated,runs
file == 4 {
	X[v("case"), v("seed")] = v("sustainable")
	if (!(v("seed") in xs)) { xs[v("seed")] = 1; XS[++nxs] = v("seed") }
	xruns += v("runs")
	next
}
# maxload summary.csv
file == 5 {
	M[v("case")] = 1; MC[++nmc] = v("case")
	for (i in c) { split(i, ii, SUBSEP); if (ii[1] == 5) M[v("case"), ii[2]] = $c[i] }
	next
}

function hrow(wl, m, l,    s, bp, hot, k) {
	s = "| " l " |"
	for (bp = 1; bp <= 3; bp++)
		for (hot = 1; hot <= 2; hot++) {
			k = wl SUBSEP HOT[hot] SUBSEP BP[bp] SUBSEP l SUBSEP "independent"
			s = s " " lat(H[k, m], H[k, m "ci"]) sat(H[k, "st"]) " |"
		}
	return s
}
function htable(wl, m, loads,    n, LD, j) {
	printf "| load | none, no hot | none, hot | message, no hot | message, hot | destination, no hot | destination, hot |\n"
	printf "|---|---|---|---|---|---|---|\n"
	n = split(loads, LD, " ")
	for (j = 1; j <= n; j++) print hrow(wl, m, LD[j])
}
# Independent latency with hot spots over without, for rule bp, metric
# m, loads from lo on (overloaded) or below lo: min and max into R1, R2.
function hratio(wl, bp, m, lo, above,    j, l, a, b, r) {
	R1 = R2 = ""
	for (j = 1; j <= nhl; j++) {
		l = HL[j]
		if (above ? l + 0 < lo : l + 0 >= lo) continue
		a = H[wl, "on", bp, l, "independent", m]; b = H[wl, "off", bp, l, "independent", m]
		if (a == "" || b == "") continue
		r = a / b; R1 = min_(R1, r); R2 = max_(R2, r)
	}
}
function hvals(wl, hot, bp, m, lo,    j, l, a) {
	V1 = V2 = ""
	for (j = 1; j <= nhl; j++) {
		l = HL[j]
		if (l + 0 < lo) continue
		a = H[wl, hot, bp, l, "independent", m]
		if (a == "") continue
		V1 = min_(V1, a + 0); V2 = max_(V2, a + 0)
	}
}

END {
	split("none message destination", BP, " "); split("off on", HOT, " ")

	block("fedx-status")
	split("hotspot alpha balanced", SN, " ")
	printf "Runs by status:"
	for (i = 1; i <= 3; i++) {
		printf "%s %s", (i > 1 ? ";" : ""), SN[i]
		for (j = 1; j <= nstn; j++) printf "%s %d %s", (j > 1 ? "," : ""), NST[i, STN[j]], STN[j]
	}
	printf ".\n"

	block("fedx-hotspot-runs")
	for (w = 1; w <= 2; w++) {
		wl = w == 1 ? "wk1-5" : "wk30"; mn = mx = ""
		for (j = 1; j <= nhl; j++) {
			n = H[wl, "off", "none", HL[j], "independent", "n"]
			if (n != "") { mn = min_(mn, n + 0); mx = max_(mx, n + 0) }
		}
		printf "%s: %d to %d independent messages measured per run (without hot spots, no backpressure).\n", wl, mn, mx
	}

	block("fedx-hotspot-wk1-5-msg"); htable("wk1-5", "msg", "0.1 0.15 0.2 0.25 0.3 0.5 0.7")
	block("fedx-hotspot-wk1-5-pkt"); htable("wk1-5", "pkt", "0.1 0.2 0.3 0.5 0.7")
	block("fedx-hotspot-wk30-msg"); htable("wk30", "msg", "0.1 0.2 0.3 0.5 0.7")
	block("fedx-hotspot-wk30-pkt"); htable("wk30", "pkt", "0.1 0.2 0.3 0.5 0.7")

	block("fedx-hotspot-facts")
	printf "Independent nodes' latency with hot spots over without, same rule (loads 0.2 and up, hot nodes overloaded):\n\n"
	printf "| workload | metric | none | message | destination |\n|---|---|---|---|---|\n"
	for (w = 1; w <= 2; w++) {
		wl = w == 1 ? "wk1-5" : "wk30"
		for (mi = 1; mi <= 2; mi++) {
			m = mi == 1 ? "msg" : "pkt"
			printf "| %s | %s |", wl, mi == 1 ? "message latency" : "packet latency"
			for (bp = 1; bp <= 3; bp++) {
				hratio(wl, BP[bp], m, 0.2, 1)
				printf " %s to %s |", f(R1, BP[bp] == "destination" ? 3 : 1), f(R2, BP[bp] == "destination" ? 3 : 1)
			}
			printf "\n"
		}
	}
	printf "\nBelow 0.2: destination-based backpressure, with over without hot spots:"
	for (w = 1; w <= 2; w++) {
		wl = w == 1 ? "wk1-5" : "wk30"
		hratio(wl, "destination", "msg", 0.2, 0)
		printf "%s %s message latency %s to %s", (w > 1 ? ";" : ""), wl, f(R1, 3), f(R2, 3)
	}
	printf ".\n\n"
	for (w = 1; w <= 2; w++) {
		wl = w == 1 ? "wk1-5" : "wk30"
		hvals(wl, "on", "none", "msg", 0.2); a1 = V1; a2 = V2
		hvals(wl, "on", "message", "msg", 0.2)
		printf "%s, loads 0.2 and up, independent message latency with hot spots: %s to %s without backpressure, %s to %s with message-based; ", wl, f(a1, 0), f(a2, 0), f(V1, 0), f(V2, 0)
		hvals(wl, "off", "none", "msg", 0.2)
		printf "without hot spots (no backpressure) %s to %s.\n", f(V1, 0), f(V2, 0)
	}
	printf "\nWith hot spots, message-based over no backpressure, wk30 message latency, loads 0.2 and up:"
	r1 = r2 = ""
	for (j = 1; j <= nhl; j++) {
		l = HL[j]; if (l + 0 < 0.2) continue
		a = H["wk30", "on", "message", l, "independent", "msg"]; b = H["wk30", "on", "none", l, "independent", "msg"]
		if (a != "" && b != "") { r1 = min_(r1, a / b); r2 = max_(r2, a / b) }
	}
	printf " %s to %s.\n", f(r1, 3), f(r2, 3)
	printf "\nAccepted throughput of the hot group at load 0.5, wk1-5 (lstat, per node, load units; the two hot nodes can eject at most 0.0625):"
	for (bp = 1; bp <= 3; bp++)
		printf "%s %s %s", (bp > 1 ? "," : ""), BP[bp], f(H["wk1-5", "on", BP[bp], "0.5", "hot", "thr"], 4)
	printf ".\n"
	printf "\nWithout hot spots, wk30 at 0.7: message latency none %s, message %s, destination %s; packet latency %s, %s, %s.\n", \
		lat(H["wk30", "off", "none", "0.7", "independent", "msg"], H["wk30", "off", "none", "0.7", "independent", "msgci"]), \
		lat(H["wk30", "off", "message", "0.7", "independent", "msg"], H["wk30", "off", "message", "0.7", "independent", "msgci"]), \
		lat(H["wk30", "off", "destination", "0.7", "independent", "msg"], H["wk30", "off", "destination", "0.7", "independent", "msgci"]), \
		lat(H["wk30", "off", "none", "0.7", "independent", "pkt"], H["wk30", "off", "none", "0.7", "independent", "pktci"]), \
		lat(H["wk30", "off", "message", "0.7", "independent", "pkt"], H["wk30", "off", "message", "0.7", "independent", "pktci"]), \
		lat(H["wk30", "off", "destination", "0.7", "independent", "pkt"], H["wk30", "off", "destination", "0.7", "independent", "pktci"])

	block("fedx-alpha")
	printf "| load | short (1-5) | long (25) | all |\n|---|---|---|---|\n"
	for (j = 1; j <= nal; j++) {
		l = AL[j]; if (l + 0 < 0.1 || l == "0.2" || l == "0.4") continue
		printf "| %s |", l
		for (g = 1; g <= 3; g++) {
			gr = g == 1 ? "short" : g == 2 ? "long" : "all"
			k0 = "0" SUBSEP l SUBSEP gr; k8 = "8" SUBSEP l SUBSEP gr
			printf " %s -> %s, %s |", lat(A[k0, "msg"], A[k0, "msgci"]) sat(A[k0, "st"]), lat(A[k8, "msg"], A[k8, "msgci"]) sat(A[k8, "st"]), \
				rat(A[k0, "msg"], A[k0, "msgci"], A[k8, "msg"], A[k8, "msgci"])
		}
		printf "\n"
	}
	block("fedx-alpha-facts")
	printf "Message latency of the short messages at each alpha (%s):\n\n", "byte times"
	printf "| load |"; for (i = 1; i <= naa; i++) printf " alpha %s |", AA[i]; printf "\n|---|"
	for (i = 1; i <= naa; i++) printf "---|"; printf "\n"
	for (j = 1; j <= nal; j++) {
		l = AL[j]; printf "| %s |", l
		for (i = 1; i <= naa; i++) printf " %s |", f(A[AA[i], l, "short", "msg"], 0)
		printf "\n"
	}
	p1 = p2 = ""
	for (j = 1; j <= nal; j++) {
		l = AL[j]; a = A["8", l, "all", "pkt"]; b = A["0", l, "all", "pkt"]
		if (a != "" && b != "") { p1 = min_(p1, 1 - a / b); p2 = max_(p2, 1 - a / b) }
	}
	printf "\nPacket latency of all messages, alpha 8 against FIFO: %.1f%% to %.1f%% lower over the loads.\n", 100 * p1, 100 * p2

	block("fedx-balanced")
	printf "| load, policy | off: packet / message | d2t2 | d2t4 | d2t6 |\n|---|---|---|---|---|\n"
	for (a = 1; a <= 2; a++) {
		al_ = a == 1 ? "0" : "8"
		for (j = 1; j <= nbl; j++) {
			l = BL[j]; if (l + 0 < 0.5) continue
			printf "| %s %s |", l, al_ == "0" ? "FIFO" : "alpha 8"
			split("off d2t2 d2t4 d2t6", BB, " ")
			for (b = 1; b <= 4; b++) {
				k = BB[b] SUBSEP al_ SUBSEP l
				printf " %s / %s%s |", lat(B[k, "pkt"], B[k, "pktci"]), lat(B[k, "msg"], B[k, "msgci"]), sat(B[k, "st"])
			}
			printf "\n"
		}
	}
	block("fedx-balanced-facts")
	printf "Change against no balanced injection, FIFO (packet latency; message latency):\n\n"
	printf "| load | d2t2 | d2t4 | d2t6 |\n|---|---|---|---|\n"
	for (j = 1; j <= nbl; j++) {
		l = BL[j]; if (l + 0 < 0.5) continue
		printf "| %s |", l
		for (b = 2; b <= 4; b++) {
			k = BB[b] SUBSEP "0" SUBSEP l; k0 = "off" SUBSEP "0" SUBSEP l
			printf " %s; %s |", pc(B[k, "pkt"] / B[k0, "pkt"] - 1), pc(B[k, "msg"] / B[k0, "msg"] - 1)
		}
		printf "\n"
	}

	block("fedx-maxload")
	printf "| case | highest sustainable load, mean ± 95%% CI | range over seeds | lowest saturated, mean |\n|---|---|---|---|\n"
	for (i = 1; i <= nmc; i++) {
		cs = MC[i]
		printf "| %s%s | %s ± %s | %s-%s | %s |\n", cs, DESC[cs] == "" ? "" : ": " DESC[cs], M[cs, "sustainable_mean"], \
			M[cs, "sustainable_ci95"] == "" ? "-" : M[cs, "sustainable_ci95"], M[cs, "sustainable_min"], M[cs, "sustainable_max"], M[cs, "saturated_mean"]
	}
	printf "\n%d seeds per case, %d runs in all.\n", nxs, xruns
	block("fedx-maxload-diff")
	printf "| difference | mean ± 95%% CI | per seed |\n|---|---|---|\n"
	nd = split("d2t6-a0:off-a0 d2t4-a0:off-a0 d2t2-a0:off-a0 d2t6-a8:off-a8 d2t4-a8:off-a8 d2t2-a8:off-a8 off-a8:off-a0 none-a0:off-a0 dest-a0:off-a0", DD, " ")
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", TQ, " ")
	for (d = 1; d <= nd; d++) {
		split(DD[d], pr_, ":"); s1 = s2 = n = 0; ps = ""
		for (i = 1; i <= nxs; i++) {
			a = X[pr_[1], XS[i]]; b = X[pr_[2], XS[i]]
			if (a == "" || b == "") { ps = ps " ?"; continue }
			x = a - b; n++; s1 += x; s2 += x * x
			ps = ps " " (x == 0 ? "0" : sprintf("%+.2f", x))
		}
		m = n ? s1 / n : 0; var = n > 1 ? (s2 - n * m * m) / (n - 1) : 0
		printf "| %s - %s | %+.3f ± %s |%s |\n", pr_[1], pr_[2], m, (n > 1 && n - 1 <= 10 ? sprintf("%.3f", TQ[n - 1] * sqrt((var > 0 ? var : 0) / n)) : "-"), ps
	}
}

BEGIN {
	DESC["off-a0"] = "message-based backpressure (preset), FIFO"
	DESC["d2t2-a0"] = "BufferLimitDest 2, BufferLimitTrans 2, FIFO"
	DESC["d2t4-a0"] = "BufferLimitDest 2, BufferLimitTrans 4, FIFO"
	DESC["d2t6-a0"] = "BufferLimitDest 2, BufferLimitTrans 6, FIFO"
	DESC["off-a8"] = "message-based backpressure, alpha 8"
	DESC["none-a0"] = "no backpressure, FIFO"
	DESC["dest-a0"] = "destination-based backpressure, FIFO"
}
