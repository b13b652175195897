#!/usr/bin/env bats
# Closed-loop replay (dependencies): the real Netrace example trace
# (../shared/external/netrace, or the repository's copy in traces/netrace
# with its licence) replayed with its dependencies: every packet
# delivered, each message injected only after what it waits for was
# delivered (checked from the records alone), makespan against the
# trace's length, a slower network, --no-deps as the open loop, and
# hostile traces and streams.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	NT="$BATS_TEST_DIRNAME/../../shared/external/netrace/example.tra.bz2"
	[ -r "$NT" ] || NT="$BATS_TEST_DIRNAME/../traces/netrace/example.tra.bz2"
	[ -r "$NT" ] || skip "the Netrace example trace is absent"
	command -v bzip2 >/dev/null 2>&1 || skip "bzip2 is not installed"
}

# Little-endian bytes of $1, $2 bytes long.
le() {
	local v=$1 i
	for ((i = 0; i < $2; i++)); do
		printf "\\x$(printf %02x $((v & 255)))"
		v=$((v >> 8))
	done
}

# A Netrace header: 64 nodes, $1 cycles, $2 packets, no notes or regions.
nthdr() {
	printf 'UTJH'; le 1065353216 4
	printf 'hostile'; le 0 23
	le 64 1; le 0 1; le "$1" 8; le "$2" 8; le 0 4; le 0 4; le 0 8
}

# A Netrace packet: cycle id src dst, then the ids of its dependants.
ntpkt() {
	local cyc=$1 id=$2 src=$3 dst=$4
	shift 4
	le "$cyc" 8; le "$id" 4; le 0 4; le 1 1; le "$src" 1; le "$dst" 1
	le 0 1; le $# 1
	for d in "$@"; do le "$d" 4; done
}

@test "dependencies in the stream: format 1.2, deps=1, trace ids, Netrace header" {
	wlgen --preset torus --size 8 --netrace "$NT" -o "$T/m.mps"
	run mpcat -H "$T/m.mps"
	[[ "$output" == *"version: 1.2"* ]]
	[[ "$output" == *"deps=1"* ]]
	[[ "$output" == *"netrace.regions=1"* ]]
	[[ "$output" == *"netrace.packets=175"* ]]
	run mpcat -n "$T/m.mps"
	# All 175 packets (the four to their own node too); 136 dependencies
	# in the trace, named by 165 dep records (the waiters and the
	# waited-for).
	[ "$output" = "msg 175
dep 165" ]
	# Packet 5 of the trace waits for packet 1 (packet 1 lists 5 as its
	# dependant): in the stream, message 5 names 1.
	run sh -c "mpcat -c -r dep '$T/m.mps' | awk -F, '\$3 == 5'"
	[ "$output" = "1,0,5,1,0,0,0" ]
	run sh -c "mpcat -c -r dep '$T/m.mps' | awk -F, '{ n += \$1 } END { print n }'"
	[ "$output" = 136 ]
}

# From the records alone: t_first (injection start, or the local
# delivery) of a message is at or after t_done of everything it names,
# and t_arrive at or after its own trace time. Prints the deliveries,
# the dependencies checked and the violations.
dep_order() {
	mpcat -c -r dep "$1" > "$T/dep.csv"
	mpcat -c -r msg "$1" > "$T/msg.csv"
	mpcat -c -r dlv "$2" > "$T/dlv.csv"
	awk -F, '
		FILENAME ~ /dlv/ && FNR > 1 { first[$6] = $8; done[$6] = $9; arr[$6] = $7; n++; next }
		FILENAME ~ /msg/ && FNR > 1 { tt[$7] = $8; next }
		FILENAME ~ /dep/ && FNR > 1 {
			for (k = 0; k < $1; k++) {
				a = $(4 + k); checked++
				if (!(a in done) || first[$3] < done[a]) bad++
			}
		}
		END {
			for (i in tt) if (!(i in arr) || arr[i] < tt[i]) bad++
			print n, checked, bad + 0
		}' "$T/dlv.csv" "$T/msg.csv" "$T/dep.csv"
}

@test "every packet delivered; each message injected after its dependencies' deliveries" {
	wlgen --preset torus --size 8 --netrace "$NT" -o "$T/m.mps"
	netrun --preset torus --size 8 "$T/m.mps" -o "$T/d.mps"
	run mpcat -n "$T/d.mps"
	[[ "$output" == *"dlv 175"* ]]
	[[ "$output" == *"rel 175"* ]]
	run dep_order "$T/m.mps" "$T/d.mps"
	[ "$output" = "175 136 0" ]
	# Messages to their own node: delivered locally, no network time.
	run sh -c "awk -F, 'NR > 1 && \$3 == \$4 { print \$8 == \$9 && \$7 == \$8 && \$11 == 0 }' '$T/dlv.csv' | sort | uniq -c | tr -s ' '"
	[ "$output" = " 4 1" ]
	run sh -c "lstat --csv '$T/d.mps' | cut -d, -f2,30,38-41"
	[ "${lines[1]%%,*}" = 175 ]
	IFS=, read -r msgs st makespan trace_end dw dwp <<<"${lines[1]}"
	[ "$st" = ok ]
	[ "$trace_end" = 6820 ]
	[ "$makespan" -ge "$trace_end" ]
}

@test "the cycle-level models replay closed loop too: flit on the mesh, ncube on a 64-input butterfly" {
	wlgen --preset cmp --netrace "$NT" -o "$T/m.mps"
	netrun --preset cmp --model flit --self-check "$T/m.mps" -o "$T/f.mps"
	run dep_order "$T/m.mps" "$T/f.mps"
	[ "$output" = "175 136 0" ]
	netrun --preset ncube --stages 6 "$T/m.mps" -o "$T/n.mps"
	run dep_order "$T/m.mps" "$T/n.mps"
	[ "$output" = "175 136 0" ]
}

@test "a slower network: longer makespan with dependencies, same messages" {
	wlgen --preset torus --size 8 --netrace "$NT" -o "$T/m.mps"
	a=$(netrun --preset torus --size 8 "$T/m.mps" | lstat --csv | tail -1 | cut -d, -f2,38,40)
	b=$(netrun --preset torus --size 8 --packet-time 32 "$T/m.mps" | lstat --csv | tail -1 | cut -d, -f2,38,40)
	IFS=, read -r na ma wa <<<"$a"
	IFS=, read -r nb mb wb <<<"$b"
	[ "$na" = 175 ] && [ "$nb" = 175 ]
	[ "$mb" -gt "$ma" ]
	# The application waits longer for its dependencies.
	[ "$(echo "$wb > $wa" | bc)" = 1 ]
	# Open loop: the floor stays the trace's length at either speed.
	wlgen --preset torus --size 8 --netrace "$NT" --no-deps --drop-self -o "$T/o.mps"
	for pt in 16 32; do
		run sh -c "netrun --preset torus --size 8 --packet-time $pt '$T/o.mps' | lstat --csv | tail -1 | cut -d, -f2,38,39,40"
		IFS=, read -r n m te dw <<<"$output"
		[ "$n" = 171 ] && [ "$te" = 6820 ] && [ "$m" -ge "$te" ] && [ -z "$dw" ]
	done
}

@test "--dep-release gap keeps the recorded compute time" {
	wlgen --preset torus --size 8 --netrace "$NT" -o "$T/m.mps"
	netrun --preset torus --size 8 --packet-time 32 "$T/m.mps" | lstat --csv | tail -1 | cut -d, -f38 > "$T/max"
	netrun --preset torus --size 8 --packet-time 32 --dep-release gap "$T/m.mps" -o "$T/g.mps"
	run mpcat -H "$T/g.mps"
	[[ "$output" == *"dep_release=gap"* ]]
	g=$(lstat --csv "$T/g.mps" | tail -1 | cut -d, -f2,38)
	[ "${g%%,*}" = 175 ]
	# Gap releases are never earlier than max releases' floor.
	[ "${g#*,}" -ge "$(cat "$T/max")" ]
	run netrun --dep-release soon "$T/m.mps"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "netrun: --dep-release: 'soon' is not max or gap; try 'netrun -h'" ]
}

@test "--no-deps is the open loop: format 1.1, no dep records, ids in order" {
	wlgen --preset torus --size 8 --netrace "$NT" --no-deps --drop-self -o "$T/o.mps"
	run mpcat -H "$T/o.mps"
	[[ "$output" == *"version: 1.1"* ]]
	[[ "$output" != *"deps="* ]]
	[[ "$output" != *"layout.8"* ]]
	run mpcat -n "$T/o.mps"
	[ "$output" = "msg 171" ]
	# The same messages as with dependencies but those to their own
	# node, renumbered 0, 1, 2 ...
	wlgen --preset torus --size 8 --netrace "$NT" -o "$T/m.mps"
	mpcat -c "$T/m.mps" | awk -F, 'NR > 1 && $4 != $5 { print $4, $5, $6, $8, $9 }' > "$T/a"
	mpcat -c "$T/o.mps" | awk -F, 'NR > 1 { print $4, $5, $6, $8, $9; if ($7 != NR - 2) bad = 1 } END { exit bad }' > "$T/b"
	cmp "$T/a" "$T/b"
	run wlgen --preset torus --size 8 --netrace "$NT" --drop-self
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --drop-self: only with --no-deps"* ]]
}

@test "--region selects a region of the trace" {
	run sh -c "wlgen --preset torus --size 8 --netrace '$NT' --region 0 | mpcat -n"
	[ "$output" = "msg 175
dep 165" ]
	run wlgen --preset torus --size 8 --netrace "$NT" --region 1
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: --region: $NT has 1 region (0 .. 0)" ]
}

@test "every prefix of the trace: exit 1, a located message, no output file" {
	bzcat "$NT" > "$T/x.tra"
	size=$(wc -c < "$T/x.tra")
	bad=0
	for ((n = 0; n < size; n++)); do
		head -c $n "$T/x.tra" > "$T/p.tra"
		if wlgen --preset torus --size 8 --netrace "$T/p.tra" -o "$T/p.mps" 2> "$T/err"; then
			bad=$((bad + 1))
		fi
		[ ! -e "$T/p.mps" ] || bad=$((bad + 1))
		read -r line < "$T/err" || true
		[[ "$line" =~ ^wlgen:\ $T/p.tra:\ (packet\ [0-9]+:\ |truncated\ Netrace\ header|not\ a\ Netrace\ trace) ]] ||
			bad=$((bad + 1))
	done
	[ "$bad" -eq 0 ]
	# Cut at a packet boundary (header 72 bytes, notes 21, a region 24,
	# the first packet 21): the header's count tells.
	head -c 138 "$T/x.tra" > "$T/b.tra"
	run wlgen --preset torus --size 8 --netrace "$T/b.tra" -o "$T/p.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/b.tra: packet 1: the trace ends after 1 of its 175 packets (truncated?)" ]
	[ ! -e "$T/p.mps" ]
}

@test "hostile traces: a cycle, ids out of order, a node beyond the mesh" {
	{ nthdr 10 2; ntpkt 0 0 1 2 1; ntpkt 5 1 2 1 0; } > "$T/cyc.tra"
	run wlgen --preset torus --size 8 --netrace "$T/cyc.tra" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/cyc.tra: packet 2: packet id 1 has packet id 0, not a later one, waiting for it (a cycle)" ]
	[ ! -e "$T/m.mps" ]
	{ nthdr 10 2; ntpkt 0 4 1 2; ntpkt 5 3 2 1; } > "$T/ord.tra"
	run wlgen --preset torus --size 8 --netrace "$T/ord.tra" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/ord.tra: packet 2: packet id 3 after id 4 (ids must increase)" ]
	{ nthdr 10 2; ntpkt 0 0 1 2 1; ntpkt 5 1 2 70; } > "$T/far.tra"
	run wlgen --preset torus --size 8 --netrace "$T/far.tra" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/far.tra: packet 2: dst 70 out of range (64 nodes)" ]
	[ ! -e "$T/m.mps" ]
	# A small well-formed one runs: 1 waits for 0, 2 for 0 and 1.
	{ nthdr 10 3; ntpkt 0 0 1 2 1 2; ntpkt 1 1 2 3 2; ntpkt 2 2 3 3; } > "$T/ok.tra"
	wlgen --preset torus --size 8 --netrace "$T/ok.tra" | netrun --preset torus --size 8 -o "$T/d.mps"
	run sh -c "mpcat -c -r rel '$T/d.mps' | cut -d, -f1-3"
	[ "$output" = "ndeps,msg,t_trace
0,0,0
1,1,1
2,2,2" ]
}

# Raw deps stream of ok.tra, to damage: header, then msg 0 (40 bytes),
# its dep (48), msg 1, dep, msg 2, dep, trailer (64).
rawstream() {
	{ nthdr 10 3; ntpkt 0 0 1 2 1 2; ntpkt 1 1 2 3 2; ntpkt 2 2 3 4; } > "$T/ok.tra"
	wlgen --raw --preset torus --size 8 --netrace "$T/ok.tra" -o "$T/raw.mps"
	size=$(wc -c < "$T/raw.mps")
	H=$((size - 3 * 88 - 64))
}

# Overwrite 8 bytes at offset $1 of the raw stream with $2.
poke() {
	le "$2" 8 | dd of="$T/raw.mps" bs=1 seek="$1" conv=notrunc status=none
}

@test "hostile streams: unknown id, forward reference, dep without message: exit 1, located, no output" {
	rawstream
	# Message 1's dependency (after0 of the dep record after msg 1).
	off=$((H + 88 + 40 + 16))
	poke $off 9
	run netrun --preset torus --size 8 "$T/raw.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "netrun: $T/raw.mps: record 4: message 1 waits for 9, which is not an earlier message expecting it (a forward reference or a cycle)" ]
	[ ! -s "$T/d.mps" ] || ! mpcat -n "$T/d.mps" >/dev/null 2>&1
	# A forward reference: 1 waits for 2 (which may wait for 1).
	poke $off 2
	run netrun --preset torus --size 8 "$T/raw.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "netrun: $T/raw.mps: record 4: message 1 waits for 2, which is not an earlier message expecting it (a forward reference or a cycle)" ]
	# Itself.
	poke $off 1
	run netrun --preset torus --size 8 "$T/raw.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == *"record 4: message 1 waits for 1, which is not"* ]]
	# A dep record that belongs to another message.
	poke $off 0
	poke $((H + 88 + 40 + 8)) 2
	run netrun --preset torus --size 8 "$T/raw.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "netrun: $T/raw.mps: record 4: dep record of message 2 does not follow that message" ]
}

@test "dep records only in deps streams; a 1.1 reader path refuses them elsewhere" {
	rawstream
	# Without deps=1 the header declares no dep layout: tag 8 is unknown.
	wlgen --raw --preset torus --size 8 --netrace "$T/ok.tra" --no-deps -o "$T/o.mps"
	dd if="$T/raw.mps" of="$T/dep.bin" bs=1 skip=$((H + 40)) count=48 status=none
	osize=$(wc -c < "$T/o.mps")
	{ head -c $((osize - 64)) "$T/o.mps"; cat "$T/dep.bin"; tail -c 64 "$T/o.mps"; } > "$T/x.mps"
	run mpcat -n "$T/x.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown record tag 8"* ]]
}

@test "mesh:RxC and preset cmp: minimal dimension-order routes, no wrap-around" {
	run netrun --preset cmp --show-config
	[ "${lines[1]}" = "--model packet" ]
	[ "${lines[3]}" = "--topo mesh:8x8" ]
	wlgen --preset cmp --netrace "$NT" | netrun --preset cmp -o "$T/d.mps"
	# Every packet crosses exactly |dr| + |dc| links (8 columns): no
	# route takes a link across the edge.
	run sh -c "mpcat -c -r pkt '$T/d.mps' | awk -F, 'NR > 1 {
		dr = int(\$4 / 8) - int(\$5 / 8); dc = \$4 % 8 - \$5 % 8
		if (dr < 0) dr = -dr; if (dc < 0) dc = -dc
		n++; if (\$10 != dr + dc) bad++ } END { print n, bad + 0 }'"
	[ "$output" = "335 0" ]
	# A mesh of 2 rows is allowed (a torus needs 3); distance and
	# neighbour destinations and derouting are not.
	run netrun --preset cmp --topo mesh:2x7 --show-config
	[ "$status" -eq 0 ]
	run wlgen --preset cmp --dest distance:3 --load 0.1 -n 1
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "wlgen: --dest: distance needs a topology whose nodes all see the same neighbourhood, not mesh:8x8; try 'wlgen -h'" ]]
	run netrun --preset cmp --route derouting --show-config
	[ "$status" -eq 2 ]
	# With dependencies the mesh at half speed takes longer.
	a=$(lstat --csv "$T/d.mps" | tail -1 | cut -d, -f38)
	b=$(wlgen --preset cmp --netrace "$NT" | netrun --preset cmp --packet-time 2 | lstat --csv | tail -1 | cut -d, -f38)
	[ "$b" -gt "$a" ]
}

@test "CSV replay with id and after columns: traces/deps.csv closed loop" {
	D="$BATS_TEST_DIRNAME/../traces/deps.csv"
	wlgen --preset cmp --replay "$D" -o "$T/m.mps"
	run mpcat -H "$T/m.mps"
	[[ "$output" == *"deps=1"* ]]
	# Row 8 waits for 4;5;6;7, each of which one later row names.
	run sh -c "mpcat -c -r dep '$T/m.mps' | sed -n '1p;6p;10p'"
	[ "$output" = "n,users,msg,after0,after1,after2,after3
1,1,4,0,0,0,0
4,1,8,4,5,6,7" ]
	# At a quarter of the speed the final exchange is held back; each
	# release is at its trace time or after the deliveries it waits for.
	netrun --preset cmp --packet-time 4 "$T/m.mps" -o "$T/d.mps"
	run sh -c "mpcat -c -r rel '$T/d.mps' | awk -F, 'NR > 1 && \$4 > \$3' | wc -l"
	[ "$output" -ge 2 ]
	run sh -c "lstat --csv '$T/d.mps' | tail -1 | cut -d, -f2,39"
	[ "$output" = "11,110" ]
	# --no-deps: the columns are ignored, row 9 (to itself) refused.
	run wlgen --preset cmp --replay "$D" --no-deps -o "$T/o.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $D: line 11: src and dst are both 63 (--drop-self skips such rows)" ]
}

@test "CSV after column: forward reference, repeated id, bad list, standard input" {
	printf 'id,time,src,dst,packets,after\n1,0,0,1,1,2\n2,5,1,0,1,\n' > "$T/f.csv"
	run wlgen --preset cmp --replay "$T/f.csv" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/f.csv: line 2: after: 2 is not the id of an earlier row (a forward reference or a cycle)" ]
	[ ! -e "$T/m.mps" ]
	printf 'id,time,src,dst,packets,after\n1,0,0,1,1,\n1,5,1,0,1,1\n' > "$T/r.csv"
	run wlgen --preset cmp --replay "$T/r.csv"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/r.csv: line 3: id 1 repeats" ]
	printf 'time,src,dst,packets,after\n0,0,1,1,\n5,1,0,1,0;x\n' > "$T/b.csv"
	run wlgen --preset cmp --replay "$T/b.csv"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/b.csv: line 3: after: 'x' is not a list of ids separated by ';'" ]
	run sh -c "wlgen --preset cmp --replay - < '$T/f.csv'"
	[ "$status" -eq 1 ]
	[[ "$output" == *"an 'after' column needs a file, read twice, not standard input" ]]
	# Without an id column the ids are the row numbers from 0.
	printf 'time,src,dst,packets,after\n0,0,1,1,\n5,1,0,1,0\n' > "$T/n.csv"
	run sh -c "wlgen --preset cmp --replay '$T/n.csv' | mpcat -c -r dep | tail -1"
	[ "$output" = "1,0,1,0,0,0,0" ]
}

@test "concatenated streams must agree on dependencies" {
	wlgen --preset cmp --netrace "$NT" -o "$T/m.mps"
	wlgen --preset cmp --netrace "$NT" --no-deps --drop-self -o "$T/o.mps"
	cat "$T/o.mps" "$T/m.mps" > "$T/om.mps"
	run mpcat -n "$T/om.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "mpcat: $T/om.mps: concatenated stream 2 has dependencies, the first has none" ]
	cat "$T/m.mps" "$T/o.mps" > "$T/mo.mps"
	run netrun --preset cmp "$T/mo.mps" -o "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == *"concatenated stream 2 has no dependencies, the first has" ]]
}
