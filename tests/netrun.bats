#!/usr/bin/env bats
# Tests of netrun: the PO2 model against values derived by hand (zero-load
# latency, mean distance, the derouting limit), conservation, determinism,
# saturation and deadlock detection, the buffer rule, and bad input.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
}

# Packet records of a deliveries stream as CSV.
pkts() { mpcat -c -r pkt "$1"; }

@test "netrun -h prints usage and exits 0" {
	run netrun -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: netrun [options] [file]" ]]
}

@test "show-config prints the po2 preset with overrides" {
	run netrun --show-config --buffers 8 --preset po2
	[ "$status" -eq 0 ]
	[[ "$output" == *"--topo hex:6"* ]]
	[[ "$output" == *"--buffers 8"* ]]
	[[ "$output" == *"--route derouting"* ]]
	[[ "$output" == *"--inject-setup 80"* ]]
	[[ "$output" == *"--eject-setup 20"* ]]
	[[ "$output" == *"--bp message"* ]]
	run netrun --show-config --preset torus --size 4
	[[ "$output" == *"--topo torus:4x4"* ]]
	[[ "$output" == *"--links full"* ]]
	[[ "$output" == *"--pe-port separate"* ]]
}

@test "zero load: every packet takes 272 + 12 h units on po2" {
	# inject set-up 80, h+1 routing decisions of 12, eject set-up 20,
	# packet 160: 80 + 12(h+1) + 20 + 160 = 272 + 12h. At a load of
	# 0.0005 packets almost never meet.
	wlgen --preset po2 --uniform --load 0.0005 -n 3000 --seed 3 |
		netrun --preset po2 > "$T/d.mps"
	pkts "$T/d.mps" > "$T/p.csv"
	run awk -F, 'NR > 1 { n++; l = $9 - $8; if (l == 272 + 12 * $10) ok++;
		sum += l; h += $10 }
		END { printf "%d %d %.4f %.4f\n", n, ok, sum / n, h / n }' "$T/p.csv"
	[ "$status" -eq 0 ]
	read n ok mean hops <<<"$output"
	[ "$n" -eq 3000 ]
	# at least 99% exactly on the formula
	[ "$ok" -ge 2970 ]
	# mean within 2% of the hand value for the measured hop count
	awk -v m="$mean" -v h="$hops" 'BEGIN { z = 272 + 12 * h;
		exit !(m >= z && m <= 1.02 * z) }'
}

@test "uniform low load: mean packet latency within 2% of 272 + 12*11/3 = 316" {
	wlgen --preset po2 --uniform --load 0.01 -n 20000 --seed 1 |
		netrun --preset po2 --route best | lstat --csv > "$T/s.csv"
	mean=$(awk -F, 'NR == 2 { print $8 }' "$T/s.csv")
	awk -v m="$mean" 'BEGIN { exit !(m >= 316 && m <= 316 * 1.02) }'
}

@test "minimal routing: mean hop count is (2n-1)/3 on E6 and E8" {
	# Distances on E_n: 6d nodes at distance d. On E6 the sd is
	# sqrt(15 - (11/3)^2) = 1.247, so 20000 packets give a standard
	# error of 0.0088; allow 4 of them.
	for n in 6 8; do
		wlgen --preset po2 --size $n --uniform --load 0.2 -n 20000 --seed 5 |
			netrun --preset po2 --size $n --route deterministic |
			lstat --csv > "$T/h$n.csv"
		h=$(awk -F, 'NR == 2 { print $10 }' "$T/h$n.csv")
		awk -v h="$h" -v n=$n 'BEGIN { e = (2 * n - 1) / 3;
			d = h - e; if (d < 0) d = -d; exit !(d < 0.04) }'
	done
}

@test "derouting: non-minimal hops only within the first p-1 hops" {
	# A no-farther hop keeps the distance, so hops = p + deroutes for a
	# packet that started at distance p, and deroutes <= p - 1.
	wlgen --preset po2 --uniform --load 0.8 -n 8000 --seed 2 |
		netrun --preset po2 --route derouting -k > "$T/d.mps"
	pkts "$T/d.mps" > "$T/p.csv"
	run awk -F, 'NR > 1 { p = $10 - $11; if ($11 > 0) any++;
		if ($11 > p - 1 || p < 1) bad++ }
		END { print any + 0, bad + 0 }' "$T/p.csv"
	[ "$output" != "" ]
	read any bad <<<"$output"
	[ "$any" -gt 100 ]
	[ "$bad" -eq 0 ]
}

@test "minimal strategies never deroute" {
	wlgen --preset po2 --uniform --load 0.8 -n 5000 --seed 2 > "$T/w.mps"
	for r in deterministic best; do
		netrun --preset po2 --route $r -k "$T/w.mps" > "$T/$r.mps"
		run sh -c "mpcat -c -r pkt '$T/$r.mps' | awk -F, 'NR > 1 && \$11 > 0' | wc -l"
		[ "$output" -eq 0 ]
	done
}

@test "conservation: every message read is delivered, counts in -v" {
	wlgen --preset po2 --long 10 --load 0.5 -n 3000 --seed 4 > "$T/w.mps"
	run netrun -v --preset po2 "$T/w.mps" -o "$T/d.mps"
	[ "$status" -eq 0 ]
	[[ "$output" == *"messages read 3000 = delivered 3000 + unfinished 0"* ]]
	[[ "$output" == *"in flight 0"* ]]
	run mpcat -n "$T/d.mps"
	[[ "$output" == *"dlv 3000"* ]]
	npk=$(mpcat -c "$T/w.mps" | awk -F, 'NR > 1 { s += $6 } END { print s }')
	[[ "$output" == *"pkt $npk"* ]]
}

@test "same input and seed give the same bytes; another seed differs" {
	wlgen --preset po2 --long 10 --load 0.6 -n 2000 --seed 9 > "$T/w.mps"
	netrun --preset po2 --seed 1 "$T/w.mps" > "$T/a.mps"
	netrun --preset po2 --seed 1 "$T/w.mps" > "$T/b.mps"
	cmp "$T/a.mps" "$T/b.mps"
	netrun --preset po2 --seed 1 --raw "$T/w.mps" > "$T/a.raw"
	netrun --preset po2 --seed 1 --raw "$T/w.mps" > "$T/b.raw"
	cmp "$T/a.raw" "$T/b.raw"
	netrun --preset po2 --seed 2 --raw "$T/w.mps" > "$T/c.raw"
	! cmp -s "$T/a.raw" "$T/c.raw"
}

@test "refused attempts count in PE port utilization" {
	# Message backpressure refuses the next packet of a long message
	# while the previous one still waits at the source; each refusal
	# keeps the PE port busy 92 units, so PE utilization exceeds the
	# carried load.
	wlgen --preset po2 --long 50 --load 0.6 -n 3000 --seed 1 |
		netrun --preset po2 -k | lstat --csv > "$T/s.csv"
	run awk -F, 'NR == 2 { exit !($11 > $4 + 0.01) }' "$T/s.csv"
	[ "$status" -eq 0 ]
}

@test "saturation: stops with exit 1, or marks the run with -k" {
	wlgen --preset po2 --uniform --load 3 -n 30000 --seed 1 > "$T/w.mps"
	run netrun --preset po2 --max-backlog 20 "$T/w.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: saturated at time "* ]]
	run lstat --csv "$T/d.mps"
	[[ "$output" == *",saturated"* ]] || [[ "$output" == *"saturated,"* ]]
	run netrun -k --preset po2 "$T/w.mps" -o "$T/k.mps"
	[ "$status" -eq 0 ]
	run lstat "$T/k.mps"
	[[ "$output" == *SATURATED* ]]
}

@test "deadlock is detected and the packets are named" {
	# One buffer per node, no backpressure and no buffer rule, dimension
	# order on a 4x4 torus under heavy load: packets end up holding the
	# only buffer of the next node in a ring.
	wlgen --preset torus --size 4 --uniform --load 0.9 -n 20000 --seed 1 > "$T/w.mps"
	run netrun --preset torus --size 4 --buffers 1 --deadlock none \
		--deadlock-time 2000 "$T/w.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "netrun: deadlock at time "* ]]
	[[ "${lines[1]}" == "packet "*" of message "*" at node "* ]]
}

@test "the hop-count rule keeps the same fabric free of deadlock" {
	wlgen --preset torus --size 4 --uniform --load 0.9 -n 20000 --seed 1 > "$T/w.mps"
	run netrun --preset torus --size 4 --buffers 5 --deadlock hop-count \
		-k -v "$T/w.mps" -o "$T/d.mps"
	[ "$status" -eq 0 ]
	[[ "$output" == *"delivered 20000 + unfinished 0"* ]]
	run netrun --preset torus --size 4 --buffers 4 --deadlock hop-count "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "$output" == *"hop-count needs at least 5 buffers"* ]]
}

@test "bad usage exits 2 and names the option" {
	run netrun --route sideways
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --route: 'sideways' is not one of deterministic|best|adaptive|derouting; try 'netrun -h'" ]
	run netrun --buffers 0
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --buffers: 0 is too small (at least 1); try 'netrun -h'" ]
	run netrun --seed -3
	[ "$status" -eq 2 ]
	run netrun --preset nosuch
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --preset: unknown preset 'nosuch'"* ]]
	run netrun --size 5 --preset torus --route derouting
	[ "$status" -eq 2 ]
}

@test "bad input exits 1 with a located message" {
	wlgen --preset po2 --uniform --load 0.1 -n 10 --seed 1 > "$T/w.mps"
	# a stream for another node count
	run netrun --preset po2 --size 7 "$T/w.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the stream is for 91 nodes, the fabric has 127"* ]]
	# a deliveries stream is not netrun's input
	netrun --preset po2 "$T/w.mps" > "$T/d.mps"
	run netrun --preset po2 "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: $T/d.mps: a deliveries stream"* ]]
	# a truncated stream
	head -c 100 "$T/w.mps" > "$T/cut.mps"
	run netrun --preset po2 "$T/cut.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: $T/cut.mps: "* ]]
	run netrun --preset po2 "$T/missing.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: $T/missing.mps: No such file or directory" ]]
}

@test "node id out of range in a hand-made stream" {
	printf 'class,group,route,src,dst,packets,id,time,bytes,prio\n0,0,0,3,140,1,0,5,0,0\n' > "$T/m.csv"
	run sh -c "mpcat -C -k messages -s nodes=91 '$T/m.csv' | netrun --preset po2"
	[ "$status" -eq 1 ]
	[[ "$output" == *"destination 140 out of range (91 nodes)"* ]]
}

@test "writing to a full disk fails with exit 1" {
	wlgen --preset po2 --uniform --load 0.1 -n 2000 --seed 1 > "$T/w.mps"
	run netrun --preset po2 "$T/w.mps" -o /dev/full
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: /dev/full: write failed: No space left on device" ]]
}

@test "--retry notify: same run as immediate when nothing is refused" {
	# At a load this low no packet is ever refused, so the retry rule
	# cannot matter: the deliveries must be the same record for record.
	wlgen --preset po2 --uniform --load 0.002 -n 2000 --seed 4 > "$T/w.mps"
	netrun --preset po2 --retry immediate "$T/w.mps" > "$T/i.mps"
	netrun --preset po2 --retry notify "$T/w.mps" > "$T/n.mps"
	run sh -c "mpcat -c -r pkt '$T/i.mps' | awk -F, 'NR > 1 && \$13 > 0' | wc -l"
	[ "$output" -eq 0 ]
	cmp <(mpcat -c -r pkt "$T/i.mps") <(mpcat -c -r pkt "$T/n.mps")
	cmp <(mpcat -c -r dlv "$T/i.mps") <(mpcat -c -r dlv "$T/n.mps")
	run mpcat -H "$T/n.mps"
	[[ "$output" == *"fabric.retry=notify"* ]]
}

@test "--retry notify: a refused packet waits for the refusing node, so far fewer attempts" {
	# Bursty traffic with message backpressure: immediate retries
	# repeat every 12 units while the refusal lasts; notified retries
	# wait until the blocking packet moves on or a buffer frees. Every
	# message still arrives.
	wlgen --preset po2 --long 80 --load 0.5 -n 3000 --seed 2 > "$T/w.mps"
	run netrun -v -k --preset po2 --retry immediate "$T/w.mps" -o "$T/i.mps"
	ri=$(echo "$output" | grep -oE '[0-9]+ refusals' | cut -d' ' -f1)
	run netrun -v -k --preset po2 --retry notify "$T/w.mps" -o "$T/n.mps"
	[ "$status" -eq 0 ]
	[[ "$output" == *"messages read 3000 = delivered 3000 + unfinished 0"* ]]
	rn=$(echo "$output" | grep -oE '[0-9]+ refusals' | cut -d' ' -f1)
	[ "$rn" -gt 0 ]
	[ $((rn * 4)) -lt "$ri" ]
	# refused time is part of internal utilization, so it falls too
	ui=$(lstat --csv "$T/i.mps" | awk -F, 'NR == 2 { print $12 }')
	un=$(lstat --csv "$T/n.mps" | awk -F, 'NR == 2 { print $12 }')
	awk -v a="$un" -v b="$ui" 'BEGIN { exit !(a < b) }'
}

# Runs netrun twice on $T/w.mps with the given options, with and without
# --self-check; both must succeed with the same records.
self_checked() {
	netrun -k "$@" "$T/w.mps" > "$T/plain.mps"
	run netrun -k --self-check "$@" "$T/w.mps" -o "$T/checked.mps"
	if [ "$status" -ne 0 ]; then
		echo "netrun $* --self-check: $output"
		return 1
	fi
	for rec in pkt dlv util run; do
		cmp <(mpcat -c -r $rec "$T/plain.mps") \
		    <(mpcat -c -r $rec "$T/checked.mps") || return 1
	done
}

@test "--self-check: the model's counts hold after every event, saturated PO2" {
	# Saturated, so packets wait, are refused, loop and back up: every
	# incremental count is exercised. The records are unchanged.
	wlgen --preset po2 --long 10 --load 0.9 -n 800 --seed 5 > "$T/w.mps"
	for r in deterministic best derouting; do
		self_checked --preset po2 --route $r
		self_checked --preset po2 --route $r --retry notify
	done
	self_checked --preset po2 --route derouting --retry notify --bp destination
	self_checked --preset po2 --route best --bp none --deadlock hop-count
	self_checked --preset po2 --route derouting --links full --pe-port separate
	self_checked --preset po2 --route best --buffer-limit 10 --inject-timeout 2000
	self_checked --preset po2 --route best --eager-retries
}

@test "--self-check: Fed-X and the torus, both retry rules" {
	wlgen --preset fedx --load 0.8 -n 400 --seed 5 > "$T/w.mps"
	self_checked --preset fedx
	self_checked --preset fedx --retry notify
	wlgen --preset torus --size 4 --uniform --load 0.9 -n 1500 --seed 5 > "$T/w.mps"
	self_checked --preset torus --size 4
	self_checked --preset torus --size 4 --retry notify --links half
}

@test "--show-config fed back as options reproduces the run, for every preset" {
	for p in po2 fedx torus cmp ncube; do
		for extra in "" "--pe-arb inject --eject-priority on --buffer-limit-dest 3 --retry notify"; do
			[ "$p" = torus ] && [ -n "$extra" ] && extra="--pe-port shared --pe-arb eject --links half"
			[ "$p" = ncube ] && [ -n "$extra" ] && extra="--arb rr --sink prob:0.7 --fifo 3"
			wlgen --preset $p --load 0.6 -n 120 --seed 5 > "$T/w.mps"
			# shellcheck disable=SC2086
			netrun --preset $p $extra -o "$T/a.mps" "$T/w.mps"
			# shellcheck disable=SC2086
			conf=$(netrun --preset $p $extra --show-config)
			# the configuration alone, from the default preset
			# shellcheck disable=SC2086
			netrun $conf -o "$T/b.mps" "$T/w.mps"
			for r in pkt dlv util run; do
				mpcat -c -r $r "$T/a.mps" > "$T/a.csv"
				mpcat -c -r $r "$T/b.mps" > "$T/b.csv"
				cmp "$T/a.csv" "$T/b.csv"
			done
			# and the header records the same configuration
			run mpcat -H "$T/a.mps"
			for line in $(echo "$conf" | sed 's/^--//; s/ /=/'); do
				k=${line%%=*} v=${line#*=}
				[[ "$output" == *"fabric.${k//-/_}=$v"* ]]
			done
		done
	done
}

@test "the header's fabric keys follow every option: --pe-arb and --eject-priority are recorded" {
	wlgen --preset po2 --load 0.3 -n 20 --seed 1 > "$T/w.mps"
	netrun -o "$T/a.mps" "$T/w.mps"
	netrun --pe-arb inject --eject-priority on -o "$T/b.mps" "$T/w.mps"
	run mpcat -H "$T/a.mps"
	[[ "$output" == *"fabric.pe_arb=fair"* ]]
	[[ "$output" == *"fabric.eject_priority=off"* ]]
	run mpcat -H "$T/b.mps"
	[[ "$output" == *"fabric.pe_arb=inject"* ]]
	[[ "$output" == *"fabric.eject_priority=on"* ]]
}

@test "--list-models and --model: the packet model by name, an unknown one refused" {
	run netrun --list-models
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "packet "* ]]
	run netrun --model packet --show-config
	[ "$status" -eq 0 ]
	[[ "$output" == *"--model packet"* ]]
	run netrun --model nonesuch --show-config
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --model: 'nonesuch' is not one of packet|flit|ncube; try 'netrun -h'" ]
}

@test "every registered model runs every preset that names it, and the others' or refuses them in a line, with a clean --self-check" {
	for m in $(netrun --list-models | awk '{ print $1 }'); do
		n=0
		for p in po2 fedx torus cmp rs ncube; do
			wlgen --preset $p --load 0.5 -n 150 --seed 3 > "$T/w.mps"
			run netrun --preset $p --model $m --self-check -o "$T/d.mps" "$T/w.mps"
			# another model's network may be refused in one line
			# (the flit model takes tori and meshes, ncube
			# butterflies, omega and crossbars); the preset's own
			# model must run
			if ! netrun --preset $p --show-config | grep -qx -- "--model $m"; then
				if [ "$status" -ne 0 ]; then
					[ "$status" -eq 2 ]
					[[ "${lines[0]}" == "netrun: "*"needs "*", not "* ]]
					[ "${#lines[@]}" -eq 1 ]
					continue
				fi
			else
				n=$((n + 1))
			fi
			[ "$status" -eq 0 ]
			run mpcat -c -r run "$T/d.mps"
			[[ "${lines[1]}" == 0,*,150,150,* ]]
		done
		[ "$n" -gt 0 ]
	done
}

# ---- The synchronous multistage model (--model ncube, SPEC 3.4) ----

@test "ncube: model sources from wlgen's declaration, every option, conserved and deterministic" {
	wlgen --preset ncube --stages 4 --arrival model:0.7 -n 3000 --seed 4 > "$T/w.mps"
	# the stream declares the source and holds no messages
	run mpcat -H "$T/w.mps"
	[[ "$output" == *"arrival=model:0.7"* ]]
	[[ "$output" == *"messages=3000"* ]]
	[ "$(mpcat -c -r msg "$T/w.mps" | wc -l)" -le 1 ]
	for o in "" "--arb rr" "--sink prob:0.6" "--fifo 1 --arb rr --sink prob:0.9"; do
		# shellcheck disable=SC2086
		netrun --preset ncube --stages 4 $o --self-check -o "$T/a.mps" "$T/w.mps"
		# shellcheck disable=SC2086
		netrun --preset ncube --stages 4 $o -o "$T/b.mps" "$T/w.mps"
		for r in pkt dlv util run; do
			[ "$(mpcat -c -r $r "$T/a.mps")" = "$(mpcat -c -r $r "$T/b.mps")" ]
		done
		run mpcat -c -r run "$T/a.mps"
		[[ "${lines[1]}" == 0,16,*,3000,3000,3000,3000,0,0 ]]
	done
	# another netrun seed changes the arbitration, not the sources
	netrun --preset ncube --stages 4 --seed 9 -o "$T/c.mps" "$T/w.mps"
	netrun --preset ncube --stages 4 -o "$T/a.mps" "$T/w.mps"
	[ "$(mpcat -c -r pkt "$T/a.mps")" != "$(mpcat -c -r pkt "$T/c.mps")" ]
}

@test "ncube: slow sinks are no deadlock (the deadlock time scales with 1/Q)" {
	wlgen --preset ncube --stages 1 --arrival model:1 -n 300 --seed 1 > "$T/w.mps"
	run netrun --preset ncube --stages 1 --sink prob:0.001 -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 0 ]
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,2,*,300,300,300,300,0,0 ]]
}

@test "ncube: one 2x2 router, saturated, B = 1: 1/2 per input (its Markov chain absorbs in one-full-one-empty)" {
	wlgen --preset ncube --stages 1 --arrival model:1 -n 20000 --seed 2 |
		netrun --preset ncube --stages 1 --fifo 1 -o "$T/d.mps"
	run lstat --csv --warmup-time 100 "$T/d.mps"
	[ "$(echo "${lines[1]}" | cut -d, -f4)" = 0.500000 ]
	# each packet: one unit in the FIFO, one to the sink
	[ "$(echo "${lines[1]}" | cut -d, -f8)" = 2.000 ]
}

@test "ncube: the crossbar reference, open-loop Bernoulli sources, zero-load latency one unit" {
	wlgen --preset ncube --topo crossbar:6 --arrival bernoulli --load 0.05 -n 400 --seed 3 > "$T/w.mps"
	netrun --preset ncube --topo crossbar:6 --self-check -o "$T/d.mps" "$T/w.mps"
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,6,*,400,400,400,400,0,0 ]]
	run lstat --csv "$T/d.mps"
	# packet latency: accepted in a unit, delivered at its end
	[ "$(echo "${lines[1]}" | cut -d, -f8)" = 1.000 ]
	run netrun --preset ncube --topo crossbar:6 --show-config
	[[ "$output" == *"--topo crossbar:6"* ]]
}

@test "ncube: --prefill starts with every FIFO full, and those packets are delivered too" {
	wlgen --preset ncube --stages 3 --arrival model:0.5 -n 200 --seed 1 > "$T/w.mps"
	netrun --preset ncube --stages 3 --fifo 2 --prefill --self-check -o "$T/d.mps" "$T/w.mps"
	# 3 stages x 8 inputs x 2 packets = 48 more
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,8,*,248,248,248,248,0,0 ]]
	# routers of 4 x 4: 3 stages x 64 inputs x 3 packets = 576 more
	wlgen --preset ncube --topo butterfly:4,3 --arrival model:0.5 -n 100 --seed 1 > "$T/w4.mps"
	netrun --preset ncube --topo butterfly:4,3 --fifo 3 --prefill --self-check -o "$T/d.mps" "$T/w4.mps"
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,64,*,676,676,676,676,0,0 ]]
	# omega wiring, routers of 3 x 3: 3 stages x 27 inputs x 2 = 162 more
	wlgen --preset ncube --topo omega:3,3 --arrival model:0.8 -n 300 --seed 1 > "$T/w3.mps"
	netrun --preset ncube --topo omega:3,3 --fifo 2 --prefill --self-check -o "$T/d.mps" "$T/w3.mps"
	run mpcat -c -r run "$T/d.mps"
	[[ "${lines[1]}" == 0,27,*,462,462,462,462,0,0 ]]
	run netrun --preset po2 --prefill -o "$T/x.mps" "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --model packet: no --prefill (it starts empty); try 'netrun -h'" ]
}

@test "ncube: a stream for another node count, a model source for the packet model, a mesh for ncube" {
	wlgen --preset po2 --load 0.2 -n 10 > "$T/w.mps"
	run netrun --preset ncube -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "netrun: $T/w.mps: the stream is for 91 nodes, the fabric has 8" ]
	run netrun --preset ncube --topo hex:6 -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --model ncube: needs a butterfly"* ]]
	wlgen --preset ncube --topo crossbar:7 --arrival model:1 -n 10 > "$T/m.mps"
	run netrun --preset po2 --topo crossbar:7 -o "$T/d.mps" "$T/m.mps"
	[ "$status" -eq 2 ]
	# --arb is shared with the flit model: each refuses the other's
	wlgen --preset ncube --load 0.2 -n 10 > "$T/n.mps"
	run netrun --preset ncube --arb priority -o "$T/d.mps" "$T/n.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --arb: the ncube model arbitrates random or rr; try 'netrun -h'" ]
	wlgen --preset rs --load 0.05 -n 10 > "$T/r.mps"
	run netrun --preset rs --arb random -o "$T/d.mps" "$T/r.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --arb: the flit model arbitrates rr, priority, oldest or credit:A, not random; try 'netrun -h'" ]
}

@test "ncube: grid and tree under local traffic, every option, conserved, self-checked and deterministic" {
	for t in grid:3x4 tree:3,2; do
		wlgen --preset ncube --topo $t --dest local:2 --arrival model:0.8 -n 3000 --seed 4 > "$T/w.mps"
		run mpcat -H "$T/w.mps"
		[[ "$output" == *"dest=local:2"* ]]
		for o in "" "--arb rr" "--sink prob:0.6" "--fifo 1 --arb rr --sink prob:0.9"; do
			# shellcheck disable=SC2086
			netrun --preset ncube --topo $t $o --self-check -o "$T/a.mps" "$T/w.mps"
			# shellcheck disable=SC2086
			netrun --preset ncube --topo $t $o -o "$T/b.mps" "$T/w.mps"
			for r in pkt dlv util run; do
				[ "$(mpcat -c -r $r "$T/a.mps")" = "$(mpcat -c -r $r "$T/b.mps")" ]
			done
			run mpcat -c -r run "$T/a.mps"
			[[ "${lines[1]}" == 0,*,3000,3000,3000,3000,0,0 ]]
		done
	done
	# local:1 in a tree of 3-leaf routers: the 2 siblings (0 hops, one
	# router crossed) only, each as often; local:4 reaches all 8 others
	wlgen --preset ncube --topo tree:3,2 --dest local:1 --arrival model:1 -n 6000 --seed 1 |
		netrun --preset ncube --topo tree:3,2 -o "$T/d.mps"
	mpcat -c -r dlv "$T/d.mps" | awk -F, 'NR > 1 { n++; if (int($3 / 3) != int($4 / 3) || $3 == $4 || $11 != 1) bad++; if ($4 == ($3 + 1) % 3 + 3 * int($3 / 3)) up++ }
		END { exit !(n == 6000 && !bad && up > 2700 && up < 3300) }'
	wlgen --preset ncube --topo tree:3,2 --dest local:4 --arrival model:1 -n 6000 --seed 1 |
		netrun --preset ncube --topo tree:3,2 -o "$T/d.mps"
	mpcat -c -r dlv "$T/d.mps" | awk -F, 'NR > 1 { if ($11 == 3) far++; if ($3 == $4) self++ }
		END { exit !(!self && far > 6000 * 6 / 8 * 0.9 && far < 6000 * 6 / 8 * 1.1) }'
}

@test "ncube: a 2x1 grid and a 2-leaf tree under local traffic: 1/2 per input with B = 1, 1 with B = 2 (no conflicts)" {
	# each terminal sends only to the other: no two packets want one
	# output, so a FIFO of 1 alternates full and empty (1/2) and a FIFO
	# of 2 passes one packet every unit
	for t in grid:2x1 tree:2,2; do
		wlgen --preset ncube --topo $t --dest local:1 --arrival model:1 -n 20000 --seed 2 > "$T/w.mps"
		for b in 1 2; do
			netrun --preset ncube --topo $t --fifo $b --self-check -o "$T/d.mps" "$T/w.mps"
			run lstat --csv --warmup-time 100 "$T/d.mps"
			tp=$(echo "${lines[1]}" | cut -d, -f4)
			# exact but for the window's ends (a packet per input
			# in some 10^4 units)
			awk -v tp="$tp" -v b="$b" 'BEGIN { d = tp - (b == 1 ? 0.5 : 1); exit !(d > -0.0002 && d < 0.0002) }'
		done
		# B = 2: no waiting: one unit in each router's FIFO, one to the
		# sink (the grid's 2 routers, the tree's 1: siblings meet at
		# their leaf router)
		run lstat --csv "$T/d.mps"
		[ "$(echo "${lines[1]}" | cut -d, -f8,10)" = "$([ $t = grid:2x1 ] && echo 3.000,2.0000 || echo 2.000,1.0000)" ]
	done
	# the one-router tree is the 2x2 router of Boughton's chain: 1/2,
	# and its leaf router is the input router of --slow-inputs: 4
	# packets every 4 units
	wlgen --preset ncube --topo tree:2,1 --arrival model:1 -n 20000 --seed 2 |
		netrun --preset ncube --topo tree:2,1 --fifo 1 -o "$T/d.mps"
	run lstat --csv --warmup-time 100 --slow-inputs 4 "$T/d.mps"
	[ "$(echo "${lines[1]}" | cut -d, -f4)" = 0.500000 ]
	# (slow_time and slow_rate; bottleneck_util is last)
	[ "$(echo "${lines[1]}" | awk -F, '{ print $(NF - 2), $(NF - 1) }')" = "4.000 0.500000" ]
}

@test "--topo: text after the size is a one-line error, not a smaller network (omega:2,3,4 was omega:2,3, torus:4x4x4 torus:4x4)" {
	for t in omega:2,3,4 butterfly:2,3,4 tree:2,3,4 torus:4x4x4 mesh:4x4,2 hexrect:4x5x hex:5x; do
		for p in wlgen netrun; do
			run $p --topo $t --load 0.1 -n 10
			[ "$status" -eq 2 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "${lines[0]}" == "$p: --topo: bad size in '$t'"* ]]
		done
	done
	wlgen --topo torus:4x5 --load 0.1 -n 10 | mpcat -H | grep -qx "topology=torus:4x5"
}

@test "ncube: hostile grid and tree shapes, local destinations and prefill are one-line errors" {
	for t in grid:0x3 grid:2x tree:1,3 tree:2,0 tree:300,1 tree:2 tree:2,3x; do
		run wlgen --preset ncube --topo $t --arrival model:1 -n 10
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "wlgen: --topo: bad size in '$t'"* ]]
	done
	run wlgen --preset ncube --topo grid:1x1 --arrival model:1 -n 10
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: network: grid:RxC needs 2 to 4096 routers, not 1x1; try 'wlgen -h'" ]
	run wlgen --preset ncube --topo tree:2,13 --arrival model:1 -n 10
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: network: tree:A,D needs "*"at most 4096 routers, not 2,13; try 'wlgen -h'" ]]
	run wlgen --preset ncube --topo grid:3x3 --dest local:0 --arrival model:1 -n 10
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	run wlgen --preset ncube --stages 3 --dest local:1 --arrival model:1 -n 10
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: --dest local:1: terminal 0 of butterfly:2,3 has no other within 1 hops; try 'wlgen -h'" ]
	wlgen --preset ncube --topo grid:3x3 --arrival model:1 -n 10 > "$T/w.mps"
	run netrun --preset ncube --topo grid:3x3 --prefill -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --prefill: the ncube model prefills butterflies and omega networks only, not grid:3x3; try 'netrun -h'" ]
}

@test "flit: --preset rs carries each switching scheme at low load, self-check clean, throughput in flits per node per cycle" {
	wlgen --preset rs --load 0.05 -n 3000 --seed 2 > "$T/w.mps"
	for sw in wormhole vct ps; do
		run netrun --preset rs --switching $sw --self-check -o "$T/d.mps" "$T/w.mps"
		[ "$status" -eq 0 ]
		run sh -c "lstat --csv '$T/d.mps' | cut -d, -f3,4,13 | tail -1"
		# every packet delivered; accepted within 2% of the offered 0.05
		[[ "$output" == 3000,0.0[45]*,0.050000 ]]
		awk -F, -v t="${output#*,}" 'BEGIN { split(t, a, ","); exit !(a[1] > 0.049 && a[1] < 0.051) }'
	done
}

@test "flit: latencies order as the switching schemes do (cut-through < wormhole on 1-flit buffers < store and forward)" {
	wlgen --preset rs --load 0.05 -n 2000 --seed 4 > "$T/w.mps"
	for sw in wormhole vct ps; do
		netrun --preset rs --switching $sw "$T/w.mps" | lstat --csv | tail -1 | cut -d, -f8 > "$T/$sw"
	done
	awk -v w="$(cat "$T/wormhole")" -v v="$(cat "$T/vct")" -v p="$(cat "$T/ps")" \
		'BEGIN { exit !(v < w && w < p) }'
}

@test "flit: more than 64 virtual channels per router (two classes of 8 on 5 ports), each arbitration, self-check clean" {
	wlgen --preset rs --load 0.03 --gt-load 0.03 -n 2000 --seed 5 > "$T/w.mps"
	for a in rr priority credit:4 oldest; do
		run netrun --preset rs --class gt=ps --class be=wormhole --vcs 8 --arb $a --self-check -o "$T/d.mps" "$T/w.mps"
		[ "$status" -eq 0 ]
		run mpcat -c -r run "$T/d.mps"
		[[ "${lines[1]}" == 0,*,2000,2000,* ]]
	done
}

@test "flit: classes on their own virtual networks, each arbitration; the same seed gives the same bytes" {
	wlgen --preset rs --load 0.03 --gt-load 0.03 -n 2000 --seed 5 > "$T/w.mps"
	for a in rr priority credit:4; do
		run netrun --preset rs --class gt=ps --class be=wormhole --arb $a --self-check -o "$T/d-$a.mps" "$T/w.mps"
		[ "$status" -eq 0 ]
		run sh -c "lstat --by class '$T/d-$a.mps' | awk '{ print \$1, \$3 }' | sed -n 2,3p"
		[ "${lines[0]%% *}" = best-effort ]
		[ "${lines[1]%% *}" = guaranteed ]
	done
	netrun --preset rs --class gt=ps --class be=wormhole --arb credit:4 "$T/w.mps" > "$T/a1.mps"
	netrun --preset rs --class gt=ps --class be=wormhole --arb credit:4 "$T/w.mps" > "$T/a2.mps"
	cmp "$T/a1.mps" "$T/a2.mps"
	netrun --preset rs --class gt=ps --class be=wormhole --arb rr "$T/w.mps" > "$T/a3.mps"
	! cmp -s "$T/a1.mps" "$T/a3.mps"
	run netrun --preset rs --class gt=ps --class be=wormhole --arb credit:2 --show-config
	[[ "$output" == *"--class gt=ps,be=wormhole"* ]]
	[[ "$output" == *"--arb credit:2"* ]]
	run netrun $(echo "$output" | tr '\n' ' ') --show-config
	[[ "$output" == *"--class gt=ps,be=wormhole"* ]]
	[[ "$output" == *"--arb credit:2"* ]]
}

@test "flit: each class has its own source queue: under a saturating be load, gt messages under --arb priority keep their zero-load latency" {
	# be at 0.40 flits/node/cycle saturates wormhole; gt at 0.02 on ps.
	wlgen --preset rs --load 0.40 --gt-load 0.02 -n 8000 --seed 3 > "$T/w.mps"
	netrun --preset rs --class gt=ps --class be=wormhole --arb priority -k "$T/w.mps" |
		lstat --csv --by class > "$T/s.csv"
	# the be class saturated ...
	awk -F, '$1 == "best-effort" { exit !($30 == "saturated") }' "$T/s.csv"
	# ... yet gt message latency (queueing at the source included) is
	# within 8% of packet switching's zero-load 16(H + 1) + H at its mean
	# hops H (a shared source queue put it in the thousands of cycles)
	awk -F, '$1 == "guaranteed" { z = 16 * ($10 + 1) + $10; ok = $3 > 200 && $5 >= z && $5 <= 1.08 * z }
		END { exit !ok }' "$T/s.csv"
}

@test "flit: cross-check at zero load: vct on 1 VC = packet model with --header-time R+D --packet-time L-1-D, every packet 2h + 16 cycles" {
	wlgen --preset rs --load 0.0002 -n 400 --seed 2 > "$T/w.mps"
	netrun --preset rs --switching vct --vcs 1 --vc-buf 32 "$T/w.mps" |
		lstat --csv --by hops | cut -d, -f1,3,8,16,21 > "$T/f.csv"
	netrun --preset rs --model packet --header-time 2 --packet-time 14 "$T/w.mps" |
		lstat --csv --by hops | cut -d, -f1,3,8,16,21 > "$T/p.csv"
	cmp "$T/f.csv" "$T/p.csv"
	# hops groups 1..8 of the 8x8 torus, each packet exactly 2h + 16
	[ "$(grep -c '^[1-8],' "$T/f.csv")" -eq 8 ]
	awk -F, '$1 ~ /^[0-9]+$/ && !($4 == 2 * $1 + 16 && $5 == $4) { bad = 1 } END { exit bad }' "$T/f.csv"
	# links busy 16 cycles per packet, as the flit model's: 2 cycles more
	netrun --preset rs --model packet --header-time 2 --packet-time 16 "$T/w.mps" |
		lstat --csv --by hops | cut -d, -f1,16,21 > "$T/p16.csv"
	awk -F, '$1 ~ /^[0-9]+$/ && !($2 == 2 * $1 + 18 && $3 == $2) { bad = 1 } END { exit bad }' "$T/p16.csv"
}

@test "flit: hostile options are one-line errors" {
	wlgen --preset rs --load 0.05 --gt-load 0.05 -n 50 --seed 1 > "$T/w.mps"
	run netrun --preset rs --vcs 0 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --vcs: "* ]]
	run netrun --preset rs --vc-buf 0 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --vc-buf: "* ]]
	run netrun --preset rs --class gt=ps --class gt=vct "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --class: class gt named twice"* ]]
	run netrun --preset rs --class gold=ps "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --class: 'gold' is not one of be|gt"* ]]
	run netrun --preset rs --arb fastest "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --arb: 'fastest' is not one of rr|priority|credit:A"* ]]
	run netrun --preset rs --vcs 1 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --vcs 1: wormhole on a torus needs 2 virtual channels (the dateline rule; --vc-rules off lifts it)"* ]]
	run netrun --preset rs --switching ps --vc-buf 8 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --vc-buf 8: ps needs room for a whole packet (16 flits)"* ]]
	# a class with no network in the stream
	run netrun --preset rs --class be=wormhole -o "$T/d.mps" "$T/w.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "netrun: "*"class 1 (gt) has no --class setting"* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "flit: a 2-D mesh (no dateline needed: one VC of wormhole is accepted), each switching scheme, self-check clean" {
	wlgen --preset rs --topo mesh:8x8 --load 0.04 -n 2000 --seed 6 > "$T/w.mps"
	for a in "--switching wormhole --vcs 1" "--switching wormhole" "--switching vct --vc-buf 16" "--switching ps"; do
		run netrun --preset rs --topo mesh:8x8 $a --self-check -o "$T/d.mps" "$T/w.mps"
		[ "$status" -eq 0 ]
		run mpcat -c -r run "$T/d.mps"
		[[ "${lines[1]}" == 0,*,2000,2000,* ]]
	done
}

@test "flit: without the dateline and bubble rules (--vc-rules off) a loaded torus deadlocks, and the run says so" {
	wlgen --preset rs --load 0.4 -n 20000 --seed 1 > "$T/w.mps"
	for a in "--vcs 1" "--switching vct --vc-buf 32"; do
		run netrun --preset rs $a --vc-rules off -k -o "$T/d.mps" "$T/w.mps"
		[ "$status" -eq 1 ]
		[[ "${lines[0]}" == "netrun: deadlock at time "*" units with "*" packets in the network" ]]
		run mpcat -c -r run "$T/d.mps"
		[[ "${lines[1]}" == 2,64,* ]]
		# with the rules, the same load is carried
		run netrun --preset rs ${a#--vcs 1} -k -o "$T/d.mps" "$T/w.mps"
		[ "$status" -eq 0 ]
	done
}
