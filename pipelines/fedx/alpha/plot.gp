# plot.gp: the figures of Fed-X study (b) from results.csv: mean message
# latency against offered load, one curve per alpha, for short, long and
# all messages (short.png, long.png, all.png in dir).
#
# gnuplot -e "data='out/results.csv'; dir='out/plots'" plot.gp
#
# Means with their 95% confidence intervals (batch means).

set datafile separator ","
set datafile columnheaders

alphas = "0 1 2 4 8"
colour(i) = word("#000000 #1f77b4 #ff7f0e #2ca02c #d62728", i)
pt(i) = word("7 5 9 11 13", i) + 0
# The rows of one curve, with the header: columns 1 and 4 are the axis
# alpha and the lstat group.
rows(a, g) = sprintf("< awk -F, 'NR == 1 || ($1 == \"%s\" && $4 == \"%s\")' %s", a, g, data)
ci(c) = (v = column(c), v == v ? v : 0)
xs(i) = column("load") + (i - 3) * 0.003

set key top left box opaque
set grid
set logscale y
set xlabel "offered load (fraction of PE port bandwidth)"
set xrange [0:0.8]
set xtics 0.1
set ylabel "message latency (byte times)"
set terminal pngcairo size 1000,700 font ",11"

do for [g in "short long all"] {
	set title sprintf("Fed-X 8x8, wk-mixture (10%% long): latency of %s messages\nalpha scheduling at the sources, message-based backpressure\n100000 messages per run (10000 warm-up); mean and 95%% confidence interval (batch means)", \
		g eq "all" ? "all" : g eq "short" ? "short (1-5 packets)" : "long (25 packets)")
	set output sprintf("%s/%s.png", dir, g)
	plot for [i = 1:5] rows(word(alphas, i), g) using (xs(i)):(column("msg_lat_mean")):(ci("msg_lat_ci95")) \
		with yerrorlines lw 2 pt pt(i) lc rgb colour(i) title "alpha " . word(alphas, i)
	set output
}
