#!/usr/bin/env bats
# The buffer organizations of the flit model on unidirectional k-ary
# n-cubes (SPEC 3.5; netrun(1) "Buffer organizations"): the damq preset
# end to end, each organization with 1- and 8-flit packets and bounded
# buffers under --self-check, the zero-load latency in the full network,
# determinism, --show-config round trip, and the hostile options.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
}

# col NAME: the column number of NAME in the CSV header on stdin's first line.
col() {
	head -1 | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}

# orgs_clean TOPO LOAD SEED FMUL [LINKS]: for 1- and 8-flit packets, a
# wlgen stream of 3000 messages at LOAD; each organization, unbounded
# and at FMUL * L flits an input, runs it under --self-check and
# delivers every message (every packet over LINKS links when given).
# Leaves the last stream (L = 8) in $T/w.mps.
orgs_clean() {
	for L in 1 8; do
		wlgen --preset damq --topo $1 --load $2 --packet-flits $L -n 3000 --seed $3 > "$T/w.mps"
		for b in fifo safc samq damq oq; do
			for F in 0 $(($4 * L)); do
				run netrun --preset damq --topo $1 --packet-flits $L --buffer $b --buf-flits $F --self-check -o "$T/d.mps" "$T/w.mps"
				echo "$1 $b L=$L F=$F: $output"
				[ "$status" -eq 0 ]
				run mpcat -c -r run "$T/d.mps"
				[[ "${lines[1]}" == 0,*,3000,3000,* ]]
				[ -z "${5:-}" ] || mpcat -c -r pkt "$T/d.mps" | awk -F, -v h=$5 'NR > 1 && $10 != h { exit 1 }'
			done
		done
	done
}

# zero_load TOPO ORG L: 3000 messages of L-flit packets at load 0.001 on
# TOPO through ORG buffers; the mean packet latency is hops + L - 1 (a hop
# a cycle), within 1%.
zero_load() {
	wlgen --preset damq --topo $1 --load 0.001 --packet-flits $3 -n 3000 --seed 4 > "$T/w.mps"
	netrun --preset damq --topo $1 --packet-flits $3 --buffer $2 -o "$T/d.mps" "$T/w.mps"
	lstat --csv "$T/d.mps" > "$T/s.csv"
	lat=$(col pkt_lat_mean < "$T/s.csv")
	hops=$(col hops_mean < "$T/s.csv")
	run awk -F, -v l=$lat -v h=$hops -v L=$3 'NR == 2 {
		want = $h + L - 1; d = $l - want
		print $l, want; exit !(d >= 0 && d < 0.01 * want) }' "$T/s.csv"
	echo "$1 $2 L=$3: $output"
	[ "$status" -eq 0 ]
}

@test "damq preset: wlgen and netrun on kary:8,3, every packet delivered, load in flits per node per cycle" {
	wlgen --preset damq --topo kary:8,3 --load 0.1 --packet-flits 1 -n 20000 --seed 5 > "$T/w.mps"
	run netrun --preset damq --topo kary:8,3 --buffer damq --self-check -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 0 ]
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,*,20000,20000,* ]]
	lstat --csv "$T/d.mps" > "$T/s.csv"
	o=$(col offered < "$T/s.csv")
	st=$(col status < "$T/s.csv")
	[ "$(sed -n 2p "$T/s.csv" | cut -d, -f$o,$st)" = "0.100000,ok" ]
}

@test "zero load in the full network: latency = hops + L - 1 (a hop a cycle), within 1%" {
	for L in 1 8; do
		zero_load kary:8,3 damq $L
	done
}

@test "each organization, 1- and 8-flit packets, bounded and unbounded: self-check clean, every packet delivered" {
	orgs_clean kary:4,3 0.15 6 16
}

@test "small buffers: damq below samq and fifo, oq lowest; unbounded samq and damq identical" {
	wlgen --preset damq --load 0.2 -n 30000 --seed 1 > "$T/w.mps"
	for b in fifo samq damq oq; do
		netrun --preset damq --buffer $b --buf-flits 8 -k "$T/w.mps" | lstat --csv > "$T/$b.csv"
	done
	lat=$(col pkt_lat_mean < "$T/fifo.csv")
	f=$(sed -n 2p "$T/fifo.csv" | cut -d, -f$lat)
	s=$(sed -n 2p "$T/samq.csv" | cut -d, -f$lat)
	d=$(sed -n 2p "$T/damq.csv" | cut -d, -f$lat)
	o=$(sed -n 2p "$T/oq.csv" | cut -d, -f$lat)
	echo "fifo $f samq $s damq $d oq $o"
	awk -v f=$f -v s=$s -v d=$d -v o=$o 'BEGIN { exit !(o < d && d < f && d < s) }'
	netrun --preset damq --buffer samq "$T/w.mps" | mpcat -c -r pkt > "$T/a"
	netrun --preset damq --buffer damq "$T/w.mps" | mpcat -c -r pkt > "$T/b"
	cmp "$T/a" "$T/b"
}

@test "same input and options give the same bytes; --show-config reproduces the run" {
	wlgen --preset damq --load 0.1 --packet-flits 8 -n 3000 --seed 2 > "$T/w.mps"
	netrun --preset damq --packet-flits 8 --buffer damq --buf-flits 32 --arb oldest "$T/w.mps" > "$T/a.mps"
	netrun --preset damq --packet-flits 8 --buffer damq --buf-flits 32 --arb oldest "$T/w.mps" > "$T/b.mps"
	cmp "$T/a.mps" "$T/b.mps"
	conf=$(netrun --preset damq --packet-flits 8 --buffer damq --buf-flits 32 --arb oldest --show-config)
	echo "$conf" | grep -qx -- "--topo kary:8,3"
	echo "$conf" | grep -qx -- "--buf-org damq"
	echo "$conf" | grep -qx -- "--arb oldest"
	netrun $(echo "$conf" | tr '\n' ' ') "$T/w.mps" > "$T/c.mps"
	mpcat -c -r pkt "$T/a.mps" > "$T/a.csv"
	mpcat -c -r pkt "$T/c.mps" > "$T/c.csv"
	cmp "$T/a.csv" "$T/c.csv"
	netrun --preset damq --packet-flits 8 --buffer damq --buf-flits 32 "$T/w.mps" | mpcat -c -r pkt > "$T/d.csv"
	! cmp -s "$T/a.csv" "$T/d.csv"
}

@test "hostile options are one-line errors" {
	wlgen --preset damq --load 0.1 --packet-flits 8 -n 50 --seed 1 > "$T/w.mps"
	run netrun --preset damq --packet-flits 8 --buf-flits 8 "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "netrun: --buf-flits 8: --buffer damq leaves 4 flits per class, less than one packet (8 flits)"* ]]
	run netrun --preset damq --buffer safc --packet-flits 8 --buf-flits 32 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --buf-flits 32: --buffer safc leaves 4 flits per queue, less than one packet (8 flits)"* ]]
	run netrun --preset damq --topo kary:1,3 "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "netrun: --topo: kary:1,3 needs K >= 2 and 1 <= N <= 20"* ]]
	run wlgen --preset damq --topo kary:1,3 --load 0.1 -n 5
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --topo: kary:1,3 needs K >= 2"* ]]
	run netrun --preset damq --buffer lifo "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "netrun: --buffer: 'lifo' is not one of vc-fifo|fifo|safc|samq|damq|oq"* ]]
	run netrun --preset damq --switching wormhole "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --buffer damq: needs --switching vct or ps"* ]]
	run netrun --preset damq --buffer vc-fifo --buf-flits 8 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --buf-flits: applies to --buffer fifo, safc, samq, damq or oq"* ]]
	run netrun --preset damq --topo kary:8,3 --size 4 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --size: a k-ary n-cube is sized by --topo kary:K,N"* ]]
	run netrun --preset damq --model packet "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: "*"kncube-uni:8,3"* ]]
}

@test "lstat --csv: bottleneck_util by hand, the busiest class of link ports against int_util" {
	cd "$BATS_TEST_DIRNAME"
	META="-s nodes=7 -s pe_time=420 -s short_max=5 -s load=0.5 -s topology=kary:4,2"
	# int_util 0.2 over [0, 2000] (data/util_small.csv); per-port
	# records of the 2 link ports of 4 switches: port 0 at 800/2000 =
	# 0.4, port 1 at 0.2, mean 0.3; port 2 (the terminal's, 0.95) is no
	# link. 0.2 * 0.4 / 0.3 = 0.266667. Without the topology: empty.
	{ cat data/util_small.csv
	  for n in 0 1 2 3; do
		echo 2,$n,0,1,2000,800,0,0,0
		echo 2,$n,1,1,2000,400,0,0,0
		echo 2,$n,2,1,2000,1900,0,0,0
	  done; } > "$T/u.csv"
	for r in dlv pkt run; do
		mpcat -C -k deliveries -r $r $META data/${r}_small.csv > "$T/$r.mps"
	done
	mpcat -C -k deliveries -r util $META "$T/u.csv" > "$T/util.mps"
	cat "$T/pkt.mps" "$T/dlv.mps" "$T/util.mps" "$T/run.mps" > "$T/all.mps"
	lstat --csv "$T/all.mps" > "$T/s.csv"
	b=$(col bottleneck_util < "$T/s.csv")
	i=$(col int_util < "$T/s.csv")
	[ "$b" -eq "$(head -1 "$T/s.csv" | tr ',' '\n' | wc -l)" ]
	[ "$(sed -n 2p "$T/s.csv" | cut -d, -f$i,$b)" = "0.200000,0.266667" ]
	META=${META% -s topology=*}
	for r in dlv pkt run; do
		mpcat -C -k deliveries -r $r $META data/${r}_small.csv > "$T/$r.mps"
	done
	mpcat -C -k deliveries -r util $META "$T/u.csv" > "$T/util.mps"
	cat "$T/pkt.mps" "$T/dlv.mps" "$T/util.mps" "$T/run.mps" | lstat --csv > "$T/s.csv"
	[ "$(sed -n 2p "$T/s.csv" | cut -d, -f$i,$b)" = "0.200000," ]
}

# On the omega every link between stages is one class: bottleneck_util
# is int_util, and on uniform traffic the mean of the per-port records
# of the stage 0..S-2 outputs (switches numbered stage by stage, 64 to a
# stage; outputs are ports 4..7), not counting the terminals' ports
# (port 8, the flits injected at a stage-0 switch, 4 terminals' worth),
# within 2% (the records run to the last delivery, int_util to the end
# of the input).
@test "lstat --csv: bottleneck_util on omega:4,4 is the utilization of the links between stages, from the per-port records" {
	wlgen --preset damq --topo omega:4,4 --dest any --load 0.5 -n 100000 --seed 2 > "$T/w.mps"
	netrun --preset damq --topo omega:4,4 --buffer damq -k "$T/w.mps" > "$T/d.mps"
	lstat --csv "$T/d.mps" > "$T/s.csv"
	b=$(col bottleneck_util < "$T/s.csv")
	i=$(col int_util < "$T/s.csv")
	bu=$(sed -n 2p "$T/s.csv" | cut -d, -f$b)
	iu=$(sed -n 2p "$T/s.csv" | cut -d, -f$i)
	r=$(mpcat -c -r util "$T/d.mps" | awk -F, '$1 == 2 && $2 < 192 && $3 >= 4 && $3 < 8 { s += $6 / $5; n++ } END { printf "%.6f %d", s / n, n }')
	echo "bottleneck_util $bu int_util $iu per-port links $r"
	[ -n "$bu" ]
	[ "$bu" = "$iu" ]
	set -- $r
	[ "$2" -eq 768 ]
	awk -v b=$bu -v r=$1 'BEGIN { d = b / r - 1; exit !(d < 0.02 && d > -0.02 && r > 0.45) }'
}

@test "binary 8-cube (9-port routers, more than 64 input queues): each organization, self-check clean, every packet delivered, zero load = hops + L - 1" {
	orgs_clean kary:2,8 0.15 7 36
	for L in 1 8; do
		wlgen --preset damq --topo kary:2,8 --load 0.15 --packet-flits $L -n 3000 --seed 7 > "$T/w.mps"
		# unbounded, samq and damq are the same buffer (as on kary:8,3):
		# the same packet records, in another order within a cycle when
		# damq's credits return at a packet's tail and wake the router
		# upstream at other times than samq's
		netrun --preset damq --topo kary:2,8 --packet-flits $L --buffer samq "$T/w.mps" | mpcat -c -r pkt | sort > "$T/a"
		netrun --preset damq --topo kary:2,8 --packet-flits $L --buffer damq "$T/w.mps" | mpcat -c -r pkt | sort > "$T/b"
		cmp "$T/a" "$T/b"
		zero_load kary:2,8 samq $L
	done
}

@test "omega:4,4 (256 terminals, 4x4 switches): wlgen's workload, each organization, self-check clean, every packet delivered, deterministic" {
	wlgen --preset damq --topo omega:4,4 --load 0.1 -n 10 --seed 1 | mpcat -H | grep -qx "nodes=256"
	# every packet crosses the 4 stages: 3 links
	orgs_clean omega:4,4 0.4 6 4 3
	netrun --preset damq --topo omega:4,4 --packet-flits 8 --buffer damq --buf-flits 32 "$T/w.mps" > "$T/a.mps"
	netrun --preset damq --topo omega:4,4 --packet-flits 8 --buffer damq --buf-flits 32 "$T/w.mps" > "$T/b.mps"
	cmp "$T/a.mps" "$T/b.mps"
	netrun --preset damq --topo omega:4,4 --packet-flits 8 --buffer fifo --buf-flits 32 "$T/w.mps" > "$T/c.mps"
	! cmp -s "$T/a.mps" "$T/c.mps"
}

@test "omega:2,10 (5120 switches, past the routing distance table): every packet delivered over the 9 links of its one path, self-check clean" {
	wlgen --preset damq --topo omega:2,10 --load 0.3 -n 5000 --seed 2 > "$T/w.mps"
	run netrun --preset damq --topo omega:2,10 --buffer damq --buf-flits 4 --self-check -o "$T/d.mps" "$T/w.mps"
	echo "$output"
	[ "$status" -eq 0 ]
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,1024,*,5000,5000,5000,5000,0,0 ]]
	mpcat -c -r pkt "$T/d.mps" | awk -F, 'NR > 1 && $10 != 9 { exit 1 }'
}

@test "omega:4,4 at zero load: latency from the first flit entering a stage-0 switch to the last leaving the last = (S - 1) + L - 1" {
	for L in 1 8; do
		wlgen --preset damq --topo omega:4,4 --load 0.001 --packet-flits $L -n 3000 --seed 4 > "$T/w.mps"
		netrun --preset damq --topo omega:4,4 --packet-flits $L --buffer damq -o "$T/d.mps" "$T/w.mps"
		lstat --csv "$T/d.mps" > "$T/s.csv"
		lat=$(col pkt_lat_mean < "$T/s.csv")
		hops=$(col hops_mean < "$T/s.csv")
		run awk -F, -v l=$lat -v h=$hops -v L=$L 'NR == 2 {
			want = 3 + L - 1; d = $l - want
			print $l, want, $h; exit !($h == 3 && d >= 0 && d < 0.01 * want) }' "$T/s.csv"
		echo "L=$L: $output"
		[ "$status" -eq 0 ]
	done
}

# A single 2x2 switch (omega:2,1), saturated sources, FIFO input
# buffers, uniform destinations over both outputs (--dest any: a
# terminal's own output too), 1-flit packets. Head-of-line blocking:
# the two head packets collide with probability 1/2 in every cycle,
# whatever the arbitration (the loser keeps its destination, the
# winner's successor draws a new one), so each input carries
# (1/2 * 2 + 1/2 * 1) / 2 = 0.75 packets per cycle. Throughput from the
# packet records by batch means (20 batches of the time before the
# first source runs dry), against 0.75 within the 99% interval
# (t = 2.861 for 19 degrees of freedom).
@test "2x2 FIFO switch through the flit model under saturation: 0.75 per input (head-of-line blocking), within the 99% interval" {
	wlgen --preset damq --topo omega:2,1 --arrival saturated --dest any --load 1 -n 40000 --seed 1 > "$T/w.mps"
	netrun --preset damq --topo omega:2,1 --buffer fifo --self-check -k -o "$T/d.mps" "$T/w.mps"
	mpcat -c -r pkt "$T/d.mps" > "$T/p.csv"
	run awk -F, 'NR > 1 { t[NR] = $9; if ($8 > last[$4]) last[$4] = $8 }
	    END {
		end = last[0] < last[1] ? last[0] : last[1]
		B = 20; len = int(end / B)
		for (i in t) if (t[i] < B * len) c[int(t[i] / len)]++
		for (b = 0; b < B; b++) { x = c[b] / (2 * len); s += x; ss += x * x }
		m = s / B; sd = sqrt((ss - B * m * m) / (B - 1))
		h = 2.861 * sd / sqrt(B); d = m - 0.75; if (d < 0) d = -d
		printf "throughput %.5f +- %.5f over %d cycles\n", m, h, B * len
		exit !(d <= h && h < 0.01) }' "$T/p.csv"
	echo "$output"
	[ "$status" -eq 0 ]
}

# The same 2x2 switch with per-output queues, unbounded: a terminal's
# channel brings one packet per cycle into the queue of its output, so
# every queue has packets and each output, fed by Bernoulli(1/2)
# arrivals from each input (1 a cycle on average), is critically
# loaded: its backlog is a reflected random walk of step
# variance 1/2, which in T cycles stands empty about sqrt(T / pi)
# times (the mean maximum of the walk, sigma sqrt(2 T / pi)). The
# switch then carries 1 - 1 / sqrt(pi T) packets per input and cycle
# (1 in the limit; 0.85 when the injection port had one-packet queues
# and a source's head blocked the packets behind it), while fifo stays
# at the head-of-line 0.75 (the test above). Batch means over the time before the
# first source runs dry, 99% interval.
@test "2x2 switch with per-output queues under saturation: 1 per input (less the critically loaded outputs' idle time), within the 99% interval" {
	wlgen --preset damq --topo omega:2,1 --arrival saturated --dest any --load 1 -n 200000 --seed 1 > "$T/w.mps"
	for b in safc samq damq oq; do
		netrun --preset damq --topo omega:2,1 --buffer $b -k -o "$T/d.mps" "$T/w.mps"
		mpcat -c -r pkt "$T/d.mps" > "$T/p.csv"
		run awk -F, 'NR > 1 { t[NR] = $9; if ($8 > last[$4]) last[$4] = $8 }
		    END {
			end = last[0] < last[1] ? last[0] : last[1]
			B = 20; len = int(end / B); T = B * len
			for (i in t) if (t[i] < T) c[int(t[i] / len)]++
			for (b = 0; b < B; b++) { x = c[b] / (2 * len); s += x; ss += x * x }
			m = s / B; sd = sqrt((ss - B * m * m) / (B - 1))
			h = 2.861 * sd / sqrt(B); e = 1 - 1 / sqrt(3.14159265 * T)
			d = m - e; if (d < 0) d = -d
			printf "throughput %.5f +- %.5f over %d cycles, expected %.5f\n", m, h, T, e
			exit !(d <= h && h < 0.003) }' "$T/p.csv"
		echo "$b: $output"
		[ "$status" -eq 0 ]
	done
}

# Bounded injection buffers: a 1-flit packet is in its input buffer
# from the cycle it enters (t_inject) to the cycle it leaves the switch
# (t_eject, one stage), so the records give each input's occupancy in
# every cycle: never more than F packets, nor F/2 in a queue of safc
# and samq, and under saturation the bound is reached. --self-check
# recounts the injection buffers' room every cycle.
@test "bounded injection buffers on omega:2,1: never more than F flits at an input (F/2 a queue for safc and samq), F reached under saturation, self-check clean" {
	wlgen --preset damq --topo omega:2,1 --arrival saturated --dest any --load 1 -n 20000 --seed 3 > "$T/w.mps"
	for b in fifo safc samq damq oq; do
		for F in 2 4; do
			Q=$F S=0
			if [ $b = safc ] || [ $b = samq ]; then Q=$((F / 2)) S=1; fi
			netrun --preset damq --topo omega:2,1 --buffer $b --buf-flits $F --self-check -k -o "$T/d.mps" "$T/w.mps"
			run sh -c 'mpcat -c -r pkt "$1" | awk -F, -v F=$2 -v Q=$3 -v S=$4 "NR > 1 {
				for (t = \$8; t <= \$9; t++) { o[\$4 \",\" t]++; q[\$4 \",\" \$5 \",\" t]++ }; n++ }
			    END { for (k in o) if (o[k] > mi) mi = o[k]
				for (k in q) if (q[k] > mq) mq = q[k]
				printf \"%d packets, at most %d at an input, %d in a queue\n\", n, mi, mq
				exit !(n == 20000 && mi <= F && mq <= Q && (S ? mq == Q : mi == F)) }"' sh "$T/d.mps" $F $Q $S
			echo "$b F=$F: $output"
			[ "$status" -eq 0 ]
		done
	done
	# 8-flit packets, saturated sources on a ring network: self-check clean
	wlgen --preset damq --topo kary:4,2 --arrival saturated --load 1 --packet-flits 8 -n 3000 --seed 4 > "$T/w8.mps"
	for b in fifo safc samq damq oq; do
		run netrun --preset damq --topo kary:4,2 --packet-flits 8 --buffer $b --buf-flits 64 --self-check -k -o "$T/d.mps" "$T/w8.mps"
		echo "$b L=8: $output"
		[ "$status" -eq 0 ]
	done
}

@test "hostile: --dest any on a direct network, the flit model on a butterfly" {
	run wlgen --preset damq --dest any --load 0.1 -n 5
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --dest: any needs an indirect network"* ]]
	wlgen --preset damq --load 0.1 -n 5 > "$T/w.mps"
	run netrun --preset damq --topo butterfly:2,3 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --model flit: needs a torus:RxC, mesh:RxC, kary:K,N or omega:A,S network, not butterfly:2,3"* ]]
}

@test "dest=any: a stream with messages to their own source goes through mpcat's CSV and back; netrun refuses its header on a direct network" {
	wlgen --preset damq --topo omega:2,3 --dest any --load 0.5 -n 200 --seed 1 > "$T/w.mps"
	mpcat -c -m -r msg "$T/w.mps" > "$T/w.csv"
	# (some message goes to its own source)
	awk -F, '!/^#/ && $4 == $5 { n++ } END { exit !n }' "$T/w.csv"
	mpcat -C -r msg -o "$T/w2.mps" "$T/w.csv"
	[ "$(mpcat -c -r msg "$T/w2.mps")" = "$(mpcat -c -r msg "$T/w.mps")" ]
	# without dest=any, such a row is refused
	run mpcat -C -r msg -o "$T/w3.mps" <(grep -v '^#dest=' "$T/w.csv")
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"is sent to its own source"* ]]
	# the same header on a torus: the packet and flit models would take
	# such a message into the network
	sed 's/^#topology=.*/#topology=torus:4x4/; s/^#nodes=.*/#nodes=16/' "$T/w.csv" | mpcat -C -r msg -o "$T/t.mps"
	for p in torus rs; do
		run netrun --preset $p --topo torus:4x4 "$T/t.mps"
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "netrun: "*"t.mps: header: dest=any (messages to their own source) needs an indirect network, not torus:4x4" ]]
	done
}

@test "damq: netrun takes the stream's packet length, and refuses a different one" {
	wlgen --preset damq --topo kary:4,2 --load 0.2 --packet-flits 8 -n 3000 --seed 2 > "$T/w8.mps"
	mpcat -H "$T/w8.mps" | grep -qx 'packet_flits=8'
	# Without --packet-flits: the same run as with --packet-flits 8.
	netrun --preset damq --topo kary:4,2 --buffer damq -o "$T/a.mps" "$T/w8.mps"
	netrun --preset damq --topo kary:4,2 --buffer damq --packet-flits 8 -o "$T/b.mps" "$T/w8.mps"
	lstat --csv "$T/a.mps" > "$T/a.csv"
	lstat --csv "$T/b.mps" > "$T/b.csv"
	cmp "$T/a.csv" "$T/b.csv"
	# The offered load the stream was made for is carried (within 10%).
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["group"] == "all" { t = $c["throughput"]; exit }
		END { exit !(t > 0.18 && t < 0.22) }' "$T/a.csv"
	# A different length would change the load silently: refused.
	run netrun --preset damq --topo kary:4,2 --buffer damq --packet-flits 1 -o "$T/c.mps" "$T/w8.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == *"load is for 8-flit packets"* ]]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
	# Streams whose load is not in flits carry no such key.
	wlgen --preset torus --load 0.1 -n 100 | mpcat -H | grep -c '^packet_flits=' | grep -qx 0
}

@test "hostile: queues no machine can hold are refused in one line before any allocation" {
	wlgen --preset damq --topo kary:16,3 --load 0.1 -n 100 --seed 1 > "$T/w.mps"
	# 4096 routers x 32 queues x 2^20 flits of 16 bytes: about 1.1 TB.
	run netrun --preset damq --topo kary:16,3 --buffer damq --buf-flits 1048576 "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "netrun: --topo, --buf-flits: 4096 routers of 32 queues need about 1099.5 GB, more than this machine's "*" GB; try 'netrun -h'" ]]
	# The same network with 64 flits per input runs.
	netrun --preset damq --topo kary:16,3 --buffer damq --buf-flits 64 "$T/w.mps" > /dev/null
}
