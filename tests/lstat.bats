#!/usr/bin/env bats
# Tests of lstat on a tiny hand-computed deliveries stream built with
# mpcat from tests/data/{dlv,pkt,util,run}_small.csv: exact output,
# groupings, warm-up, run status, count check, bad input and usage.
#
# The fixture, 7 nodes, pe_time 420, short_max 5, load 0.5:
#   id  packets  arrive  done  latency  normalized  packet latencies
#   0   1        0       100   100      100         100
#   1   2        50      350   300      150         190 190
#   2   6        100     1300  1200     200         180 x 6 (injected 120..1120)
#   3   1        400     600   200      200         200  (guaranteed, hot)
#   4   3        700     1000  300      100         100 100 90
#   5   1        1500    1600  100      100         100
# Messages: mean 2200/6 = 366.667; deviations -266.7 -66.7 833.3 -166.7
#   -66.7 -266.7, sum of squares 873333.3, sd sqrt(873333.3/5) = 417.931,
#   cv 1.139813; sorted 100 100 200 300 300 1200: p50 = rank 3 = 200,
#   p90 = rank ceil(5.4) = 6 = 1200. ci95: none, 6 batches are fewer
#   than the 10 an interval needs (also for normalized latency).
# Normalized: 850/6 = 141.667. Packets: 14, latencies sum 2150, mean
#   153.571, p99 = rank 14 = 200; hops 17/14 = 1.2143. ci95: 14 batches
#   of 1 in stream order, sd 43.4311, lag-1 autocorrelation 0.006180
#   (small): t(0.975, 13) * 43.4311 / sqrt(14) * sqrt(1.006180 /
#   0.993820) = 2.160369 * 11.6075 * 1.006199 = 25.232.
# Throughput: run t_end 2000, 14 / (7 * 2000) = 0.001 per node per unit,
#   * 420 = 0.42. Utilization snapshots at 1000 and 2000: PE (7 ports)
#   busy 2800 then 7000, internal (21 ports) 4200 then 8400; from time 0:
#   7000 / (7 * 2000) = 0.5 and 8400 / (21 * 2000) = 0.2; from 1000:
#   4200 / (7 * 1000) = 0.6 and 4200 / (21 * 1000) = 0.2.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	cd "$BATS_TEST_DIRNAME"
	T=$BATS_TEST_TMPDIR
	META="-s nodes=7 -s pe_time=420 -s short_max=5 -s load=0.5"
	for r in dlv pkt util run; do
		mpcat -C -k deliveries -r $r $META data/${r}_small.csv > "$T/$r.mps"
	done
	# Packets first, as in netrun's order (a message's record follows
	# its last packet).
	cat "$T/pkt.mps" "$T/dlv.mps" "$T/util.mps" "$T/run.mps" > "$T/all.mps"
	RUNHDR=status,nodes,t_end,msgs_in,msgs_done,pkts_injected,pkts_delivered,pkts_in_flight,pkts_queued
}

# A run record stream from one CSV data row.
run_stream() {
	printf '%s\n%s\n' "$RUNHDR" "$1" > "$T/r.csv"
	mpcat -C -k deliveries -r run $META "$T/r.csv"
}

CSVHEAD=group,messages,packets,throughput,msg_lat_mean,msg_lat_ci95,norm_lat_mean,pkt_lat_mean,pkt_lat_p99,hops_mean,pe_util,int_util,offered,msg_lat_sd,msg_lat_cv,msg_lat_min,msg_lat_p50,msg_lat_p90,msg_lat_p99,msg_lat_p999,msg_lat_max,norm_lat_ci95,pkt_lat_ci95,pkt_lat_sd,pkt_lat_cv,pkt_lat_p50,pkt_lat_p90,pkt_lat_p999,pkt_lat_max,status,throughput_raw,norm_lat_sd,pkt_lat_min,window_start,window_end,util_start,util_end,makespan,trace_end,dep_wait_mean,dep_wait_p99,bottleneck_util

@test "text table of the hand-computed fixture is exact" {
	run lstat -q "$T/all.mps"
	[ "$status" -eq 0 ]
	[ "$output" = "group  messages  packets  throughput  pkt/node/unit  msg_lat  +-ci95     sd     cv    p50     p99  norm_lat  pkt_lat  pkt_p99  hops  pe_util  int_util
all           6       14      0.4200          0.001    366.7       -  417.9  1.140  200.0  1200.0     141.7    153.6    200.0  1.21   0.5000    0.2000
# status: ok
# saturation: run record: ok; second half of the input: not judged (no end-of-input mark)
# warm-up: none; discarded 0 messages, 0 packets
# window: [0, 2000]; utilization over [0, 2000]
# counts: 6 messages and 14 packets read; as the run record says (6 messages in, 14 packets injected, 0 in flight, 0 queued)" ]
}

@test "csv header is exact and the all row hand-computed" {
	run lstat --csv "$T/all.mps"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "$CSVHEAD" ]
	# p50 of packets: rank 7 of 90 100 100 100 100 180x6 190 190 200;
	# p90: rank 13 = 190. Packet ci95 over 14 batches of 1. Makespan:
	# the last t_done, 1600; trace end: the last t_arrive, 1500; no rel
	# records, so no dependency wait.
	[ "${lines[1]}" = "all,6,14,0.420000,366.667,,141.667,153.571,200.0,1.2143,0.500000,0.200000,0.500000,417.931,1.139813,100,200.0,1200.0,1200.0,1200.0,1200,,25.232,43.431,0.282807,180.0,190.0,200.0,200,ok,0.001,49.160,90,0,2000,0,2000,1600,1500,,," ]
}

@test "the same stream from standard input gives the same bytes" {
	a=$(lstat --csv "$T/all.mps")
	b=$(lstat --csv < "$T/all.mps")
	[ "$a" = "$b" ]
}

@test "--by length: rows short, long, all, split by hand" {
	run lstat --by length --csv "$T/all.mps"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | cut -d, -f1 | tr '\n' ' ')" = "group short long all " ]
	# short: ids 0 1 3 4 5, latencies 100 300 200 300 100, mean 200;
	# 8 packets (latency sum 1070, mean 133.75), 8 / 14000 * 420 = 0.24.
	# long: id 2, 6 packets of 180.
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f1-10)" = "short,5,8,0.240000,200.000,,130.000,133.750,200.0,1.3750" ]
	[ "$(printf '%s\n' "$output" | sed -n 3p | cut -d, -f1-10)" = "long,1,6,0.180000,1200.000,,200.000,180.000,180.0,1.0000" ]
}

@test "--by length text rows in order; packets after their message are matched in netrun's order only" {
	run lstat --by length "$T/all.mps"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | awk 'NR > 1 && NR < 5 {print $1}' | tr '\n' ' ')" = "short long all " ]
	# Message records first: their packets cannot be told short or long.
	cat "$T/dlv.mps" "$T/pkt.mps" "$T/run.mps" > "$T/rev.mps"
	run lstat --by length --csv "$T/rev.mps"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets short,5,0 long,1,0 all,6,14 " ]
	run lstat --by length "$T/rev.mps"
	[[ "$output" == *"# note: 14 packets were not followed by their message's delivery record: counted in all only"* ]]
}

@test "--by class, group, packets, src, hops row names" {
	run lstat --by class --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets best-effort,5,13 guaranteed,1,1 all,6,14 " ]
	run lstat --by group --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets hot,1,1 independent,5,13 all,6,14 " ]
	run lstat --by packets --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets 1,3,3 2,1,2 3,1,3 6,1,6 all,6,14 " ]
	run lstat --by src --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets 0,2,4 1,1,2 2,1,6 3,1,1 4,1,1 all,6,14 " ]
	# hops: packets of 1 hop: 11, of 2: 3; messages by hops/packets:
	# 1 (ids 0 2 4 5) and 2 (ids 1 3).
	run lstat --by hops --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | cut -d, -f1-3 | tr '\n' ' ')" = "group,messages,packets 1,4,11 2,2,3 all,6,14 " ]
}

@test "--warmup 2 drops ids 0 and 1 and their 3 packets" {
	run lstat --warmup 2 --csv "$T/all.mps"
	[ "$status" -eq 0 ]
	# Kept: ids 2..5, latencies 1200 200 300 100 (mean 450); 11 packets.
	# Window [100, 2000] (earliest kept arrival): 11 / (7 * 1900) * 420
	# = 0.347368. Utilization from the snapshot at 1000: 0.6 and 0.2.
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f1-5,11-12,34-37)" = "all,4,11,0.347368,450.000,0.600000,0.200000,100,2000,1000,2000" ]
	run lstat -q --warmup 2 "$T/all.mps"
	[ "${lines[4]}" = "# warm-up: messages with id < 2; discarded 2 messages, 3 packets" ]
	[ "${lines[5]}" = "# window: [100, 2000]; utilization over [1000, 2000]" ]
}

@test "--warmup-time 400 drops earlier arrivals and injections" {
	run lstat --warmup-time 400 --csv "$T/all.mps"
	[ "$status" -eq 0 ]
	# Kept messages 3 4 5 (latencies 200 300 100, mean 200); packets
	# injected at 400 or later: 4 of id 2, 1 + 3 + 1 = 9. Window
	# [400, 2000]: 9 / (7 * 1600) * 420 = 0.3375.
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f1-5,11-12,34-37)" = "all,3,9,0.337500,200.000,0.600000,0.200000,400,2000,1000,2000" ]
	# Both: a record is kept when both keep it (ids 4 and 5, 3 + 1
	# packets); the window starts at the earliest kept arrival, 700.
	run lstat --warmup 4 --warmup-time 400 --csv "$T/all.mps"
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f1-3,34)" = "all,2,4,700" ]
}

@test "a warm-up that discards everything leaves empty fields" {
	run lstat --warmup 100 --csv "$T/all.mps"
	[ "$status" -eq 0 ]
	# Makespan and trace end describe the whole stream, warm-up or not.
	[ "${lines[1]}" = "all,0,0,,,,,,,,,,0.500000,,,,,,,,,,,,,,,,,ok,,,,,,,,1600,1500,,," ]
	run lstat --warmup 100 -q "$T/all.mps"
	[ "${lines[5]}" = "# window: empty (the warm-up discarded every message)" ]
}

@test "a saturated run is reported, exit 0" {
	run_stream "1,7,2000,9,6,16,14,2,0" > "$T/sat.mps"
	cat "$T/pkt.mps" "$T/dlv.mps" "$T/util.mps" "$T/sat.mps" > "$T/s.mps"
	run lstat "$T/s.mps"
	[ "$status" -eq 0 ]
	[[ "${lines[2]}" == "# status: SATURATED:"* ]]
	run lstat --csv "$T/s.mps"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f30)" = saturated ]
}

@test "count mismatch with the run record: exit 1" {
	run_stream "0,7,2000,7,7,14,14,0,0" > "$T/bad.mps"
	cat "$T/pkt.mps" "$T/dlv.mps" "$T/bad.mps" > "$T/b.mps"
	run lstat "$T/b.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: $T/b.mps: counts not conserved: the run record says 7 messages"* ]]
}

@test "a stream cut short: exit 1 naming the input" {
	size=$(wc -c < "$T/all.mps")
	head -c $((size - 20)) "$T/all.mps" > "$T/cut.mps"
	run lstat "$T/cut.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: $T/cut.mps: "* ]]
	run lstat < "$T/cut.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: stdin: "* ]]
	# Every prefix of a raw stream fails cleanly.
	mpcat --raw "$T/all.mps" > "$T/raw.mps"
	size=$(wc -c < "$T/raw.mps")
	for n in 0 1 5 17 100 $((size / 2)) $((size - 1)); do
		head -c $n "$T/raw.mps" > "$T/p.mps"
		run lstat "$T/p.mps"
		[ "$status" -eq 1 ]
		[[ "$output" == "lstat: $T/p.mps"* ]]
	done
}

@test "a messages stream: exit 1 naming its kind" {
	printf 'class,group,route,src,dst,packets,id,time,bytes,prio\n0,0,0,0,1,1,0,5,0,0\n' > "$T/m.csv"
	mpcat -C -k messages -r msg -s nodes=7 "$T/m.csv" > "$T/m.mps"
	run lstat "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "lstat: $T/m.mps: a stream of kind messages, not deliveries" ]
}

@test "--prov prints the provenance entries; -q hides them in the table" {
	run lstat --prov "$T/all.mps"
	[ "$status" -eq 0 ]
	[[ "$output" == "mpcat "*" args=-C -k deliveries -r pkt "*"data/pkt_small.csv" ]]
	run lstat "$T/all.mps"
	[[ "${lines[7]}" == "# prov: mpcat "*"data/pkt_small.csv" ]]
	run lstat -q "$T/all.mps"
	[[ "$output" != *"# prov:"* ]]
}

@test "--plot: a column-name comment, then the CSV columns with -" {
	run lstat --plot --by length "$T/all.mps"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "# $(echo "$CSVHEAD" | tr , ' ')" ]
	[ "$(echo "${lines[2]}" | cut -d' ' -f1-6)" = "long 1 6 0.180000 1200.000 -" ]
	[ "$(printf '%s\n' "$output" | awk 'NR > 1 {print NF}' | sort -u)" = 42 ]
}

@test "-h: usage on stdout, exit 0" {
	run lstat -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: lstat "* ]]
}

@test "bad option: one line, exit 2" {
	run lstat --bogus
	[ "$status" -eq 2 ]
	[ "$output" = "lstat: unknown option '--bogus'; try 'lstat -h'" ]
	run lstat --by colour "$T/all.mps"
	[ "$status" -eq 2 ]
	run lstat --csv --plot "$T/all.mps"
	[ "$status" -eq 2 ]
	run lstat "$T/all.mps" "$T/all.mps"
	[ "$status" -eq 2 ]
}

@test "--warmup -1: exit 2 naming --warmup" {
	run lstat --warmup -1 "$T/all.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "lstat: --warmup: '-1' is not an unsigned integer; try 'lstat -h'" ]
	run lstat --warmup-time x "$T/all.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "lstat: --warmup-time: "* ]]
}

@test "a failed write to stdout: exit 1" {
	[ -w /dev/full ] || skip "no /dev/full"
	run sh -c 'lstat "$1" > /dev/full' sh "$T/all.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: stdout: write failed: "* ]]
}

@test "a missing input file: exit 1 naming it" {
	run lstat "$T/nonexistent.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: $T/nonexistent.mps"* ]]
}

@test "throughput up to the last arrival: near the offered load when stable, below it when saturated" {
	# netrun marks the end of its input; lstat counts the packets
	# ejected by then. Uniform single packets on PO2: 30000 messages
	# at 0.6 carry 0.6 within a few per cent (Poisson noise about 0.6%,
	# plus what is still queued or in flight at the mark); at 1.3 the
	# fabric cannot carry the load.
	wlgen --preset po2 --uniform --load 0.6 -n 30000 --seed 5 |
		netrun --preset po2 -k > "$T/ok.mps"
	run lstat "$T/ok.mps"
	[[ "$output" == *", to the last arrival (throughput: packets ejected by then)"* ]]
	thr=$(lstat --csv "$T/ok.mps" | awk -F, 'NR == 2 { print $4 }')
	awk -v t="$thr" 'BEGIN { exit !(t > 0.58 && t < 0.61) }'
	wlgen --preset po2 --uniform --load 1.3 -n 30000 --seed 5 |
		netrun --preset po2 -k > "$T/sat.mps"
	run sh -c "lstat --csv '$T/sat.mps' | awk -F, 'NR == 2 { print \$4, \$30 }'"
	read thr st <<<"$output"
	[ "$st" = saturated ]
	awk -v t="$thr" 'BEGIN { exit !(t < 1.1) }'
}

@test "--slow-inputs K: periods in which every input router accepts K packets (ncube)" {
	# One 2x2 router, B = 1, saturated: after a few units the router
	# accepts exactly one packet per unit, so every period of K = 4 is 4
	# units and the slowest input rate is 4 / (2 x 4).
	wlgen --preset ncube --stages 1 --arrival model:1 -n 20000 --seed 2 |
		netrun --preset ncube --stages 1 --fifo 1 -o "$T/d.mps"
	run lstat --csv --slow-inputs 4 --warmup-time 100 "$T/d.mps"
	[ "$status" -eq 0 ]
	# damq's bottleneck_util stays last (empty: lstat knows no port
	# classes of a butterfly)
	[[ "${lines[0]}" == *,dep_wait_p99,slow_time,slow_rate,bottleneck_util ]]
	[[ "${lines[1]}" == *,4.000,0.500000, ]]
	run lstat --slow-inputs 4 --warmup-time 100 "$T/d.mps"
	[[ "${lines[0]}" == *"slow_time  slow_rate" ]]
	[[ "$output" == *"# slow inputs: "*" periods in which every input router (2 inputs) accepted 4 packets"* ]]
	# without the option the columns are absent
	run lstat --csv "$T/d.mps"
	[[ "${lines[0]}" == *,dep_wait_p99,bottleneck_util ]]
	# four stages: the slowest input router is slower than the mean
	wlgen --preset ncube --stages 4 --arrival model:1 -n 40000 --seed 2 |
		netrun --preset ncube --stages 4 --fifo 1 -o "$T/e.mps"
	run lstat --csv --slow-inputs 4 --warmup-time 100 "$T/e.mps"
	thr=$(echo "${lines[1]}" | cut -d, -f4)
	rate=$(echo "${lines[1]}" | awk -F, '{ print $(NF - 1) }')
	awk -v a="$rate" -v b="$thr" 'BEGIN { exit !(a > 0 && a < b) }'
}

@test "ncube: throughput counts the packets accepted in the window, not those ejected in it" {
	wlgen --preset ncube --stages 5 --arrival model:1 -n 5000 --seed 3 |
		netrun --preset ncube --stages 5 --fifo 2 -o "$T/e.mps"
	run lstat --csv --warmup-time 20 "$T/e.mps"
	thr=$(echo "${lines[1]}" | cut -d, -f4)
	ws=$(echo "${lines[1]}" | cut -d, -f34)
	we=$(echo "${lines[1]}" | cut -d, -f35)
	[ "$ws" = 20 ]
	# recount from the packet records: injected in [ws, we) over 32 inputs
	acc=$(mpcat -c -r pkt "$T/e.mps" | awk -F, -v a="$ws" -v b="$we" '
		NR > 1 && $8 >= a && $8 < b { n++ }
		END { printf "%.6f", n / (32 * (b - a)) }')
	ej=$(mpcat -c -r pkt "$T/e.mps" | awk -F, -v a="$ws" -v b="$we" '
		NR > 1 && $8 >= a && $9 <= b { n++ }
		END { printf "%.6f", n / (32 * (b - a)) }')
	[ "$thr" = "$acc" ]
	[ "$thr" != "$ej" ]
	run lstat --warmup-time 20 "$T/e.mps"
	[[ "$output" == *"(throughput: packets accepted by then)"* ]]
}

@test "--warmup-packets W --measure-packets M: per source and class, packets W .. W+M-1 in injection order" {
	wlgen --preset rs --load 0.05 --gt-load 0.03 -n 6000 --seed 2 > "$T/w.mps"
	netrun --preset rs --class gt=ps --class be=wormhole "$T/w.mps" > "$T/d.mps"
	# the same window counted from the packet records themselves
	mpcat -c -r pkt "$T/d.mps" | awk -F, 'NR > 1 { print $4 "," $1 "," $8 "," $7 "," $6 "," ($9 - $8) }' |
		sort -t, -k1,1n -k2,2n -k3,3n -k4,4n -k5,5n |
		awk -F, '{ k = $1 "," $2; r = n[k]++; if (r >= 20 && r < 50) { c[$2]++; s[$2] += $6 } }
			END { printf "%d %d %.1f %.1f\n", c[0], c[1], s[0] / c[0], s[1] / c[1] }' > "$T/want"
	lstat --csv --by class --warmup-packets 20 --measure-packets 30 "$T/d.mps" |
		awk -F, 'NR == 2 { b = $3; bl = $8 } NR == 3 { g = $3; gl = $8 } END { printf "%d %d %.1f %.1f\n", b, g, bl, gl }' > "$T/got"
	diff "$T/want" "$T/got"
	run lstat --warmup-packets 20 --warmup 3 "$T/d.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "lstat: --warmup-packets and --measure-packets exclude --warmup and --warmup-time; try 'lstat -h'" ]
	run lstat --measure-packets 0 "$T/d.mps"
	[ "$status" -eq 2 ]
}

# A run of 2 nodes whose input ends at 1000: ten 1-packet messages arrive
# at 500, 550, ... 950 (the second half of the input, [500, 1000]); the
# first $1 are ejected 10 units after arriving, before the end of the
# input, the others after it, in the drain.
half_fixture() {
	M="-s nodes=2 -s pe_time=420 -s load=0.5"
	awk -v k="$1" 'BEGIN {
		print "class,group,flags,src,dst,seq,msg,t_inject,t_eject,hops,deroutes,refusals" > "'"$T"'/pe.csv"
		print "class,group,flags,src,dst,seq,msg,t_inject,t_eject,hops,deroutes,refusals" > "'"$T"'/pl.csv"
		print "class,group,src,dst,packets,id,t_arrive,t_first,t_done,bytes,hops" > "'"$T"'/d.csv"
		for (i = 0; i < 10; i++) {
			a = 500 + 50 * i; e = i < k ? a + 10 : 1100 + 10 * i
			print "0,0,0,0,1,0," i "," a "," e ",1,0,0" > "'"$T"'/" (i < k ? "pe" : "pl") ".csv"
			print "0,0,0,1,1," i "," a "," a "," e ",128,1" > "'"$T"'/d.csv"
		}
	}'
	printf 'scope,node,port,nports,t,busy,refused,transfers,refusals\n3,4294967295,6,2,1000,500,0,5,0\n' > "$T/u.csv"
	printf '%s\n0,2,2000,10,10,10,10,0,0\n' "$RUNHDR" > "$T/r.csv"
	mpcat -C -k deliveries -r pkt $M "$T/pe.csv" > "$T/1.mps"
	mpcat -C -k deliveries -r util $M "$T/u.csv" > "$T/2.mps"
	mpcat -C -k deliveries -r pkt $M "$T/pl.csv" > "$T/3.mps"
	mpcat -C -k deliveries -r dlv $M "$T/d.csv" > "$T/4.mps"
	mpcat -C -k deliveries -r run $M "$T/r.csv" > "$T/5.mps"
	cat "$T"/[1-5].mps > "$T/half.mps"
}

@test "saturation: accepted below offered over the second half, by over 2 packets per node" {
	# 5 of 10 accepted: 5 short, 2.5 per node: saturated, though the
	# run record says ok.
	half_fixture 5
	run lstat -q "$T/half.mps"
	[ "$status" -eq 0 ]
	[[ "${lines[2]}" == "# status: SATURATED:"* ]]
	[ "${lines[3]}" = "# saturation: run record: ok; second half of the input [500, 1000]: accepted 5 of 10 packets offered (0.5000; 2.5 per node short): saturated (saturated below 0.99 and over 2 per node short)" ]
	run lstat --csv "$T/half.mps"
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f30)" = saturated ]
	# 6 of 10: 2.0 per node short is within the tolerance.
	half_fixture 6
	run lstat -q "$T/half.mps"
	[ "${lines[2]}" = "# status: ok" ]
	[[ "${lines[3]}" == *"accepted 6 of 10 packets offered (0.6000; 2.0 per node short): ok "* ]]
}

@test "saturation: the 8x8 torus at 0.68 and 0.70 is flagged, at 0.5 not" {
	for l in 0.5 0.68 0.70; do
		wlgen --preset torus --load $l -n 40000 | netrun --preset torus -k |
			lstat -q --csv | cut -d, -f30 | sed 1d > "$T/s$l"
	done
	[ "$(cat "$T/s0.5")" = ok ]
	[ "$(cat "$T/s0.68")" = saturated ]
	[ "$(cat "$T/s0.70")" = saturated ]
}

@test "--by length batches a group's packets in stream order, also with reused ids and --warmup-packets" {
	# Only long messages: the long row must equal the all row (batched
	# in stream order) in every column; batching the packets in the
	# order of their messages' records gave another pkt_lat_ci95.
	wlgen --preset po2 --long 100 --load 0.3 -n 4000 --seed 5 | mpcat -c > "$T/m.csv"
	mpcat -C -s nodes=91 "$T/m.csv" | netrun --preset po2 -q > "$T/a.mps"
	lstat --csv --by length "$T/a.mps" > "$T/a.csv"
	[ "$(sed -n 3p "$T/a.csv" | cut -d, -f2-)" = "$(sed -n 4p "$T/a.csv" | cut -d, -f2-)" ]
	[ "$(sed -n 3p "$T/a.csv" | cut -d, -f1,3)" = "long,100000" ]
	# The interval is there to compare (not "-" in both rows).
	[ -n "$(sed -n 3p "$T/a.csv" | cut -d, -f23)" ]
	# Ids reused (id mod 300: never two in flight at once) give the
	# same statistics: packets join the message whose record follows them.
	awk -F, -v OFS=, 'NR > 1 { $7 = $7 % 300 } 1' "$T/m.csv" > "$T/r.csv"
	mpcat -C -s nodes=91 "$T/r.csv" | netrun --preset po2 -q > "$T/b.mps"
	[ "$(mpcat -c -r dlv "$T/b.mps" | cut -d, -f6 | sort -n | uniq | wc -l)" -eq 301 ]
	lstat --csv --by length "$T/b.mps" > "$T/b.csv"
	cmp "$T/a.csv" "$T/b.csv"
	# --warmup-packets 0 keeps every packet: batched in stream order too
	# (messages and packets), so every row is as without it.
	lstat --csv --by length --warmup-packets 0 "$T/a.mps" > "$T/w.csv"
	cmp "$T/a.csv" "$T/w.csv"
}
