# fig.awk: the full network and swsim's estimate side by side, one row
# per point, for gnuplot and the README:
#   awk -F, -f fig.awk levels.csv swsim.csv net-cpu.csv results.csv
# Columns: net buf L fpk load  net_util net_lat net_adj net_status net_cpu_s
#          sw_util sw_est sw_cpu_s  err%
# net_adj is the network's latency on the estimate's scale. At zero load
# a packet takes hops + L - 1 cycles from its first flit entering the
# network to its last leaving it, and the estimate is n kd + B = hops + L
# on a k-ary n-cube (net_adj = net_lat + 1), n + B = (hops + 1) + L on
# the omega, whose n stages are hops + 1 switches (net_adj = net_lat + 2).
# net_util is lstat's bottleneck_util (on the omega every link between
# stages is one class; int_util where it is empty).
# err% = (sw_est - net_adj) / net_adj; sw_cpu_s is one swsim run for
# every load of the row's network, organization, packet and buffer.
FNR == 1 {
	file++
	delete c
	for (i = 1; i <= NF; i++)
		c[$i] = i
	if (file == 4)
		print "net buf L fpk load net_util net_lat net_adj status net_cpu_s " \
		    "sw_util sw_est sw_cpu_s err_pct"
	next
}
file == 1 {
	lev[$1, $2, $3] = $4
	next
}
file == 2 {
	k = $c["net"] SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP $c["fpk"] SUBSEP $c["load"] + 0
	sw_u[k] = $c["bottleneck_util"]
	sw_t[k] = $c["latency_est"]
	sw_cpu[k] = $c["cpu_s"]
	next
}
file == 3 {
	n = $c["net"]
	k = n SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP lev[n, "bl", $c["bl"]] SUBSEP lev[n, "lv", $c["lv"]] + 0
	cpu[k] = $c["cpu_s"]
	next
}
$c["group"] == "all" {
	n = $c["net"]
	fpk = lev[n, "bl", $c["bl"]]
	load = lev[n, "lv", $c["lv"]]
	k = n SUBSEP $c["buf"] SUBSEP $c["L"] SUBSEP fpk SUBSEP load + 0
	lat = $c["pkt_lat_mean"]
	off = n ~ /^om/ ? 2 : 1
	u = $c["bottleneck_util"]
	if (u == "" || u == "nan")
		u = $c["int_util"]
	est = sw_t[k]
	err = est != "" && lat != "" ? sprintf("%.1f", 100 * (est - lat - off) / (lat + off)) : "-"
	printf "%s %s %s %s %s %s %s %.3f %s %s %s %s %s %s\n", n, $c["buf"], $c["L"],
	    fpk, load, u, lat, lat + off,
	    $c["status"], k in cpu ? cpu[k] : "-", sw_u[k] == "" ? "-" : sw_u[k],
	    est == "" ? "-" : est, k in sw_cpu ? sw_cpu[k] : "-", err
}
