# Latency against bottleneck channel utilization, one panel per packet
# length L and buffer F (packets per input): the full network (points)
# and swsim's estimate (lines), by organization.
#   gnuplot -e "dat='out/fig.dat'; net='k8n3'; L=1; F=0; out='x.png'" plot.gp
set terminal pngcairo size 900,600
set output out
name = net eq "k8n3" ? "8-ary 3-cube" : net eq "k10n2" ? "10-ary 2-cube" : net eq "k2n8" ? "binary 8-cube" : "256-node omega (4x4, 4 stages)"
set title sprintf("%s, %d-flit packets, %s", name, L, F == 0 ? "unbounded buffers" : sprintf("%d packets per input", F))
set xlabel "bottleneck channel utilization"
set ylabel sprintf("packet latency (cycles; network + %d)", net eq "om4x4" ? 2 : 1)
set key top left
set logscale y
set yrange [*:500]
orgs = "fifo safc samq damq oq"
sel(b) = sprintf("< awk '$1 == \"%s\" && $2 == \"%s\" && $3 == %d && $4 == %d && $9 == \"ok\"' %s", net, b, L, F, dat)
selsw(b) = sprintf("< awk '$1 == \"%s\" && $2 == \"%s\" && $3 == %d && $4 == %d && $12 != \"-\"' %s", net, b, L, F, dat)
plot for [i=1:5] sel(word(orgs, i)) using 6:8 with points pt 7 lc i title word(orgs, i), \
     for [i=1:5] selsw(word(orgs, i)) using 11:12 with lines lc i dt 2 title word(orgs, i)." (swsim)"
