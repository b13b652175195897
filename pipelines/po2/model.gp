# model.gp: the flow model of derouting (hexflow) against the simulated
# internal port utilization, for one workload, from model.csv (one row
# per run) and curve.csv (hexflow over a grid of PE utilizations):
# model-<wl>.png and .svg in dir.
#
# gnuplot -e "data='out/model.csv'; curve='out/curve.csv'; dir='out/plots'; \
#   wl='uniform'; desc='...'; nmsg='200000'; seeds='seed 1'" model.gp
#
# Top: internal against PE port utilization, the model's curves (minimal:
# deterministic and best; derouting) and the runs' measurements. Bottom:
# measured minus modelled internal utilization, in percentage points,
# against offered load. Measured utilizations include refused attempts,
# which the model does not know; where there are any (bursty traffic),
# open symbols give the same comparison on carried traffic only (refused
# time taken out of both PE and internal utilization). Saturated runs
# are drawn as x.

set datafile separator ","
set datafile columnheaders
set datafile missing NaN

routes = "deterministic best derouting"
route(i) = word(routes, i)
colour(i) = word("#1f77b4 #d62728 #2ca02c", i)
ptype(i) = i == 1 ? 7 : i == 2 ? 5 : 9
this(r) = strcol("workload") eq wl && strcol("route") eq r
ok(r) = this(r) && strcol("status") eq "ok"
sat(r) = this(r) && strcol("status") ne "ok"
num(s) = (v = column(s), v == v ? v : NaN)

# Whether this workload has refused attempts to speak of
stats data using (this(strcol("route")) ? column("int_refused") + column("pe_refused") : NaN) nooutput
# (refused time of more than half a percentage point, PE and internal together).
refusals = STATS_max > 0.005

# The strategies with saturated runs in this workload; only they get a
# series of marks (an empty series makes gnuplot warn).
satroutes = ""
do for [i = 1:3] {
	stats data using (sat(route(i)) ? 1 : 0) nooutput
	if (STATS_sum > 0) { satroutes = satroutes . " " . route(i) }
}
nsat = words(satroutes)
satr(j) = word(satroutes, j)
sati(j) = satr(j) eq route(1) ? 1 : satr(j) eq route(2) ? 2 : 3
# Series that may be empty, as macros (a plot loop with no iteration
# still warns): carried traffic only where there are refusals, and the
# saturated runs.
carried1 = !refusals ? "" : "for [i = 1:3] data using (ok(route(i)) ? column(\"pe_util\") - column(\"pe_refused\") : NaN):(column(\"int_util\") - column(\"int_refused\")) with points pt ptype(i) - 1 ps 1.2 lc rgb colour(i) title route(i) . \" (carried only)\","
carried2 = !refusals ? "" : "for [i = 1:3] data using (ok(route(i)) ? column(\"load\") + (i - 2) * 0.004 : NaN):(num(\"diff_carried_pp\")) with points pt ptype(i) - 1 ps 1.2 lc rgb colour(i) title route(i) . \" (carried only)\","
sat1 = nsat == 0 ? "" : "for [j = 1:nsat] data using (sat(satr(j)) ? column(\"pe_util\") : NaN):\"int_util\" with points pt 2 ps 1.5 lc rgb colour(sati(j)) notitle,"
sat2 = nsat == 0 ? "" : ", for [j = 1:nsat] data using (sat(satr(j)) ? column(\"load\") + (sati(j) - 2) * 0.004 : NaN):(num(\"diff_pp\")) with points pt 2 ps 1.5 lc rgb colour(sati(j)) notitle"

do for [t in "png svg"] {
	if (t eq "png") {
		set terminal pngcairo size 1000,1000 font ",11"
	} else {
		set terminal svg size 1000,1000 dynamic font ",11"
	}
	set output sprintf("%s/model-%s.%s", dir, wl, t)
	set multiplot layout 2,1 title sprintf("PO2 fabric, E6 (91 nodes): internal port utilization, flow model (hexflow) and simulation\n%s; %s messages per run, %s", desc, nmsg, seeds) noenhanced
	set grid
	set key top left box opaque

	set xlabel "PE port utilization"
	set ylabel "internal port utilization"
	set xrange [0:1]
	set yrange [0:1]
	set xtics 0.1
	plot curve using "pe_util":"minimal_int_util" with lines lw 2 lc rgb "gray30" title "model, minimal", \
	     curve using "pe_util":"derouting_int_util" with lines lw 2 dt 2 lc rgb "gray30" title "model, derouting", \
	     for [i = 1:3] data using (ok(route(i)) ? column("pe_util") : NaN):"int_util" \
		with points pt ptype(i) ps 1.2 lc rgb colour(i) title route(i) . " (measured)", \
	     @carried1 @sat1 \
	     keyentry with points pt 2 ps 1.5 lc rgb "black" title (satroutes eq "" ? "no saturated run" : "saturated run")

	set xlabel "offered load"
	set ylabel "measured - model (percentage points)"
	set yrange [*<-6:6<*]
	set xrange [0:1]
	set arrow 1 from 0,5 to 1,5 nohead dt 3 lc rgb "gray40"
	set arrow 2 from 0,-5 to 1,-5 nohead dt 3 lc rgb "gray40"
	plot 0 with lines lc rgb "gray40" notitle, \
	     for [i = 1:3] data using (ok(route(i)) ? column("load") + (i - 2) * 0.004 : NaN):(num("diff_pp")) \
		with points pt ptype(i) ps 1.2 lc rgb colour(i) title route(i), \
	     @carried2 keyentry notitle @sat2
	unset arrow 1
	unset arrow 2
	unset multiplot
	set output
}
