# plot.gp: the figures of the classes study from the fig-*.dat files
# (figs.awk: expt load mean ci95 sd cv packets status seeds).
# gnuplot -e "dir='out'" plot.gp
set datafile separator " "
set datafile missing "-"
set key top left
set grid
do for [fmt in "pngcairo svg"] {
	ext = fmt eq "svg" ? "svg" : "png"
	set terminal fmt size 800,560
	set xlabel "offered load (flits per node per cycle)"
	set ylabel "cycles"
	set output dir."/plots/classes-latency.".ext
	set title "mean packet latency (95% CI), 8x8 torus, 16-flit packets"
	set yrange [0:400]
	plot for [e in "wormhole vct ps"] dir."/fig-latency.dat" u (strcol(1) eq e ? $2 : NaN):3:4 w yerrorlines t e
	set output dir."/plots/classes-5hops-sd.".ext
	set title "standard deviation of the latency of 5-hop packets"
	set yrange [0:*]
	plot for [e in "wormhole vct ps"] dir."/fig-5hops.dat" u (strcol(1) eq e ? $2 : NaN):5 w linespoints t e
	set output dir."/plots/classes-5hops-cv.".ext
	set title "coefficient of variation of the latency of 5-hop packets"
	set ylabel "CV"
	plot for [e in "wormhole vct ps"] dir."/fig-5hops.dat" u (strcol(1) eq e ? $2 : NaN):6 w linespoints t e
	set xlabel "best-effort load (flits per node per cycle)"
	set ylabel "cycles"
	do for [a in "rr prio"] {
		set key top left
		set output dir."/plots/classes-be-".a.".".ext
		set title "best-effort (wormhole) latency (95% CI), gt packet-switched, --arb ".a
		set yrange [0:400]
		plot for [g in "05 10 15"] dir."/fig-be.dat" u (strcol(1) eq a."-g".g ? $2 : NaN):3:4 w yerrorlines t "gt 0.".g
		set key bottom right
		set output dir."/plots/classes-gt-".a.".".ext
		set title "guaranteed (packet-switched) latency (95% CI), --arb ".a
		set yrange [0:*]
		plot for [g in "05 10 15"] dir."/fig-gt.dat" u (strcol(1) eq a."-g".g ? $2 : NaN):3:4 w yerrorlines t "gt 0.".g
		set output dir."/plots/classes-gt-sd-".a.".".ext
		set title "standard deviation of the guaranteed latency, --arb ".a
		plot for [g in "05 10 15"] dir."/fig-gt.dat" u (strcol(1) eq a."-g".g ? $2 : NaN):5 w linespoints t "gt 0.".g
	}
	set key top left
	set output dir."/plots/classes-be-arb.".ext
	set title "best-effort latency (95% CI), gt at 0.10, by arbitration"
	set yrange [0:400]
	plot for [e in "rr-g10 prio-g10 credit2-g10 credit8-g10"] dir."/fig-be.dat" u (strcol(1) eq e ? $2 : NaN):3:4 w yerrorlines t e
	set key bottom right
	set output dir."/plots/classes-gt-arb.".ext
	set title "guaranteed latency (95% CI), gt at 0.10, by arbitration"
	set yrange [0:*]
	plot for [e in "rr-g10 prio-g10 credit2-g10 credit8-g10"] dir."/fig-gt.dat" u (strcol(1) eq e ? $2 : NaN):3:4 w yerrorlines t e
	set output dir."/plots/classes-gt-sd-arb.".ext
	set title "standard deviation of the guaranteed latency, gt at 0.10, by arbitration"
	plot for [e in "rr-g10 prio-g10 credit2-g10 credit8-g10"] dir."/fig-gt.dat" u (strcol(1) eq e ? $2 : NaN):5 w linespoints t e
	unset output
}
