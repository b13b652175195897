#!/usr/bin/env bats
# Tests of sched: the policy it records, segmentation, class priority,
# and the closed-loop behaviour of alpha scheduling inside netrun.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	MSGHDR=class,group,route,src,dst,packets,id,time,bytes,prio
}

@test "sched -h prints usage and exits 0" {
	run sched -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: sched [options] [file]" ]]
}

@test "bad usage exits 2 naming the option" {
	run sched --alpha -1
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "sched: --alpha: -1 is out of range [0, 1e+09]; try 'sched -h'" ]
	run sched --alpha nan
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "sched: --alpha: 'nan' is not a finite number; try 'sched -h'" ]
	run sched --segment 0
	[ "$status" -eq 2 ]
	run sched --bogus
	[ "$status" -eq 2 ]
}

@test "the policy goes into the header, records become injections" {
	wlgen --preset po2 --long 10 --load 0.5 -n 100 --seed 1 > "$T/w.mps"
	sched --alpha 8 "$T/w.mps" > "$T/i.mps"
	run mpcat -H "$T/i.mps"
	[[ "$output" == *"kind: injections"* ]]
	[[ "$output" == *"sched.policy=alpha"* ]]
	[[ "$output" == *"sched.alpha=8"* ]]
	[[ "$output" == *"sched.class_priority=0"* ]]
	[[ "$output" == *"prov 2: sched 0.1.0 args=--alpha 8 $T/w.mps"* ]]
	run mpcat -n "$T/i.mps"
	[ "$output" = "inj 100" ]
	# same messages, field for field
	diff <(mpcat -c "$T/w.mps") <(mpcat -c -r inj "$T/i.mps")
	run sh -c "sched --fifo '$T/w.mps' | mpcat -H"
	[[ "$output" == *"sched.policy=fifo"* ]]
	run sh -c "sched --srf '$T/w.mps' | mpcat -H"
	[[ "$output" == *"sched.policy=srf"* ]]
}

@test "segmentation: packets = ceil(bytes / B)" {
	printf '%s\n0,0,0,1,2,1,0,0,100,0\n0,0,0,1,2,1,1,5,128,0\n0,0,0,1,2,3,2,9,0,0\n0,0,0,1,2,1,3,9,1000,0\n' \
		$MSGHDR > "$T/m.csv"
	mpcat -C -s nodes=91 "$T/m.csv" | sched --segment 64 > "$T/i.mps"
	run sh -c "mpcat -c -r inj '$T/i.mps' | cut -d, -f6,9"
	[ "${lines[1]}" = "2,100" ]
	[ "${lines[2]}" = "2,128" ]
	[ "${lines[3]}" = "3,0" ]
	[ "${lines[4]}" = "16,1000" ]
}

@test "class priority marks best-effort messages as the later class" {
	printf '%s\n1,0,0,1,2,1,0,0,0,0\n0,0,0,1,2,1,1,5,0,0\n' $MSGHDR > "$T/m.csv"
	mpcat -C -s nodes=91 "$T/m.csv" | sched -c > "$T/i.mps"
	run sh -c "mpcat -c -r inj '$T/i.mps' | cut -d, -f1,10"
	[ "${lines[1]}" = "1,0" ]
	[ "${lines[2]}" = "0,1" ]
}

@test "closed loop: short messages overtake a long one stalled by backpressure under alpha 8, not under FIFO" {
	# Node 0 sends 25 packets to node 1 at time 0; nineteen other nodes
	# flood node 1 at the same time, so with destination backpressure
	# the long message's packets are refused and its node clock stops.
	# Node 0 then gets ten 1-packet messages for node 50, one every
	# 2000 units. Alpha 8: a short one has priority c + 8 against the
	# long one's 200 - 8c, so it goes first while c < 21. FIFO: behind.
	{
		echo $MSGHDR
		echo "0,0,0,0,1,25,0,0,0,0"
		id=1
		for s in $(seq 2 20); do echo "0,0,0,$s,1,25,$id,0,0,0"; id=$((id+1)); done
		for k in $(seq 1 10); do echo "0,0,0,0,50,1,$id,$((k*2000)),0,0"; id=$((id+1)); done
	} > "$T/m.csv"
	mpcat -C -s nodes=64 "$T/m.csv" > "$T/m.mps"
	for a in 0 8; do
		sched --alpha $a "$T/m.mps" | netrun --preset fedx --bp destination \
			> "$T/d$a.mps"
		mpcat -c "$T/d$a.mps" > "$T/d$a.csv"
		# when the long message's last packet started injection
		mpcat -c -r pkt "$T/d$a.mps" |
			awk -F, '$7 == 0 && $6 == 24 { print $8 }' > "$T/last$a"
	done
	# short messages of node 0 that started injection before that
	count() {
		awk -F, -v last="$(cat "$2")" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["src"] == 0 && $c["packets"] == 1 && $c["t_first"] < last { k++ }
			END { print k + 0 }' "$1"
	}
	[ "$(count "$T/d0.csv" "$T/last0")" -eq 0 ]
	[ "$(count "$T/d8.csv" "$T/last8")" -eq 10 ]
	# under alpha 8 each short message starts injecting on arrival
	run awk -F, 'NR > 1 && $4 == 0 && $6 == 1 && $10 != $9 { bad++ }
		END { print bad + 0 }' "$T/d8.csv"
	[ "$output" -eq 0 ]
}

@test "alpha 8 lowers short-message latency on a bursty load" {
	wlgen --preset po2 --long 10 --load 0.6 -n 6000 --seed 3 > "$T/w.mps"
	for a in 0 8; do
		sched --alpha $a "$T/w.mps" | netrun --preset po2 -k |
			lstat --by length --csv > "$T/s$a.csv"
	done
	s0=$(awk -F, '$1 == "short" { print $5 }' "$T/s0.csv")
	s8=$(awk -F, '$1 == "short" { print $5 }' "$T/s8.csv")
	l0=$(awk -F, '$1 == "long" { print $5 }' "$T/s0.csv")
	l8=$(awk -F, '$1 == "long" { print $5 }' "$T/s8.csv")
	awk -v a="$s8" -v b="$s0" 'BEGIN { exit !(a < b) }'
	# ... and long messages pay for it
	awk -v a="$l8" -v b="$l0" 'BEGIN { exit !(a > b) }'
}

@test "bad input: a deliveries stream is refused" {
	wlgen --preset po2 --uniform --load 0.1 -n 10 --seed 1 | netrun > "$T/d.mps"
	run sched "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "sched: $T/d.mps: a deliveries stream: sched reads messages" ]]
	head -c 60 "$T/d.mps" > "$T/cut.mps"
	run sched "$T/cut.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "sched: $T/cut.mps: "* ]]
}

@test "writing to a full disk fails with exit 1" {
	wlgen --preset po2 --uniform --load 0.1 -n 5000 --seed 1 > "$T/w.mps"
	run sched "$T/w.mps" -o /dev/full
	[ "$status" -eq 1 ]
	[[ "$output" == "sched: /dev/full: write failed: No space left on device" ]]
}
