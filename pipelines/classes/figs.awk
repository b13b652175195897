# figs.awk: the rows of one figure from results.csv (sweep.mk), one per
# expt and load over the seeds, for gnuplot:
#   expt load mean ci95 sd cv packets status seeds
# mean, sd and cv: the mean over the seeds of each run's packet-latency
# mean, sd and CV; ci95: the 95% half-width of that mean, from each run's
# batch-means half-width c_i as sqrt(sum c_i^2) / seeds (independent
# runs); "-" when a run has none (saturated). packets: summed; status:
# saturated when any seed saturated.
#   awk -F, -v fig=latency|5hops|be|gt -f figs.awk results.csv
NR == 1 {
	for (i = 1; i <= NF; i++)
		c[$i] = i
	next
}
{
	e = $c["expt"]
	one = e == "wormhole" || e == "vct" || e == "ps"
	g = $c["group"]
	if (fig == "latency" && !(one && g == "all")) next
	if (fig == "5hops" && !(one && g == "5")) next
	if (fig == "be" && !(!one && g == "best-effort")) next
	if (fig == "gt" && !(!one && g == "guaranteed")) next
	k = e SUBSEP $c["load"]
	if (!(k in n)) {
		order[++nk] = k
		ename[k] = e
		lname[k] = $c["load"]
	}
	n[k]++
	m[k] += $c["pkt_lat_mean"]
	sd[k] += $c["pkt_lat_sd"]
	cv[k] += $c["pkt_lat_cv"]
	pk[k] += $c["packets"]
	ci = $c["pkt_lat_ci95"]
	if (ci == "")
		noci[k] = 1
	else
		c2[k] += ci * ci
	if ($c["status"] != "ok")
		st[k] = $c["status"]
}
END {
	for (i = 1; i <= nk; i++) {
		k = order[i]
		printf "%s %s %.1f %s %.1f %.3f %d %s %d\n", ename[k], lname[k],
		    m[k] / n[k], noci[k] ? "-" : sprintf("%.1f", sqrt(c2[k]) / n[k]),
		    sd[k] / n[k], cv[k] / n[k], pk[k], k in st ? st[k] : "ok", n[k]
	}
}
