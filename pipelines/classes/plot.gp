# plot.gp: the figures of the classes study from the fig-*.dat files.
# gnuplot -e "dir='out'; gt='0.10'" plot.gp
set datafile separator " "
set key top left
set grid
set xlabel "offered load (flits per node per cycle)"
do for [fmt in "pngcairo svg"] {
	ext = fmt eq "svg" ? "svg" : "png"
	set terminal fmt size 800,560
	set output dir."/plots/classes-latency.".ext
	set title "mean packet latency (95% CI), 8x8 torus, 16-flit packets"
	set ylabel "cycles"
	set yrange [0:400]
	plot for [e in "wormhole vct ps"] dir."/fig-latency.dat" u (strcol(1) eq e ? $2 : NaN):4:5 w yerrorlines t e
	set output dir."/plots/classes-5hops-sd.".ext
	set title "standard deviation of the latency of 5-hop packets"
	set yrange [0:*]
	plot for [e in "wormhole vct ps"] dir."/fig-5hops.dat" u (strcol(1) eq e ? $2 : NaN):6 w linespoints t e
	set output dir."/plots/classes-5hops-cv.".ext
	set title "coefficient of variation of the latency of 5-hop packets"
	set ylabel "CV"
	plot for [e in "wormhole vct ps"] dir."/fig-5hops.dat" u (strcol(1) eq e ? $2 : NaN):7 w linespoints t e
	set xlabel "best-effort load (flits per node per cycle), guaranteed ".gt
	set ylabel "cycles"
	set output dir."/plots/classes-be.".ext
	set title "best-effort (wormhole) latency with guaranteed packet switching (95% CI)"
	set yrange [0:400]
	plot for [e in "rr prio credit2 credit8"] dir."/fig-be.dat" u (strcol(1) eq e ? $2 : NaN):4:5 w yerrorlines t e
	set output dir."/plots/classes-gt.".ext
	set title "guaranteed (packet-switched) latency (95% CI) against best-effort load"
	set yrange [0:*]
	plot for [e in "rr prio credit2 credit8"] dir."/fig-gt.dat" u (strcol(1) eq e ? $2 : NaN):4:5 w yerrorlines t e
	set output dir."/plots/classes-gt-sd.".ext
	set title "standard deviation of the guaranteed latency"
	plot for [e in "rr prio credit2 credit8"] dir."/fig-gt.dat" u (strcol(1) eq e ? $2 : NaN):6 w linespoints t e
	unset output
}
