#!/usr/bin/env bats
# Tests of wlgen, the workload generator: determinism, counts and order,
# the statistics of lengths, load and shares against their sampling
# error, destination rules, hot spots, trace replay, and errors. Streams
# are dumped with `mpcat -c` (CSV: class,group,route,src,dst,packets,id,
# time,bytes,prio) and `mpcat -H` (header).

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	TRACE="$BATS_TEST_DIRNAME/../traces/sample.csv"
	T="$BATS_TEST_TMPDIR"
}

# CSV of the records (without the header row) of a wlgen run.
rows() {
	wlgen "$@" | mpcat -c | sed 1d
}

# Value of a header key of a wlgen run.
meta() {
	local key=$1
	shift
	wlgen "$@" | mpcat -H | sed -n "s/^$key=//p"
}

@test "-h prints usage on stdout and exits 0" {
	run wlgen -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == usage:* ]]
	[[ "$output" == *--hot-share* ]]
}

@test "same arguments give identical bytes, compressed and raw" {
	wlgen --preset po2 --long 10 --load 0.5 -n 5000 --seed 7 >"$T/a"
	wlgen --preset po2 --long 10 --load 0.5 -n 5000 --seed 7 >"$T/b"
	cmp "$T/a" "$T/b"
	wlgen --load 0.5 -n 5000 --seed 7 --raw --hot-spots 3 --gt-share 10 >"$T/c"
	wlgen --load 0.5 -n 5000 --seed 7 --raw --hot-spots 3 --gt-share 10 >"$T/d"
	cmp "$T/c" "$T/d"
	# raw output starts with the stream magic
	[ "$(head -c 4 "$T/c" | od -An -tx1 | tr -d ' ')" = "8d6d700a" ]
}

@test "a different seed gives a different stream" {
	rows --load 0.5 -n 1000 --seed 1 >"$T/a"
	rows --load 0.5 -n 1000 --seed 2 >"$T/b"
	! cmp -s "$T/a" "$T/b"
}

@test "-n gives exactly that many messages, ids 0..n-1 in order" {
	rows --load 0.5 -n 1234 >"$T/a"
	[ "$(wc -l <"$T/a")" -eq 1234 ]
	awk -F, '$7 != NR - 1 { exit 1 }' "$T/a"
	run meta messages --load 0.5 -n 1234
	[ "$output" = 1234 ]
	[ "$(rows --load 0.5 -n 0 | wc -l)" -eq 0 ]
}

@test "times non-decreasing, no src == dst, fields in range" {
	rows --load 0.9 -n 20000 --seed 3 >"$T/a"
	awk -F, '
		$8 < t { print "time goes back at id " $7; exit 1 }
		{ t = $8 }
		$4 == $5 { print "src == dst at id " $7; exit 1 }
		$4 >= 91 || $5 >= 91 { print "node out of range"; exit 1 }
		$9 != $6 * 128 || $10 != 0 || $1 != 0 || $2 != 0 || $3 != 0 {
			print "bad field at id " $7; exit 1 }
	' "$T/a"
}

@test "mean length is 5.2 at --long 10 (n = 20000, bound 4 se = 0.19)" {
	# Lengths 1..5 with probability 0.9 and 25 with 0.1: mean 5.2,
	# E[L^2] = 0.9 * 11 + 0.1 * 625 = 72.4, sd = sqrt(72.4 - 5.2^2) = 6.73,
	# so the standard error of the mean of 20000 is 0.048.
	rows --preset po2 --long 10 --load 0.5 -n 20000 --seed 1 >"$T/a"
	awk -F, '{ s += $6 } END { m = s / NR; print m
		if (m < 5.2 - 0.19 || m > 5.2 + 0.19) exit 1 }' "$T/a"
	# only the lengths of the mix occur
	awk -F, '!($6 >= 1 && $6 <= 5 || $6 == 25) { exit 1 }' "$T/a"
	run meta mean_length --load 0.5 -n 1
	[ "$output" = 5.2 ]
}

@test "measured offered load matches --load (Poisson, po2)" {
	# packets per node per unit * 420. The total of n = 20000 messages has
	# a relative sd of sqrt(E[L^2] / (n mean^2)) = 1.2%: at 0.5 that is
	# 0.006, and the bound 0.025 is over 4 se.
	rows --preset po2 --long 10 --load 0.5 -n 20000 --seed 1 >"$T/a"
	awk -F, '{ p += $6; t = $8 } END { u = p / 91 / t * 420; print u
		if (u < 0.475 || u > 0.525) exit 1 }' "$T/a"
}

@test "measured load with geometric arrivals and single packets" {
	# 1-packet messages: relative sd 1 / sqrt(20000) = 0.7%, 0.0057 at 0.8.
	rows --preset po2 --uniform --arrival geometric --load 0.8 -n 20000 \
		--seed 2 >"$T/a"
	awk -F, '{ p += $6; t = $8 } END { u = p / 91 / t * 420; print u
		if (u < 0.777 || u > 0.823) exit 1 }' "$T/a"
}

@test "load above 1 is accepted (overload studies)" {
	rows --preset po2 --load 2 -n 20000 --seed 4 >"$T/a"
	awk -F, '{ p += $6; t = $8 } END { u = p / 91 / t * 420; print u
		if (u < 1.9 || u > 2.1) exit 1 }' "$T/a"
}

@test "--uniform gives all lengths 1, and so does --workload uniform" {
	rows --uniform --load 0.5 -n 2000 >"$T/a"
	awk -F, '$6 != 1 { exit 1 }' "$T/a"
	rows --workload uniform --load 0.5 -n 2000 >"$T/b"
	cmp "$T/a" "$T/b"
	run meta workload --uniform --load 0.5 -n 1
	[ "$output" = uniform ]
}

@test "workloads wk1-5, wk30, fixed:K, wk-mixture" {
	rows --workload wk1-5 --load 0.5 -n 2000 | awk -F, '$6 < 1 || $6 > 5 { exit 1 }'
	rows --workload wk30 --load 0.5 -n 500 | awk -F, '$6 != 30 { exit 1 }'
	rows --workload fixed:7 --load 0.5 -n 500 | awk -F, '$6 != 7 { exit 1 }'
	rows --preset fedx --load 0.5 -n 3000 | awk -F, '
		$6 == 25 { l++ } !($6 >= 1 && $6 <= 5 || $6 == 25) { exit 1 }
		END { if (l < 200 || l > 400) exit 1 }'
	run meta workload --preset fedx --load 0.5 -n 1
	[ "$output" = wk-mixture ]
}

@test "--long accepts 10 and 10%; options override the preset in any order" {
	rows --long 10 --load 0.5 -n 1000 >"$T/a"
	rows --long 10% --load 0.5 -n 1000 >"$T/b"
	cmp "$T/a" "$T/b"
	rows --long 30 --short-max 3 --load 0.5 --preset po2 -n 1000 >"$T/c"
	rows --preset po2 --load 0.5 --long 30 --short-max 3 -n 1000 >"$T/d"
	cmp "$T/c" "$T/d"
	awk -F, '!($6 >= 1 && $6 <= 3 || $6 == 25) { exit 1 }' "$T/c"
	run meta long_share --long 30 --workload wk-mixture --load 0.5 -n 1
	[ "$output" = 0.3 ]
}

@test "--duration stops at that time" {
	rows --load 0.5 --duration 50000 >"$T/a"
	[ "$(wc -l <"$T/a")" -gt 500 ]
	awk -F, '$8 >= 50000 { exit 1 }' "$T/a"
	run meta duration --load 0.5 --duration 50000
	[ "$output" = 50000 ]
}

@test "header metadata: po2, fedx, torus, sizes" {
	wlgen --load 0.5 -n 10 --seed 9 | mpcat -H >"$T/h"
	grep -qx nodes=91 "$T/h"
	grep -qx topology=hex:6 "$T/h"
	grep -qx preset=po2 "$T/h"
	grep -qx time_unit=byte "$T/h"
	grep -qx pe_time=420 "$T/h"
	grep -qx packet_time=160 "$T/h"
	grep -qx load=0.5 "$T/h"
	grep -qx payload=128 "$T/h"
	grep -qx seed=9 "$T/h"
	grep -qx arrival=poisson "$T/h"
	grep -qx dest=uniform "$T/h"
	grep -qx short_min=1 "$T/h"
	grep -qx short_max=5 "$T/h"
	grep -qx long_len=25 "$T/h"
	grep -qx long_share=0.1 "$T/h"
	grep -q '^prov 1: wlgen .* seed=9 args=.*--load 0.5' "$T/h"
	[ "$(meta pe_time --preset fedx --load 0.5 -n 1)" = 320 ]
	[ "$(meta topology --preset fedx --load 0.5 -n 1)" = hexrect:8x8 ]
	[ "$(meta time_unit --preset torus --load 0.5 -n 1)" = flit ]
	[ "$(meta pe_time --preset torus --load 0.5 -n 1)" = 16 ]
	[ "$(meta nodes --size 7 --load 0.5 -n 1)" = 127 ]
	[ "$(meta nodes --topo torus:4x4 --load 0.5 -n 1)" = 16 ]
	[ "$(meta payload --payload 64 --load 0.5 -n 1)" = 64 ]
	rows --payload 64 --load 0.5 -n 100 | awk -F, '$9 != 64 * $6 { exit 1 }'
}

@test "hot spots: senders, sinks and independent nodes keep to their roles" {
	wlgen --hot-nodes 3,17,40 --hot-share 30 --load 0.4 -n 20000 --seed 5 >"$T/s"
	mpcat -H "$T/s" >"$T/h"
	grep -qx hot_nodes=3,17,40 "$T/h"
	hs=$(sed -n 's/^hot_senders=//p' "$T/h")
	# 30% of 91 PEs, rounded: 27 senders, none of them hot
	[ "$(echo "$hs" | tr , '\n' | wc -l)" -eq 27 ]
	mpcat -c "$T/s" | sed 1d | awk -F, -v hs="$hs" '
		BEGIN { hot[3] = hot[17] = hot[40] = 1
			n = split(hs, a, ","); for (i = 1; i <= n; i++) snd[a[i]] = 1 }
		$4 in hot { print "hot node sends"; exit 1 }
		$2 == 1 && !($4 in snd) { print "group 1 from a non-sender"; exit 1 }
		$2 == 1 && !($5 in hot) { print "hot sender to a cold node"; exit 1 }
		$2 == 0 && ($4 in snd) { print "sender in group 0"; exit 1 }
		$2 == 0 && (($5 in hot) || ($5 in snd)) {
			print "independent node sends outside its group"; exit 1 }
		$2 == 1 { g++; d[$5]++ }
		END {
			# 27 of the 88 senders at equal load: 0.307, se 0.0033
			f = g / NR; print f
			if (f < 0.292 || f > 0.322) exit 1
			# the three hot nodes share evenly: se of a third 0.0047
			for (k in d) if (d[k] / g < 0.30 || d[k] / g > 0.367) exit 1
		}'
}

@test "hot spots: --hot-load sets the hot senders' rate" {
	# 27 senders at 0.8 against 61 independent nodes at 0.4:
	# 54 / 115 = 0.470 of the messages, se 0.0035.
	rows --hot-nodes 3,17,40 --load 0.4 --hot-load 0.8 -n 20000 --seed 6 |
		awk -F, '$2 == 1 { g++ } END { f = g / NR; print f
			if (f < 0.455 || f > 0.485) exit 1 }'
	run meta hot_load --hot-nodes 3 --load 0.4 --hot-load 0.8 -n 1
	[ "$output" = 0.8 ]
}

@test "hot spots chosen from the seed are reproducible and listed" {
	a=$(meta hot_nodes --hot-spots 4 --load 0.5 -n 1 --seed 11)
	b=$(meta hot_nodes --hot-spots 4 --load 0.5 -n 1 --seed 11)
	c=$(meta hot_nodes --hot-spots 4 --load 0.5 -n 1 --seed 12)
	[ "$a" = "$b" ]
	[ "$a" != "$c" ]
	[ "$(echo "$a" | tr , '\n' | wc -l)" -eq 4 ]
	[ "$(meta hot_share --hot-spots 4 --load 0.5 -n 1)" = 0.3 ]
}

@test "per-node streams: class and route shares do not reshuffle the rest" {
	rows --load 0.5 -n 20000 --seed 8 | cut -d, -f4-9 >"$T/a"
	rows --load 0.5 -n 20000 --seed 8 --gt-share 20 --adaptive-share 50 >"$T/b"
	cut -d, -f4-9 "$T/b" | cmp - "$T/a"
	# class 1: 20% (se 0.0028); route 2: 50% (se 0.0035)
	awk -F, '$1 == 1 { g++ } $3 == 2 { r++ } $3 != 0 && $3 != 2 { exit 1 }
		END { print g / NR, r / NR
		if (g / NR < 0.188 || g / NR > 0.212) exit 1
		if (r / NR < 0.485 || r / NR > 0.515) exit 1 }' "$T/b"
}

@test "--gt-load adds a guaranteed stream of --gt-length messages" {
	rows --load 0.4 --gt-load 0.2 --gt-length 2 -n 20000 --seed 3 >"$T/a"
	awk -F, '$1 == 1 && $6 != 2 { exit 1 } $1 == 1 { g++ } $1 == 0 { p += $6 }
		END { print g, p
		# packets: GT 0.2 * 2 per 2 packets vs BE 0.4: GT messages
		# 0.1 per 0.4 / 5.2 BE messages: share 0.565, se 0.0035
		if (g / NR < 0.55 || g / NR > 0.58) exit 1 }' "$T/a"
}

@test "--dest neighbor: one hop on E6" {
	# offsets +1, +17, +16 and their negatives mod 91
	rows --dest neighbor --load 0.5 -n 5000 | awk -F, '
		{ o = ($5 - $4 + 91) % 91 }
		o != 1 && o != 17 && o != 16 && o != 90 && o != 74 && o != 75 { exit 1 }'
}

@test "--dest distance:2: the 12 nodes at two hops on E6" {
	rows --dest distance:2 --load 0.5 -n 5000 | awk -F, '
		{ o = ($5 - $4 + 91) % 91; seen[o] = 1 }
		o == 1 || o == 17 || o == 16 || o == 90 || o == 74 || o == 75 { exit 1 }
		END { n = 0; for (k in seen) n++; if (n != 12) exit 1 }'
}

@test "--dest transpose and bitcomp on an 8x8 torus" {
	rows --preset torus --dest transpose --load 0.5 -n 3000 | awk -F, '
		{ r = int($4 / 8); c = $4 % 8 }
		r != c && $5 != c * 8 + r { exit 1 }'
	rows --preset torus --dest bitcomp --load 0.5 -n 3000 | awk -F, '$5 != 63 - $4 { exit 1 }'
}

@test "saturated arrivals: back to back every mean length * 420 units" {
	rows --arrival saturated -n 182 >"$T/a"
	# all 91 nodes at time 0, then all at 5.2 * 420 = 2184
	[ "$(awk -F, 'NR <= 91 && $8 == 0' "$T/a" | wc -l)" -eq 91 ]
	[ "$(awk -F, 'NR > 91 && $8 == 2184' "$T/a" | wc -l)" -eq 91 ]
	run meta load --arrival saturated -n 1
	[ "$output" = 1 ]
}

@test "replay of traces/sample.csv: count, packets, times" {
	rows --preset po2 --replay "$TRACE" >"$T/a"
	[ "$(wc -l <"$T/a")" -eq 362 ]
	awk -F, '{ p += $6 } $7 != NR - 1 || $9 != 128 * $6 { exit 1 }
		NR == 1 && $8 != 73 { exit 1 } END { if (p != 3220 || $8 != 43330) exit 1 }' "$T/a"
	rows --preset po2 --replay "$TRACE" --time-scale 2 | tail -1 |
		awk -F, '$8 != 86660 { exit 1 }'
	# the broadcast phase is of class 1
	[ "$(awk -F, '$1 == 1' "$T/a" | wc -l)" -eq 90 ]
	run meta workload --replay "$TRACE"
	[ "$output" = replay ]
}

@test "replay: column aliases, remapping, self rows" {
	printf 'Time,Source,Destination,Length,Class\n0.4,1,2,3,GT\n1.6,1,1,1,be\n2,95,7,2,0\n' >"$T/t.csv"
	run wlgen --replay "$T/t.csv"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "wlgen: $T/t.csv: line 3: src and dst are both 1 (--drop-self skips such rows)" ]
	rows --replay "$T/t.csv" --drop-self --remap 95:9 --time-scale 10 >"$T/a"
	[ "$(cat "$T/a")" = "1,0,0,1,2,3,0,4,384,0
0,0,0,9,7,2,1,20,256,0" ]
	rows --replay "$T/t.csv" --drop-self --remap-mod | tail -1 |
		awk -F, '$4 != 4 { exit 1 }'
}

@test "replay: bad rows exit 1 naming the line" {
	printf 'time,src,dst,packets\n0,1,2,3\n5,3,x,1\n' >"$T/b1.csv"
	run wlgen --replay "$T/b1.csv"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/b1.csv: line 3: dst: 'x' is not an unsigned integer" ]
	printf 'time,src,dst,packets\n5,1,2,3\n4,3,4,1\n' >"$T/b2.csv"
	run wlgen --replay "$T/b2.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"line 3: time 4 is before the previous row's 5"* ]]
	printf 'time,src,dst,bytes\n5,1,91,3\n' >"$T/b3.csv"
	run wlgen --replay "$T/b3.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"line 2: dst 91 out of range (91 nodes)"* ]]
	printf 'time,src,packets\n5,1,3\n' >"$T/b4.csv"
	run wlgen --replay "$T/b4.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no 'dst' (or 'destination') column"* ]]
	run wlgen --replay "$T/missing.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == "wlgen: $T/missing.csv: "* ]]
}

@test "replay: a bad row leaves no complete stream behind" {
	printf 'time,src,dst,packets\n0,1,2,3\n5,3,x,1\n' >"$T/b1.csv"
	run wlgen --replay "$T/b1.csv" -o "$T/out"
	[ "$status" -eq 1 ]
	[ ! -e "$T/out" ]
}

@test "bad options exit 2 with a message naming the option" {
	run wlgen --load abc -n 10
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: --load: 'abc' is not a number; try 'wlgen -h'" ]
	run wlgen --load nan -n 10
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: --load: 'nan' is not a finite number; try 'wlgen -h'" ]
	run wlgen --load 0 -n 10
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --load: 0 is out of range"* ]]
	run wlgen --load 11 -n 10
	[ "$status" -eq 2 ]
	run wlgen --load -0.5 -n 10
	[ "$status" -eq 2 ]
	run wlgen --long 150 --load 0.5 -n 10
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --long: 150 is out of range"* ]]
	run wlgen --load 0.5 -n -3
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: -n: "* ]]
	run wlgen --load 0.5 -n 99999999999999999999999
	[ "$status" -eq 2 ]
	run wlgen --load 0.5 -n 10 --seed x
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --seed: "* ]]
	run wlgen --load 0.5
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: give -n or --duration; try 'wlgen -h'" ]
	run wlgen -n 10
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: give --load (the offered load); try 'wlgen -h'" ]
	run wlgen --load 0.5 -n 10 --bogus
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: unknown option '--bogus'; try 'wlgen -h'" ]
	[ "${#lines[@]}" -eq 1 ]
	run wlgen --load 0.5 -n 10 extra
	[ "$status" -eq 2 ]
}

@test "bad option values and combinations exit 2" {
	for args in "--dest foo" "--arrival foo" "--workload foo" \
		"--workload fixed:0" "--preset nope" "--dest transpose" \
		"--dest bitcomp" "--dest distance:6" "--short-min 6" \
		"--hot-share 30" "--hot-nodes 3,3" "--hot-nodes 91" \
		"--hot-spots 91" "--hot-spots 2 --dest neighbor" \
		"--nodes 90" "--size 1" "--topo ring:5" "--payload 0" \
		"--time-scale 2" "--remap 1:2"; do
		run wlgen --load 0.5 -n 10 $args
		[ "$status" -eq 2 ] || { echo "$args: $status"; false; }
		[[ "${lines[0]}" == wlgen:\ --* ]] || { echo "$args: ${lines[0]}"; false; }
	done
	run wlgen --dest transpose --load 0.5 -n 10
	[ "${lines[0]}" = "wlgen: --dest: transpose needs a square hexrect or torus topology, not hex:6; try 'wlgen -h'" ]
	run wlgen --replay "$TRACE" --load 0.5
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "wlgen: --load: not used with --replay; try 'wlgen -h'" ]
}

@test "write errors: /dev/full exits 1; a closed pipe kills quietly (141)" {
	run sh -c 'wlgen --load 0.5 -n 1000 >/dev/full'
	[ "$status" -eq 1 ]
	[[ "$output" == "wlgen: stdout: write failed: "* ]]
	run bash -c 'wlgen --load 0.5 -n 2000000 2>"$1" | head -c 10 >/dev/null;
		echo "${PIPESTATUS[0]}"' sh "$T/err"
	[ "$output" = 141 ]
	[ ! -s "$T/err" ]
}

@test "-o writes the same records to a file, quietly" {
	run wlgen --load 0.5 -n 500 -o "$T/f"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	mpcat -c "$T/f" >"$T/a"
	wlgen --load 0.5 -n 500 | mpcat -c >"$T/b"
	cmp "$T/a" "$T/b"
}

@test "wlgen needs only the network's shape: po2's derouting does not stop a torus workload" {
	# netrun refuses derouting on a torus; wlgen does not route.
	run netrun --preset po2 --topo torus:8x8 --show-config
	[ "$status" -eq 2 ]
	wlgen --preset po2 --topo torus:8x8 --load 0.3 -n 50 --seed 2 > "$T/w.mps"
	run mpcat -H "$T/w.mps"
	[[ "$output" == *"topology=torus:8x8"* ]]
	[[ "$output" == *"nodes=64"* ]]
	run mpcat -n "$T/w.mps"
	[ "$output" = "msg 50" ]
}

@test "--preset rs: one 16-flit packet per message, never to the source, load in flits per node per cycle; --gt-load adds class gt" {
	wlgen --preset rs --load 0.2 -n 20000 --seed 3 > "$T/w.mps"
	run mpcat -H "$T/w.mps"
	[[ "$output" == *"nodes=64"* ]]
	mpcat -c "$T/w.mps" | awk -F, 'NR > 1 { if ($6 != 1 || $4 == $5 || $1 != 0) bad++; n++; t = $8 }
		END { r = n * 16 / 64 / t; exit !(bad == 0 && r > 0.19 && r < 0.21) }'
	wlgen --preset rs --load 0.2 --gt-load 0.1 -n 20000 --seed 3 > "$T/g.mps"
	mpcat -c "$T/g.mps" | awk -F, 'NR > 1 { c[$1]++ } END { r = c[1] / c[0]; exit !(r > 0.45 && r < 0.55 && c[0] + c[1] == 20000) }'
}
