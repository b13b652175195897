# figs.awk: the rows of one figure from results.csv (sweep.mk), as
# "expt load seed mean ci95 sd cv packets status", for gnuplot.
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
	print e, $c["load"], $c["seed"], $c["pkt_lat_mean"], $c["pkt_lat_ci95"],
	    $c["pkt_lat_sd"], $c["pkt_lat_cv"], $c["packets"], $c["status"]
}
