# plot.gp: the ncube study's figures, from the CSVs of study.sh.
#   gnuplot -e "out='out'; ext='png'; term='pngcairo'" plot.gp
# Every point is the mean over seeds with its 95% CI as an error bar.
set datafile separator ","
set datafile columnheaders
set datafile missing NaN
eval "set terminal ".term
set grid
set key inside right top
fifos = "1 2 3 5 10"

# Normalized throughput against stages, one curve per B; the crossbar
# of as many inputs as the network as the reference (N = 2^stages).
do for [sink in "perfect prob:0.75"] {
	set output sprintf("%s/plots/stages-%s.%s", out, sink eq "perfect" ? "perfect" : "prob", ext)
	set title sprintf("Boughton's network, saturated sources, %s sinks", sink)
	set xlabel "stages (2^stages inputs)"
	set ylabel "throughput (accepted packets / input / unit)"
	set xrange [0.5:11.5]
	set yrange [0:1]
	plot for [b in fifos] out."/stages.csv" \
		using ((strcol(1) eq sink && $3 == b + 0) ? $2 : NaN):4:5 \
		with yerrorlines title "B = ".b, \
	     out."/crossbar.csv" \
		using (log($1) / log(2)):2:3 with yerrorlines dt 2 \
		title "crossbar N = 2^stages (perfect sinks)"
}

set output sprintf("%s/plots/load.%s", out, ext)
set title "6 stages, B = 2: throughput against the sources' P"
set xlabel "P (probability of a new packet per unit)"
set ylabel "throughput"
set xrange [0:1.05]
set yrange [0:1]
set y2label "packet latency (units)"
set y2tics
set y2range [0:*]
plot out."/load.csv" using 1:2:3 with yerrorlines title "throughput", \
     x with lines dt 3 title "offered", \
     out."/load.csv" using 1:4:5 axes x1y2 with yerrorlines title "packet latency"
unset y2label
unset y2tics

set output sprintf("%s/plots/slow.%s", out, ext)
set title "Slow inputs: rate of the slowest input router beside the mean"
set xlabel "stages"
set ylabel "packets / input / unit"
set xrange [0.5:8.5]
set yrange [0:1]
bs = "1 2 5"
ks = "4 16 25"
cs = "#1f77b4 #d62728 #2ca02c"
plot for [i = 1:3] out."/slow.csv" \
	using ($2 == word(bs, i) + 0 ? $1 : NaN):3:4 with yerrorlines \
	lc rgb word(cs, i) title "mean, B = ".word(bs, i), \
     for [i = 1:3] out."/slow.csv" \
	using ($2 == word(bs, i) + 0 ? $1 : NaN):7:8 with yerrorlines dt 2 \
	lc rgb word(cs, i) \
	title sprintf("slowest, B = %s (K = %s)", word(bs, i), word(ks, i))

# Grids and trees of 64 terminals under local traffic (within L hops)
# and uniform, saturated sources, one curve per network and B.
set output sprintf("%s/plots/local.%s", out, ext)
set title "Grid and trees of 64 terminals: localized against uniform traffic"
set xlabel "destinations"
set ylabel "throughput (accepted packets / input / unit)"
set xrange [0.5:4.5]
set yrange [0:1.05]
set xtics ("local:1" 1, "local:2" 2, "local:4" 3, "uniform" 4)
dx(s) = s eq "local1" ? 1 : s eq "local2" ? 2 : s eq "local4" ? 3 : 4
nets = "grid8x8 tree2-6 tree4-3"
plot for [i = 1:3] out."/local.csv" \
	using ((strcol(1) eq word(nets, i) && $3 == 2) ? dx(strcol(2)) : NaN):4:5 \
	with yerrorlines lc rgb word(cs, i) title word(nets, i).", B = 2", \
     for [i = 1:3] out."/local.csv" \
	using ((strcol(1) eq word(nets, i) && $3 == 5) ? dx(strcol(2)) : NaN):4:5 \
	with yerrorlines dt 2 lc rgb word(cs, i) title word(nets, i).", B = 5"
