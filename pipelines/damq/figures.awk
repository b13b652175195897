# figures.awk: the figures README.md quotes, as blocks for ../figures.sh
# ("@@ name" and its lines), from fig.dat (fig.awk's table; its header
# names the columns):
#
#   awk -v cycles=5000 -v warmup=2000 -f figures.awk out/fig.dat
#
# Latency is net_adj, the network's mean packet latency on the
# estimate's scale (+ 1 on a cube, + 2 on the omega); a saturated point
# shows the bottleneck utilization it stopped at instead. err_pct is
# (estimate - net_adj) / net_adj in percent.

function block(n) { printf "@@ %s\n", n }
function name(n) {
	return n == "k8n3" ? "8-ary 3-cube (k8n3)" : n == "k10n2" ? "10-ary 2-cube (k10n2)" : n == "k2n8" ? "binary 8-cube (k2n8)" : n == "om4x4" ? "256-node omega (om4x4)" : n
}
function ok(k) { return ST[k] == "ok" }
function lat(k) {
	if (!(k in ST)) return "-"
	return ok(k) ? sprintf("%.1f", ADJ[k]) : sprintf("sat. %.2f", U[k])
}
function err(k) {
	if (!(k in ST)) return "-"
	if (!ok(k)) return "(sat.)"
	return ERR[k] == "-" ? "-" : sprintf("%+.1f", ERR[k])
}
function add(list, v, seen) { if (!((list, v) in seen)) { seen[list, v] = 1; return 1 } return 0 }
function orgs_of(n, l, f) { return n SUBSEP l SUBSEP f }

NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	n = $c["net"]; b = $c["buf"]; l = $c["L"]; f = $c["fpk"]; p = $c["load"]
	k = n SUBSEP b SUBSEP l SUBSEP f SUBSEP p
	ST[k] = $c["status"]; ADJ[k] = $c["net_adj"]; U[k] = $c["net_util"]
	EST[k] = $c["sw_est"]; ERR[k] = $c["err_pct"]
	NCPU[k] = $c["net_cpu_s"]; SCPU[k] = $c["sw_cpu_s"]
	if (add("n", n, seen)) NET[++nn] = n
	if (add("b", b, seen)) BUF[++nb] = b
	if (add("l", l, seen)) LL[++nl] = l
	if (add("f" n, f, seen)) F[n, ++nf[n]] = f
	if (add("p" n, p, seen)) P[n, ++np[n]] = p
}

# One table row per packet length, buffer and organization; one column
# per load, headed by the load and oq's unbounded 1-flit utilization.
function table(n, what,    i, j, li, bi, fi, k, hdr, sep, row, u) {
	hdr = "| L | fpk | org |"; sep = "|---|-----|-----|"
	for (j = 1; j <= np[n]; j++) {
		u = n SUBSEP "oq" SUBSEP LL[1] SUBSEP "0" SUBSEP P[n, j]
		hdr = hdr sprintf(" %s%s |", P[n, j], u in U ? sprintf(" (%.2f)", U[u]) : "")
		sep = sep "-----|"
	}
	print hdr; print sep
	for (li = 1; li <= nl; li++)
		for (fi = 1; fi <= nf[n]; fi++)
			for (bi = 1; bi <= nb; bi++) {
				row = sprintf("| %s | %s | %s |", LL[li], F[n, fi], BUF[bi])
				for (j = 1; j <= np[n]; j++) {
					k = n SUBSEP BUF[bi] SUBSEP LL[li] SUBSEP F[n, fi] SUBSEP P[n, j]
					row = row " " (what == "lat" ? lat(k) : err(k)) " |"
				}
				print row
			}
}

# A load's utilization: oq's (unbounded, shortest packets) to two
# decimals, the same for every organization at that load.
function nominal(n, p,    k) {
	k = n SUBSEP "oq" SUBSEP LL[1] SUBSEP "0" SUBSEP p
	return k in U ? sprintf("%.2f", U[k]) + 0 : ""
}

# Worst (largest magnitude) err_pct over the unbounded points of one
# network and packet length where neither saturated, in a band of the
# loads' utilization (nominal()).
function worst(n, l, lo, hi, orgs,    bi, j, k, w, e, s, x) {
	w = ""
	for (bi = 1; bi <= nb; bi++) {
		if (orgs != "" && index(" " orgs " ", " " BUF[bi] " ") == 0) continue
		for (j = 1; j <= np[n]; j++) {
			k = n SUBSEP BUF[bi] SUBSEP l SUBSEP "0" SUBSEP P[n, j]
			if (!(k in ST) || !ok(k) || ERR[k] == "-") continue
			x = nominal(n, P[n, j])
			if (x == "" || x < lo || x >= hi) continue
			e = ERR[k] + 0
			if (w == "" || (e < 0 ? -e : e) > (w < 0 ? -w : w)) { w = e; s = BUF[bi] " at " sprintf("%.2f", x) }
		}
	}
	return w == "" ? "-" : sprintf("%+.1f (%s)", w, s)
}

END {
	block("setup")
	printf "Every point runs %d cycles of offered traffic: N = %d * nodes * load / L\n", cycles, cycles
	printf "messages (rounded), and lstat leaves out the first %d cycles (the messages\n", warmup
	printf "that arrived, and packets injected, before them).\n"

	# At the lowest load: fifo's latency beside the estimate, and the
	# largest |err| over every organization (unbounded).
	block("lowload")
	print "| net | L | fifo net_adj | fifo sw_est | largest \\|err_pct\\| (unbounded) |"
	print "|-----|---|--------------|-------------|-------------------------------|"
	for (ni = 1; ni <= nn; ni++) {
		n = NET[ni]
		for (li = 1; li <= nl; li++) {
			l = LL[li]
			k = n SUBSEP "fifo" SUBSEP l SUBSEP "0" SUBSEP P[n, 1]
			w = ""
			for (bi = 1; bi <= nb; bi++) {
				kk = n SUBSEP BUF[bi] SUBSEP l SUBSEP "0" SUBSEP P[n, 1]
				if (kk in ERR && ERR[kk] != "-" && ok(kk)) {
					e = ERR[kk] < 0 ? -ERR[kk] : ERR[kk] + 0
					if (w == "" || e > w) w = e
				}
			}
			printf "| %s | %s | %s | %s | %s |\n", n, l, k in ST ? sprintf("%.3f", ADJ[k]) : "-",
			    k in EST && EST[k] != "-" ? sprintf("%.3f", EST[k]) : "-", w == "" ? "-" : sprintf("%.1f%%", w)
		}
	}

	for (ni = 1; ni <= nn; ni++) {
		n = NET[ni]
		block("lat-" n)
		printf "%s: latency (net_adj, cycles) by load (in parentheses, oq's\n", name(n)
		printf "unbounded bottleneck utilization); `sat. u`: saturated, stopped at utilization u.\n\n"
		table(n, "lat")
	}
	for (ni = 1; ni <= nn; ni++) {
		n = NET[ni]
		block("err-" n)
		printf "%s: the estimate's error err_pct (%%) by load; `(sat.)`: the\n", name(n)
		printf "network saturated; `-`: the single switch did.\n\n"
		table(n, "err")
	}

	# Where the estimate holds: its worst error by band of utilization,
	# unbounded buffers, points where neither saturates.
	block("err-bands")
	print "Worst err_pct (%) by the load's bottleneck utilization (oq's), unbounded"
	print "buffers, points where neither the network nor the single switch saturated;"
	print "`-`: none.\n"
	print "| net | L | orgs | util < 0.45 | 0.45 to 0.65 | 0.65 to 0.75 | >= 0.75 |"
	print "|-----|---|------|------------|------------|------------|--------|"
	for (ni = 1; ni <= nn; ni++)
		for (li = 1; li <= nl; li++)
			for (g = 1; g <= 3; g++) {
				o = g == 1 ? "safc oq" : g == 2 ? "samq damq" : "fifo"
				printf "| %s | %s | %s | %s | %s | %s | %s |\n", NET[ni], LL[li], o,
				    worst(NET[ni], LL[li], 0, 0.45, o), worst(NET[ni], LL[li], 0.45, 0.65, o),
				    worst(NET[ni], LL[li], 0.65, 0.75, o), worst(NET[ni], LL[li], 0.75, 2, o)
			}

	# CPU: a network point, and one swsim run (every load of a row)
	# against the row's network runs.
	block("measured-cpu")
	print "| net | network point: mean (min-max) s | swsim run: min-max s | swsim / row's network runs |"
	print "|-----|----------------------------------|----------------------|----------------------------|"
	for (ni = 1; ni <= nn; ni++) {
		n = NET[ni]; s = 0; m = 0; lo = hi = slo = shi = rlo = rhi = ""
		for (li = 1; li <= nl; li++) for (fi = 1; fi <= nf[n]; fi++) for (bi = 1; bi <= nb; bi++) {
			row = 0; sw = ""
			for (j = 1; j <= np[n]; j++) {
				k = n SUBSEP BUF[bi] SUBSEP LL[li] SUBSEP F[n, fi] SUBSEP P[n, j]
				if (!(k in NCPU) || NCPU[k] == "-") continue
				x = NCPU[k] + 0; s += x; m++; row += x
				if (lo == "" || x < lo) lo = x
				if (hi == "" || x > hi) hi = x
				if (SCPU[k] != "-") sw = SCPU[k] + 0
			}
			if (sw == "") continue
			if (slo == "" || sw < slo) slo = sw
			if (shi == "" || sw > shi) shi = sw
			if (row > 0) {
				r = 100 * sw / row
				if (rlo == "" || r < rlo) rlo = r
				if (rhi == "" || r > rhi) rhi = r
			}
		}
		printf "| %s | %.2f (%.2f-%.2f) | %.3f-%.3f | %.1f-%.1f%% |\n", n, m ? s / m : 0, lo, hi, slo, shi, rlo, rhi
	}
}
