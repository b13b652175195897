# plot.gp: the figure of Fed-X study (d) from summary.csv: the highest
# sustainable load of each case, mean over the seeds with its 95%
# confidence interval, and the range over the seeds.
#
# gnuplot -e "data='out/summary.csv'; out='out/plots/maxload.png'" plot.gp

set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 1000,600 font ",11"
set output out
set title "Fed-X 8x8, wk-mixture (10% long): highest sustainable offered load\nbisection to 0.01 on each seed; mean over the seeds and 95% confidence interval (bar), range (grey)"
set ylabel "highest sustainable load (fraction of PE port bandwidth)"
set yrange [0.5:0.95]
set grid ytics
set xtics rotate by -30 noenhanced
set style fill solid 0.5
set boxwidth 0.6
set key top left
plot data using 0:(column("sustainable_mean")):xtic(strcol("case")) with boxes lc rgb "#1f77b4" title "mean", \
     data using 0:(column("sustainable_mean")):(column("sustainable_ci95")) with yerrorbars lc rgb "black" pt 0 lw 2 title "95% CI", \
     data using 0:(column("sustainable_mean")):(column("sustainable_min")):(column("sustainable_max")) with yerrorbars lc rgb "gray50" pt 0 lw 1 title "range over seeds"
