# plot.gp: the figures of Fed-X study (c) from results.csv: packet and
# message latency (all messages) against offered load, one curve per
# balanced-injection setting, for FIFO and alpha 8: pkt-a0.png,
# msg-a0.png, pkt-a8.png, msg-a8.png in dir.
#
# gnuplot -e "data='out/results.csv'; dir='out/plots'" plot.gp
#
# Means with their 95% confidence intervals (batch means).

set datafile separator ","
set datafile columnheaders

bals = "off d2t2 d2t4 d2t6"
bname(i) = i == 1 ? "no balanced injection" : sprintf("BufferLimitDest 2, BufferLimitTrans %d", 2 * (i - 1))
colour(i) = word("#000000 #d62728 #1f77b4 #2ca02c", i)
pt(i) = word("7 5 9 11", i) + 0
# The rows of one curve, with the header: columns 1, 2 and 5 are the axes
# bal and alpha and the lstat group.
rows(b, a) = sprintf("< awk -F, 'NR == 1 || ($1 == \"%s\" && $2 == \"%s\" && $5 == \"all\")' %s", b, a, data)
ci(c) = (v = column(c), v == v ? v : 0)
xs(i) = column("load") + (i - 2.5) * 0.003

set key top left box opaque
set grid
set logscale y
set xlabel "offered load (fraction of PE port bandwidth)"
set xrange [0.25:0.85]
set xtics 0.1
set terminal pngcairo size 1000,700 font ",11"

do for [a in "0 8"] {
	do for [m in "pkt msg"] {
		c = m . "_lat"
		set title sprintf("Fed-X 8x8, wk-mixture, %s: %s latency with and without balanced injection\n100000 messages per run (10000 warm-up); mean and 95%% confidence interval (batch means)", \
			a eq "0" ? "FIFO" : "alpha 8", m eq "pkt" ? "packet" : "message")
		set ylabel sprintf("%s latency (byte times)", m eq "pkt" ? "packet" : "message")
		set output sprintf("%s/%s-a%s.png", dir, m, a)
		plot for [i = 1:4] rows(word(bals, i), a) using (xs(i)):(column(c . "_mean")):(ci(c . "_ci95")) \
			with yerrorlines lw 2 pt pt(i) lc rgb colour(i) title bname(i)
		set output
	}
}
