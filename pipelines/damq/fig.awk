# fig.awk: the full network and swsim's estimate side by side, one row
# per point, for gnuplot and the README:
#   awk -F, -f fig.awk swsim.csv net-cpu.csv results.csv
# Columns: net buf L fpk load  net_util net_lat net_lat+1 net_status net_cpu_s
#          sw_util sw_est sw_cpu_s  err%
# net_lat + 1 is on the estimate's scale: at zero load the network's
# packet latency is hops + L - 1 cycles, the estimate n kd + B = hops + L.
# err% = (sw_est - (net_lat + 1)) / (net_lat + 1); sw_cpu_s is one swsim
# run for every load of the row's organization, packet and buffer.
FNR == 1 {
	file++
	delete c
	for (i = 1; i <= NF; i++)
		c[$i] = i
	if (file == 3)
		print "net buf L fpk load net_util net_lat net_lat1 status net_cpu_s " \
		    "sw_util sw_est sw_cpu_s err_pct"
	next
}
file == 1 {
	k = $c["net"] SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP $c["fpk"] SUBSEP $c["load"] + 0
	sw_u[k] = $c["bottleneck_util"]
	sw_t[k] = $c["latency_est"]
	sw_cpu[k] = $c["cpu_s"]
	next
}
file == 2 {
	k = $c["net"] SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP $c["fpk"] SUBSEP $c["load"] + 0
	cpu[k] = $c["cpu_s"]
	next
}
$c["group"] == "all" {
	k = $c["net"] SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP $c["fpk"] SUBSEP $c["load"] + 0
	lat = $c["pkt_lat_mean"]
	est = sw_t[k]
	err = est != "" && lat != "" ? sprintf("%.1f", 100 * (est - lat - 1) / (lat + 1)) : "-"
	printf "%s %s %s %s %s %s %s %.3f %s %s %s %s %s %s\n", $c["net"], $c["buf"], $c["L"],
	    $c["fpk"], $c["load"], $c["bottleneck_util"], lat, lat + 1,
	    $c["status"], k in cpu ? cpu[k] : "-", sw_u[k] == "" ? "-" : sw_u[k],
	    est == "" ? "-" : est, k in sw_cpu ? sw_cpu[k] : "-", err
}
