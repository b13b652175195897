# plot.gp: the figures of Fed-X study (a) for one workload, from
# results.csv: message and packet latency of the independent nodes
# against their offered load, one curve per backpressure rule, solid with
# hot-spot traffic, dashed without; log scale, as the unprotected cases
# run orders of magnitude above the others. Writes <wl>-msg.png and
# <wl>-pkt.png into dir.
#
# gnuplot -e "data='out/results.csv'; dir='out/plots'; wl='wk1-5'" plot.gp
#
# Means with their 95% confidence intervals (batch means). Runs with hot
# senders are saturated by design once the hot nodes are overloaded; a
# value that is itself growing with the run length (the independent
# nodes behind a saturated tree) is drawn like the others, and the README
# says which these are.

set datafile separator ","
set datafile columnheaders

bps = "none message destination"
colour(i) = word("#d62728 #1f77b4 #2ca02c", i)
pt(i) = i == 1 ? 7 : i == 2 ? 5 : 9
# The rows of one curve, with the header: columns 1-3 and 6 are the axes
# workload, hot, bp and the lstat group.
rows(h, b) = sprintf("< awk -F, 'NR == 1 || ($1 == \"%s\" && $2 == \"%s\" && $3 == \"%s\" && $6 == \"independent\")' %s", wl, h, b, data)
ci(c) = (v = column(c), v == v ? v : 0)
# Curves side by side, so the bars do not hide each other.
xs(i, h) = column("load") + (i - 2) * 0.006 + (h eq "on" ? 0.002 : -0.002)

set key bottom right box opaque
set grid
set logscale y
set xlabel "offered load of the independent nodes (fraction of PE port bandwidth)"
set xrange [0:0.75]
set xtics 0.1
set terminal pngcairo size 1000,700 font ",11"

do for [m in "msg pkt"] {
	c = m eq "msg" ? "msg_lat" : "pkt_lat"
	set title sprintf("Fed-X 8x8, %s: %s latency of the independent nodes\n2 hot nodes, 30%% of the PEs sending to them at the same load; solid: with them, dashed: hot senders silent\nmean and 95%% confidence interval (batch means)", \
		wl, m eq "msg" ? "message" : "packet") noenhanced
	set ylabel sprintf("%s latency (byte times)", m eq "msg" ? "message" : "packet")
	set output sprintf("%s/%s-%s.png", dir, wl, m)
	plot for [i = 1:3] rows("on", word(bps, i)) using (xs(i, "on")):(column(c . "_mean")):(ci(c . "_ci95")) \
		with yerrorlines lw 2 pt pt(i) lc rgb colour(i) title word(bps, i) . " backpressure, hot spots", \
	     for [i = 1:3] rows("off", word(bps, i)) using (xs(i, "off")):(column(c . "_mean")):(ci(c . "_ci95")) \
		with yerrorlines lw 1 dt 2 pt pt(i) lc rgb colour(i) title word(bps, i) . ", no hot spots"
	set output
}
