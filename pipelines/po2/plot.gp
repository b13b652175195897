# plot.gp: the figures of one workload of the PO2 study from summary.csv,
# one per metric against offered load, one curve per routing strategy,
# as PNG and SVG in dir: <wl>-msg_lat, -norm_lat, -pkt_lat, -pe_util,
# -int_util.
#
# gnuplot -e "data='out/summary.csv'; dir='out/plots'; wl='long10'; \
#   desc='...'; nmsg='40000'; warm='10'; seeds='seed 1'; runs=1" plot.gp
#
# Latencies are means with their 95% confidence intervals. A saturated
# point (status not ok in summary.csv) has no finite mean latency: it is
# drawn as an x in its strategy's colour above the curves, not as a
# value. Utilizations of saturated runs are what the fabric carried while
# overloaded: drawn as x at their value, not joined to the curve.

set datafile separator ","
set datafile columnheaders
# Rows of other strategies, groups or workloads are NaN: skip them
# without breaking the curves.
set datafile missing NaN

routes = "deterministic best derouting"
route(i) = word(routes, i)
colour(i) = word("#1f77b4 #d62728 #2ca02c", i)
ptype(i) = i == 1 ? 7 : i == 2 ? 5 : 9

metrics = "msg_lat norm_lat pkt_lat pe_util int_util"
mname(m) = m eq "msg_lat" ? "message latency" : \
	   m eq "norm_lat" ? "normalized message latency" : \
	   m eq "pkt_lat" ? "packet latency" : \
	   m eq "pe_util" ? "PE port utilization" : "internal port utilization"
ylab(m) = m eq "msg_lat" ? "message latency (byte times)" : \
	  m eq "norm_lat" ? "message latency / packets (byte times)" : \
	  m eq "pkt_lat" ? "packet latency (byte times)" : \
	  m eq "pe_util" ? "PE port utilization (refused attempts included)" : \
	  "internal port utilization (refused attempts included)"

# Row selectors; they read the current row, so only inside "using".
this(r) = strcol("workload") eq wl && strcol("route") eq r && strcol("group") eq "all"
ok(r) = this(r) && strcol("status") eq "ok"
sat(r) = this(r) && strcol("status") ne "ok"
# A missing half-width (one run, no interval) draws no bar.
ci(m) = (h = column(m . "_ci95"), h == h ? h : 0)
# Curves side by side, so bars do not hide each other.
xs(i) = column("load") + (i - 2) * 0.004

# The strategies with saturated points in this workload: only they get
# a series of marks (an empty series makes gnuplot warn).
satroutes = ""
do for [i = 1:3] {
	stats data using (sat(route(i)) ? 1 : 0) nooutput
	if (STATS_sum > 0) { satroutes = satroutes . " " . route(i) }
}
nsat = words(satroutes)
satr(j) = word(satroutes, j)
sati(j) = satr(j) eq route(1) ? 1 : satr(j) eq route(2) ? 2 : 3
# The series of marks, as macros (a plot loop with no iteration still
# warns); latencies at the top of the graph, utilizations at their value.
satlat = nsat == 0 ? "" : "for [j = 1:nsat] data using (xs(sati(j))):(sat(satr(j)) ? top * (1 + 0.02 * (sati(j) - 2)) : NaN) with points pt 2 ps 2 lw 2 lc rgb colour(sati(j)) notitle,"
satutil = nsat == 0 ? "" : "for [j = 1:nsat] data using (xs(sati(j))):(sat(satr(j)) ? column(m) : NaN) with points pt 2 ps 2 lw 2 lc rgb colour(sati(j)) notitle,"

set key top left box opaque
set grid
set xlabel "offered load (fraction of PE port bandwidth)"
set xrange [0:1]
set xtics 0.1
set mxtics 2

do for [m in metrics] {
	islat = m eq "msg_lat" || m eq "norm_lat" || m eq "pkt_lat"
	set title sprintf("PO2 fabric, E6 (91 nodes): %s against offered load\n%s\n%s messages per run, first %s%% dropped as warm-up; %s; %s", \
		mname(m), desc, nmsg, warm, seeds, \
		runs > 1 ? "mean, 95% CI across runs" : \
		islat ? "mean, 95% CI by batch means" : "one run") noenhanced
	set ylabel ylab(m)
	if (islat) {
		# Top of the finite values; the saturated marks go above it.
		stats data using (ok(route(1)) || ok(route(2)) || ok(route(3)) ? column(m) + ci(m) : NaN) nooutput
		top = STATS_max * 1.12
		set yrange [0:top * 1.1]
	} else {
		set yrange [0:1]
	}
	do for [t in "png svg"] {
		if (t eq "png") {
			set terminal pngcairo size 1000,700 font ",11"
		} else {
			set terminal svg size 1000,700 dynamic font ",11"
		}
		set output sprintf("%s/%s-%s.%s", dir, wl, m, t)
		if (islat) {
			plot for [i = 1:3] data using (xs(i)):(ok(route(i)) ? column(m) : NaN):(ci(m)) \
				with yerrorlines lw 2 pt ptype(i) lc rgb colour(i) title route(i), \
			     @satlat \
			     keyentry with points pt 2 ps 2 lw 2 lc rgb "black" \
				title (satroutes eq "" ? "no saturated point" : "saturated (no finite latency)")
		} else {
			plot (m eq "pe_util" ? x : NaN) with lines dt 2 lc rgb "gray40" \
				title (m eq "pe_util" ? "offered load" : ""), \
			     for [i = 1:3] data using (xs(i)):(ok(route(i)) ? column(m) : NaN):(ci(m)) \
				with yerrorlines lw 2 pt ptype(i) lc rgb colour(i) title route(i), \
			     @satutil \
			     keyentry with points pt 2 ps 2 lw 2 lc rgb "black" \
				title (satroutes eq "" ? "no saturated point" : "saturated (carried while overloaded)")
		}
		set output
	}
}
