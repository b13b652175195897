#!/usr/bin/env bats
# Tests of swsim, the single-switch simulator: the analytic results it
# must reproduce (output queueing in closed form, head-of-line blocking
# of a saturated FIFO switch), the ordering of the buffer organizations
# at saturation, the feeds it derives for k-ary n-cubes and omega
# networks, its latency estimate, conservation, determinism, and its
# usage errors.
#
# Statistical checks compare against the confidence interval swsim
# computes from batch means (swsim(1)); the level is 99% because each
# file checks several intervals, and the seeds are the default.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
}

BARE_HEADER=load,throughput,wait,wait_ci,throughput_ci,source_wait,blocked,offered,packets,status
NET_HEADER=load,bottleneck_util,wait,latency_est,wait_ci,throughput,offered,hops,kd,source_wait,blocked,packets,status

# col NAME: the column number of NAME in the CSV header on stdin's first line.
col() {
	head -n 1 | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}

@test "-h prints usage on stdout and exits 0" {
	run swsim -h
	[ "$status" -eq 0 ]
	[ "${lines[0]%% *}" = "usage:" ]
	printf '%s\n' "$output" | grep -q -- '--buffer'
}

@test "csv headers are exact" {
	run swsim --ports 4 --load 0.5 --cycles 2000 --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$BARE_HEADER" ]
	[ "${#lines[@]}" -eq 2 ]
	run swsim --topo kary:8,3 --buffer damq --load 0.1 --packet-flits 1 --cycles 2000 --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$NET_HEADER" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "one row per load, in order" {
	run swsim --ports 4 --load 0.1,0.2,0.3 --cycles 2000 --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(printf '%s\n' "$output" | sed 1d | cut -d, -f1 | tr '\n' ' ')" = "0.1 0.2 0.3 " ]
}

# The output-queued K x K switch with Bernoulli(p) arrivals and uniform
# routing: the number of arrivals for one output per slot is
# Binomial(K, p/K), and the mean wait of a discrete-time queue with batch
# arrivals A and one departure per slot is E[A(A-1)] / (2 E[A] (1 - E[A]))
# = (K-1)/K p / (2 (1-p)) (Karol, Hluchyj and Morgan).
@test "output-queued switch: wait within the CI of (K-1)/K p/(2(1-p))" {
	for k in 4 16; do
		out=$(swsim --ports $k --buffer oq --load 0.3,0.6,0.9 --csv --confidence 0.99 --cycles 200000)
		printf '%s\n' "$out" | awk -F, -v k=$k 'NR > 1 {
			p = $1; w = (k - 1) / k * p / (2 * (1 - p))
			d = $3 - w; if (d < 0) d = -d
			printf "K=%d p=%s wait %s +- %s, analytic %.6f\n", k, p, $3, $4, w
			if (!(d <= $4) || $4 <= 0 || $10 != "ok") bad = 1
		} END { exit bad }'
	done
}

# A saturated 2 x 2 FIFO switch: each cycle the two head packets want
# the same output with probability 1/2 whatever happened before (a new
# head is uniform and independent of the other), so 1.5 packets leave
# per cycle: throughput 3/4, whatever the arbitration.
@test "saturated 2 x 2 FIFO switch: throughput within the CI of 3/4" {
	for arb in rr oldest; do
		out=$(swsim --ports 2 --buffer fifo --buf-flits 4 --load 1 --arb $arb --csv --confidence 0.99 --cycles 200000)
		printf '%s\n' "$out" | awk -F, 'NR == 2 {
			d = $2 - 0.75; if (d < 0) d = -d
			print "throughput", $2, "+-", $5
			exit !(d <= $5 && $10 == "saturated")
		}'
	done
}

# For large K the saturated FIFO throughput tends to 2 - sqrt(2) with a
# correction of order 1/K, so finite K lies above it; the Richardson
# extrapolation 2 T(32) - T(16) removes the 1/K term and must contain
# the limit within its interval (the half-widths combined as
# independent: sqrt(4 ci32^2 + ci16^2)).
@test "saturated FIFO switch: throughput tends to 2 - sqrt(2) (K = 16, 32)" {
	a=$(swsim --ports 16 --buffer fifo --buf-flits 4 --load 1 --csv --confidence 0.99 | sed -n 2p)
	b=$(swsim --ports 32 --buffer fifo --buf-flits 4 --load 1 --csv --confidence 0.99 | sed -n 2p)
	awk -F, -v a="$a" -v b="$b" 'BEGIN {
		split(a, x, ","); split(b, y, ",")
		lim = 2 - sqrt(2)
		e = 2 * y[2] - x[2]; ci = sqrt(4 * y[5] * y[5] + x[5] * x[5])
		printf "T16 %s T32 %s extrapolated %.6f +- %.6f limit %.6f\n", x[2], y[2], e, ci, lim
		d = e - lim; if (d < 0) d = -d
		if (!(x[2] > y[2] && y[2] > lim)) exit 1
		exit !(d <= ci)
	}'
}

@test "at saturation damq, samq and safc carry more than fifo" {
	for pb in "1 8" "8 32"; do
		set -- $pb
		f=$(swsim --ports 4 --buffer fifo --buf-flits $2 --packet-flits $1 --load 1 --csv | sed -n 2p)
		for org in samq safc damq; do
			o=$(swsim --ports 4 --buffer $org --buf-flits $2 --packet-flits $1 --load 1 --csv | sed -n 2p)
			awk -v f="$f" -v o="$o" -v org=$org 'BEGIN {
				split(f, x, ","); split(o, y, ",")
				print org, y[2], "+-", y[5], "fifo", x[2], "+-", x[5]
				exit !(y[2] - y[5] > x[2] + x[5])
			}'
		done
	done
}

@test "below saturation every organization carries what is offered" {
	for org in fifo safc samq damq oq; do
		for b in 1 8; do
			swsim --ports 4 --buffer $org --packet-flits $b --buf-flits 64 --load 0.5 --csv --confidence 0.99 |
			    awk -F, -v org=$org 'NR == 2 {
				d = $2 - $8; if (d < 0) d = -d
				print org, $2, "+-", $5, "offered", $8
				exit !(d <= $5 && $10 == "ok")
			}'
		done
	done
}

@test "conservation: generated = left + held, and the self-check passes" {
	for org in fifo safc samq damq oq; do
		for b in 1 8; do
			run swsim --ports 4 --buffer $org --packet-flits $b --buf-flits 64 --load 0.8 --cycles 5000 --self-check
			[ "$status" -eq 0 ]
			printf '%s\n' "$output" | awk -v org=$org '/^packets / {
				g = $3; l = $5; h = $7; gsub(",", "", g); gsub(",", "", l)
				print org, g, l, h
				ok = (g == l + h && l > 0)
			} END { exit !ok }'
		done
	done
}

@test "self-check on the network feeds and at saturation" {
	for org in fifo safc samq damq oq; do
		run swsim --topo kary:8,3 --buffer $org --buf-flits 64 --packet-flits 8 --load 0.5 --cycles 3000 --self-check --csv
		[ "$status" -eq 0 ]
		run swsim --topo omega:4,4 --buffer $org --buf-flits 8 --load 1 --cycles 3000 --self-check --csv
		[ "$status" -eq 0 ]
	done
}

@test "determinism: same seed, same bytes; another seed, other bytes" {
	a=$(swsim --topo kary:8,3 --buffer damq --load 0.1,0.2 --cycles 20000 --csv --seed 7)
	b=$(swsim --topo kary:8,3 --buffer damq --load 0.1,0.2 --cycles 20000 --csv --seed 7)
	c=$(swsim --topo kary:8,3 --buffer damq --load 0.1,0.2 --cycles 20000 --csv --seed 8)
	[ "$a" = "$b" ]
	[ "$a" != "$c" ]
	a=$(swsim --ports 8 --buffer fifo --load 0.5 --cycles 20000)
	b=$(swsim --ports 8 --buffer fifo --load 0.5 --cycles 20000)
	[ "$a" = "$b" ]
	# the arbitration is used: oldest-first changes who waits
	a=$(swsim --ports 4 --buffer damq --load 0.9 --cycles 20000 --csv --arb rr)
	b=$(swsim --ports 4 --buffer damq --load 0.9 --cycles 20000 --csv --arb oldest)
	[ "$a" != "$b" ]
}

# Unbounded, the static and the dynamic multi-queue are the same switch.
# For 1-flit packets an unbounded SAFC switch sends on every output that
# has a packet waiting, as the output-queued one does: the same number
# of packets leaves each cycle (only which one differs), so throughput
# and packet counts are equal and the mean waits agree within the
# interval (over a window the sums differ only at its edges).
@test "unbounded samq equals damq; unbounded safc carries what oq does" {
	a=$(swsim --ports 4 --buffer samq --load 0.8 --cycles 20000 --csv)
	b=$(swsim --ports 4 --buffer damq --load 0.8 --cycles 20000 --csv)
	[ "$a" = "$b" ]
	a=$(swsim --ports 4 --buffer safc --load 0.8 --cycles 20000 --csv | sed -n 2p)
	b=$(swsim --ports 4 --buffer oq --load 0.8 --cycles 20000 --csv | sed -n 2p)
	[ "$(echo "$a" | cut -d, -f2,9)" = "$(echo "$b" | cut -d, -f2,9)" ]
	awk -v a="$a" -v b="$b" 'BEGIN {
		split(a, x, ","); split(b, y, ",")
		d = x[3] - y[3]; if (d < 0) d = -d
		print "safc", x[3], "+-", x[4], "oq", y[3]
		exit !(d <= x[4] && x[3] != y[3])
	}'

	# bounded, they differ
	a=$(swsim --ports 4 --buffer samq --buf-flits 8 --load 0.95 --cycles 20000 --csv)
	b=$(swsim --ports 4 --buffer damq --buf-flits 8 --load 0.95 --cycles 20000 --csv)
	[ "$a" != "$b" ]
}

@test "kary:8,3 feed: rows sum to 1, dimension order, link util = P kd" {
	run swsim --topo kary:8,3 --load 0.2 --show-probs --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "load,input,util,p_dim0,p_dim1,p_dim2,p_node" ]
	[ "${#lines[@]}" -eq 5 ]
	printf '%s\n' "$output" | awk -F, 'NR > 1 {
		s = $4 + $5 + $6 + $7
		if (s < 0.999999 || s > 1.000001) exit 1
		kd = 64 * 28 / 511
		if ($2 == "node") { if ($3 != "0.200000" || $7 != 0) exit 1 }
		else if ($3 != sprintf("%.6f", 0.2 * kd)) exit 1
		if ($2 == "dim1" && $4 != 0) exit 1
		if ($2 == "dim2" && ($4 != 0 || $5 != 0)) exit 1
		n++
	} END { exit n != 4 }'
	# a packet with dim2 offset d (1..7, equally likely) arrives d times
	# on a dim2 input and ejects after the last: P(eject) = 7/28
	[ "$(printf '%s\n' "$output" | awk -F, '$2 == "dim2" { print $7 }')" = "0.250000" ]
}

@test "omega:4,4 feed: every input at P, 1/4 to each output" {
	run swsim --topo omega:4,4 --load 0.5 --show-probs --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	printf '%s\n' "$output" | sed 1d | awk -F, '{
		if ($3 != "0.500000") exit 1
		for (i = 4; i <= 7; i++) if ($i != "0.250000") exit 1
	}'
	run swsim --topo omega:2,8 --load 0.3 --show-probs --csv
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "0.3,0,0.300000,0.500000,0.500000" ]
}

@test "a switch of omega:4,4 is the bare 4 x 4 uniform switch" {
	a=$(swsim --topo omega:4,4 --buffer fifo --load 0.5 --cycles 20000 --csv | sed -n 2p | cut -d, -f3,5,6)
	b=$(swsim --ports 4 --buffer fifo --load 0.5 --cycles 20000 --csv | awk -F, 'NR == 2 { print $3 "," $4 "," $2 }')
	[ "$a" = "$b" ]
}

@test "binary 8-cube: the bottleneck is the injection channel" {
	run swsim --topo kary:2,8 --load 0.5 --cycles 5000 --csv
	[ "$status" -eq 0 ]
	hops=$(printf '%s\n' "$output" | awk -F, 'NR == 2 { print $2, $8, $9 }')
	# 8 * 128 / 255 hops, half a hop per dimension
	[ "$hops" = "0.500000 4.015686 0.501961" ]
}

@test "latency estimate is (1 + wB) n kd + B, and (1 + wB) n + B" {
	for b in 1 8; do
		swsim --topo kary:8,3 --buffer damq --packet-flits $b --load 0.05,0.15 --cycles 20000 --csv |
		    awk -F, -v b=$b 'function abs(x) { return x < 0 ? -x : x }
		    NR > 1 {
			# the columns are rounded to 6 decimals
			t = (1 + $3 * b) * $8 + b
			if (abs($4 - t) > 1e-4 || abs($8 - 3 * $9) > 2e-6) exit 1
			n++
		} END { exit n != 2 }'
		swsim --topo omega:4,4 --buffer fifo --packet-flits $b --load 0.3 --cycles 20000 --csv |
		    awk -F, -v b=$b 'NR == 2 {
			t = (1 + $3 * b) * 4 + b
			d = $4 - t; if (d < 0) d = -d
			exit !(d < 1e-4 && $2 == "0.300000")
		}'
	done
}

@test "wait grows with load; beyond the bottleneck the run is saturated" {
	run swsim --topo kary:8,3 --buffer fifo --load 0.05,0.1,0.15,0.5 --cycles 20000 --csv
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | awk -F, 'NR > 1 && NR < 5 {
		if ($3 <= last || $13 != "ok") exit 1; last = $3 }'
	[ "$(printf '%s\n' "$output" | sed -n 5p | cut -d, -f2,4,13)" = "1.753425,,saturated" ]
}

@test "blocked: never with unbounded buffers, often with small static ones" {
	for org in fifo safc samq damq; do
		run swsim --ports 4 --buffer $org --load 0.9 --packet-flits 8 --cycles 20000 --csv
		[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f7)" = "0.000000" ]
	done
	a=$(swsim --ports 4 --buffer samq --buf-flits 32 --load 0.9 --packet-flits 8 --cycles 20000 --csv | sed -n 2p)
	b=$(swsim --ports 4 --buffer damq --buf-flits 32 --load 0.9 --packet-flits 8 --cycles 20000 --csv | sed -n 2p)
	# blocking is part of the source wait, and the shared buffer blocks less
	awk -v a="$a" -v b="$b" 'BEGIN {
		split(a, x, ","); split(b, y, ",")
		print "samq blocked", x[7], "of", x[6], "damq blocked", y[7], "of", y[6]
		exit !(x[7] > 0 && x[7] <= x[6] && y[7] < x[7])
	}'
}

@test "--load 1 on a bare switch is saturated" {
	run swsim --ports 4 --buffer damq --buf-flits 8 --load 1 --cycles 5000 --csv
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -d, -f8,10)" = "1.000000,saturated" ]
}

@test "text report shows the feed and the results" {
	run swsim --topo kary:8,3 --load 0.1 --cycles 5000
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -q '^mean hops 10.520548, per dimension (kd) 3.506849; bottleneck link utilization 0.350685$'
	printf '%s\n' "$output" | grep -q '^latency est. T  '
	printf '%s\n' "$output" | grep -q '^status          ok$'
}

@test "usage errors: one line, exit 2" {
	bad() {
		run swsim "$@"
		[ "$status" -eq 2 ] || { echo "status $status for $*"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "lines: $output"; return 1; }
		case ${lines[0]} in
		"swsim: "*"; try 'swsim -h'") ;;
		*) echo "bad message: ${lines[0]}"; return 1 ;;
		esac
	}
	bad --ports 1 --load 0.5
	bad --ports 65 --load 0.5
	bad --ports 4 --load 0.5 --buffer lifo
	bad --ports 4 --load 0.5 --buffer fifo --buf-flits 4 --packet-flits 8
	bad --ports 4 --load 0.5 --buffer samq --buf-flits 12 --packet-flits 4
	bad --ports 4 --load 0.5 --buffer damq --buf-flits 3 --packet-flits 4
	bad --ports 4 --load 0
	bad --ports 4 --load 1.5
	bad --ports 4 --load 0.1,,0.2
	bad --ports 4 --load nan
	bad --ports 4
	bad --load 0.5
	bad --ports 4 --topo kary:8,3 --load 0.5
	bad --topo mesh:8,3 --load 0.5
	bad --topo kary:8 --load 0.5
	bad --topo kary:1,3 --load 0.5
	bad --topo kary:1024,4 --load 0.5
	bad --topo omega:4,6 --load 0.5
	bad --topo kary:2,21 --load 0.5
	bad --ports 4 --load 0.5 --arb random
	bad --ports 4 --load 0.5 --packet-flits 0
	bad --ports 4 --load 0.5 --cycles 0
	bad --ports 4 --load 0.5 --cycles 5 --batches 20
	bad --ports 4 --load 0.5 --confidence 1
	bad --ports 4 --load 0.5 --seed -1
	bad --ports 4 --load 0.5 extra
	bad --ports 4 --load 0.5 --bogus
	bad --ports 4 --load 0.5 --csv=yes
	bad --ports
}

@test "a bounded buffer under oq is accepted and ignored" {
	a=$(swsim --ports 4 --buffer oq --load 0.7 --cycles 5000 --csv)
	b=$(swsim --ports 4 --buffer oq --buf-flits 2 --load 0.7 --cycles 5000 --csv)
	[ "$a" = "$b" ]
}

@test "a failed write to stdout is an error" {
	[ -w /dev/full ] || skip "no /dev/full"
	run swsim --ports 4 --load 0.5 --cycles 1000 --csv -o /dev/null
	[ "$status" -eq 2 ]
	run sh -c 'swsim --ports 4 --load 0.5 --cycles 1000 --csv > /dev/full'
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
}
