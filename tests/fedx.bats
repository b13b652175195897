#!/usr/bin/env bats
# Tests of the Fed-X model (SPEC 3.2) across the programs: the fedx
# preset, other R x C sizes, the buffer rule under every backpressure
# setting, balanced injection and its starvation time-out, per-message
# routing, the hot-spot workload, and the saturation test of the
# pipelines/fedx sweeps.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	MSGHDR=class,group,route,src,dst,packets,id,time,bytes,prio
}

# Cumulative PE-port refusals at the end of a deliveries stream (the last
# utilization snapshot of scope 0, all PE ports).
pe_refusals() {
	mpcat -c -r util "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["scope"] == 0 { r = $c["refusals"] } END { print r }'
}

# Value of column $2 in the row of group $3 of an lstat CSV file $1.
col() {
	awk -F, -v k="$2" -v g="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["group"] == g { print $c[k] }' "$1"
}

@test "fedx preset: the configuration of SPEC 3.2" {
	run netrun --preset fedx --show-config
	[ "$status" -eq 0 ]
	expected="--preset fedx
--model packet
--payload 128
--topo hexrect:8x8
--route best
--buffers 10
--packet-time 160
--header-time 12
--inject-setup 0
--eject-setup 0
--links half
--pe-port shared
--pe-arb fair
--bp message
--buffer-limit 0
--buffer-limit-dest 0
--buffer-limit-trans 0
--inject-timeout 0
--eject-priority off
--deadlock hop-count
--retry immediate"
	[ "$output" = "$expected" ]
	run netrun --preset fedx --route deterministic --bp destination \
		--buffer-limit 3 --buffer-limit-dest 2 --buffer-limit-trans 4 \
		--inject-timeout 3200 --eject-priority on --show-config
	[ "$status" -eq 0 ]
	[[ "$output" == *"--route deterministic"* ]]
	[[ "$output" == *"--bp destination"* ]]
	[[ "$output" == *"--buffer-limit 3"* ]]
	[[ "$output" == *"--buffer-limit-dest 2"* ]]
	[[ "$output" == *"--buffer-limit-trans 4"* ]]
	[[ "$output" == *"--inject-timeout 3200"* ]]
	[[ "$output" == *"--eject-priority on"* ]]
	run netrun --preset fedx --route adaptive --show-config
	[[ "$output" == *"--route best"* ]]
	run netrun --preset fedx --bp sideways
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "netrun: --bp: "* ]]
	# the hop-count rule needs D+1 = 6 buffers on the 8x8 (diameter 5)
	wlgen --preset fedx --load 0.1 -n 10 > "$T/w.mps"
	run netrun --preset fedx --buffers 5 "$T/w.mps"
	[ "$status" -eq 2 ]
	[[ "$output" == *"hop-count needs at least 6 buffers"* ]]
}

@test "fedx on other R x C sizes: hexrect 6x10 and 5x7 run and conserve counts" {
	for topo in hexrect:6x10 hexrect:5x7; do
		wlgen --preset fedx --topo $topo --workload wk-mixture --load 0.4 \
			-n 2000 --seed 2 > "$T/w.mps"
		run mpcat -H "$T/w.mps"
		[[ "$output" == *"topology=$topo"* ]]
		run netrun --preset fedx --topo $topo -v "$T/w.mps" -o "$T/d.mps"
		[ "$status" -eq 0 ]
		[[ "$output" == *"messages read 2000 = delivered 2000 + unfinished 0"* ]]
		run lstat --csv "$T/d.mps"
		[ "$status" -eq 0 ]
		[ "$(col <(echo "$output") status all)" = ok ]
	done
	run netrun --preset fedx --topo hexrect:6x10 --show-config
	[[ "$output" == *"--topo hexrect:6x10"* ]]
}

@test "the hop-count rule: no deadlock at overload under every backpressure rule" {
	# Load 1.5 with hot spots, half the messages adaptive, half on the
	# deterministic route: every run saturates, none deadlocks, and every
	# message is delivered.
	wlgen --preset fedx --workload wk-mixture --load 1.5 -n 3000 --seed 1 \
		--hot-spots 2 --adaptive-share 50 > "$T/w.mps"
	for bp in none message destination; do
		run netrun --preset fedx --route deterministic --bp $bp -k -v \
			"$T/w.mps" -o "$T/d.mps"
		[ "$status" -eq 0 ]
		[[ "$output" == *"delivered 3000 + unfinished 0"* ]]
		lstat --csv "$T/d.mps" > "$T/s.csv"
		[ "$(col "$T/s.csv" status all)" = saturated ]
	done
}

@test "without the buffer rule the same overload deadlocks (so the check can fail)" {
	wlgen --preset fedx --workload wk-mixture --load 1.5 -n 3000 --seed 1 > "$T/w.mps"
	run netrun --preset fedx --bp none --deadlock none --deadlock-time 20000 \
		-k "$T/w.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "netrun: deadlock at time "* ]]
	[[ "${lines[1]}" == *"(10/10 buffers)"* ]]
}

@test "balanced injection: --buffer-limit 1 injects only into an empty switch, so no injection is refused" {
	# At load 0.9 the switches are busy and many injections are refused
	# without a limit. With --buffer-limit 1 (or dest 1 and trans 1) the
	# PE starts an injection only when its switch holds no packet, which
	# always admits it: the PE port sees no refusal at all.
	wlgen --preset fedx --workload wk-mixture --load 0.9 -n 3000 --seed 4 > "$T/w.mps"
	netrun --preset fedx -k "$T/w.mps" -o "$T/d0.mps"
	netrun --preset fedx -k --buffer-limit 1 "$T/w.mps" -o "$T/d1.mps"
	netrun --preset fedx -k --buffer-limit-dest 1 --buffer-limit-trans 1 \
		"$T/w.mps" -o "$T/d2.mps"
	netrun --preset fedx -k --buffer-limit 4 "$T/w.mps" -o "$T/d4.mps"
	r0=$(pe_refusals "$T/d0.mps")
	r4=$(pe_refusals "$T/d4.mps")
	[ "$r0" -gt 1000 ]
	[ "$(pe_refusals "$T/d1.mps")" -eq 0 ]
	[ "$(pe_refusals "$T/d2.mps")" -eq 0 ]
	# a looser limit lets fewer injections in than none, more than 1
	[ "$r4" -lt "$r0" ]
	# and everything is still delivered
	run netrun --preset fedx -k -v --buffer-limit 1 "$T/w.mps" -o /dev/null
	[[ "$output" == *"delivered 3000 + unfinished 0"* ]]
}

@test "balanced injection: packets injected under the limits cross fewer full switches" {
	# The point of the limits: fewer buffers go to injections, so packet
	# latency (no source queueing) falls at high load.
	wlgen --preset fedx --workload wk-mixture --load 0.7 -n 6000 --seed 5 > "$T/w.mps"
	netrun --preset fedx -k "$T/w.mps" | lstat --csv > "$T/s0.csv"
	netrun --preset fedx -k --buffer-limit-dest 2 --buffer-limit-trans 4 \
		"$T/w.mps" | lstat --csv > "$T/s1.csv"
	p0=$(col "$T/s0.csv" pkt_lat_mean all)
	p1=$(col "$T/s1.csv" pkt_lat_mean all)
	awk -v a="$p0" -v b="$p1" 'BEGIN { exit !(b < 0.85 * a) }'
}

@test "--inject-timeout: a source held back by the destination limit injects anyway" {
	# Four nodes send 25 packets each to node 1 from time 0, so node 1
	# nearly always holds a packet to eject (but has free buffers); node
	# 1's own message to node 50 arrives at 100. With --buffer-limit-dest
	# 1 node 1 may not inject while it holds a packet for itself: without
	# a time-out its message waits for the 100 packets to be ejected
	# (16000 units); with --inject-timeout 1600 it goes after 1600 units
	# and at most two ejections in progress, with or without ejection
	# priority (which must not take the forced attempt's turn).
	{
		echo $MSGHDR
		id=0
		for s in 2 8 9 10; do echo "0,0,0,$s,1,25,$id,0,0,0"; id=$((id+1)); done
		echo "0,0,0,1,50,1,$id,100,0,0"
	} > "$T/m.csv"
	mpcat -C -s nodes=64 "$T/m.csv" > "$T/m.mps"
	wait_of() {
		netrun --preset fedx "$@" "$T/m.mps" | mpcat -c -r dlv |
			awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["src"] == 1 { print $c["t_first"] - $c["t_arrive"] }'
	}
	[ "$(wait_of --buffer-limit-dest 1)" -gt 12000 ]
	[ "$(wait_of --buffer-limit-dest 1 --inject-timeout 1600)" -le $((1600 + 2 * 160)) ]
	[ "$(wait_of --buffer-limit-dest 1 --inject-timeout 1600 --eject-priority on)" -le $((1600 + 2 * 160)) ]
	# without balanced injection the fair PE port lets it go at once
	[ "$(wait_of)" -le 160 ]
}

@test "per-message routing: marks override the fabric's default, both ways" {
	# A message marked adaptive (route 2) on a deterministic fabric is
	# routed exactly as on an adaptive fabric, and one marked
	# deterministic (route 1) on an adaptive fabric as on a deterministic
	# one: the delivered records are the same.
	wlgen --preset fedx --workload wk1-5 --load 0.6 -n 3000 --seed 6 > "$T/w.mps"
	mpcat -c "$T/w.mps" > "$T/w.csv"
	for r in 1 2; do
		awk -F, -v r=$r 'BEGIN { OFS = "," } NR > 1 { $3 = r } { print }' "$T/w.csv" |
			mpcat -C -s nodes=64 > "$T/w$r.mps"
	done
	out() { mpcat -c -r pkt "$1"; mpcat -c -r dlv "$1"; }
	netrun --preset fedx --route deterministic "$T/w.mps" -o "$T/det.mps"
	netrun --preset fedx --route adaptive "$T/w.mps" -o "$T/ada.mps"
	netrun --preset fedx --route deterministic "$T/w2.mps" -o "$T/det-marked2.mps"
	netrun --preset fedx --route adaptive "$T/w1.mps" -o "$T/ada-marked1.mps"
	[ "$(out "$T/det.mps" | cksum)" != "$(out "$T/ada.mps" | cksum)" ]
	[ "$(out "$T/det-marked2.mps" | cksum)" = "$(out "$T/ada.mps" | cksum)" ]
	[ "$(out "$T/ada-marked1.mps" | cksum)" = "$(out "$T/det.mps" | cksum)" ]
	# wlgen --adaptive-share marks about that share
	wlgen --preset fedx --load 0.5 -n 4000 --seed 7 --adaptive-share 30 |
		mpcat -c > "$T/a.csv"
	n=$(awk -F, 'NR > 1 && $3 == 2 { k++ } END { print k + 0 }' "$T/a.csv")
	[ "$n" -gt 1050 ] && [ "$n" -lt 1350 ]
}

@test "workloads by name and hot spots reach lstat --by group and --by length" {
	for wl in wk1-5 wk30 wk-mixture; do
		run wlgen --preset fedx --workload $wl --load 0.3 -n 10 --seed 1
		[ "$status" -eq 0 ]
	done
	wlgen --preset fedx --workload wk1-5 --hot-spots 2 --hot-share 30 \
		--load 0.3 -n 4000 --seed 1 > "$T/w.mps"
	sched --alpha 8 "$T/w.mps" | netrun --preset fedx --bp destination -k |
		lstat --csv --by group > "$T/g.csv"
	run awk -F, 'NR > 1 { print $1 }' "$T/g.csv"
	[ "$output" = "$(printf 'hot\nindependent\nall')" ]
	wlgen --preset fedx --workload wk-mixture --load 0.3 -n 2000 --seed 1 |
		netrun --preset fedx | lstat --csv --by length > "$T/l.csv"
	run awk -F, 'NR > 1 { print $1 }' "$T/l.csv"
	[ "$output" = "$(printf 'short\nlong\nall')" ]
}

@test "destination backpressure keeps independent traffic away from a saturated hot spot" {
	# The claim of study (a) in miniature: two hot spots overloaded by 30%
	# of the PEs; the independent nodes' mean packet latency is several
	# times higher under message-based backpressure than under
	# destination-based backpressure.
	wlgen --preset fedx --workload wk1-5 --hot-spots 2 --hot-share 30 \
		--load 0.4 --duration 600000 --seed 1 > "$T/w.mps"
	for bp in message destination; do
		netrun --preset fedx --bp $bp -k "$T/w.mps" |
			lstat --csv --by group --warmup-time 60000 > "$T/$bp.csv"
	done
	m=$(col "$T/message.csv" pkt_lat_mean independent)
	d=$(col "$T/destination.csv" pkt_lat_mean independent)
	awk -v m="$m" -v d="$d" 'BEGIN { exit !(m > 2 * d) }'
}

@test "pipelines/fedx/growth.sh: queue growth only when the load is beyond capacity" {
	g=$BATS_TEST_DIRNAME/../pipelines/fedx/growth.sh
	for u in 0.4 1.2; do
		wlgen --preset fedx --workload wk-mixture --load $u -n 8000 --seed 1 |
			netrun --preset fedx -k > "$T/d$u.mps"
		"$g" "$T/d$u.mps" 800 > "$T/g$u.csv"
	done
	run head -n 1 "$T/g0.4.csv"
	[[ "$output" == group,*,q_offered,q_accepted,q_short,q_short_ci95,q_batches ]]
	s=$(col "$T/g0.4.csv" q_short all)
	c=$(col "$T/g0.4.csv" q_short_ci95 all)
	awk -v s="$s" -v c="$c" 'BEGIN { exit !(s <= c) }'
	s=$(col "$T/g1.2.csv" q_short all)
	c=$(col "$T/g1.2.csv" q_short_ci95 all)
	a=$(col "$T/g1.2.csv" q_accepted all)
	awk -v s="$s" -v c="$c" -v a="$a" 'BEGIN { exit !(s > c && a < 0.9) }'
}
