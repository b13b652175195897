#!/usr/bin/env bats
# Stream metadata across programs: the header keys netrun writes for its
# options, streams without packet records (netrun --no-packets) through
# lstat, and the provenance of replayed traces.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
}

@test "netrun records --pe-arb and --eject-priority in the header" {
	wlgen --preset po2 --load 0.2 -n 50 > "$T/w.mps"
	netrun "$T/w.mps" | mpcat -H > "$T/h0"
	grep -qx 'fabric.pe_arb=fair' "$T/h0"
	grep -qx 'fabric.eject_priority=off' "$T/h0"
	grep -qx 'pkt_records=1' "$T/h0"
	netrun --pe-arb eject --eject-priority on --buffer-limit-dest 4 "$T/w.mps" |
		mpcat -H > "$T/h1"
	grep -qx 'fabric.pe_arb=eject' "$T/h1"
	grep -qx 'fabric.eject_priority=on' "$T/h1"
}

@test "netrun --no-packets | lstat: message figures as with packets, packet ones absent" {
	wlgen --preset po2 --long 10 --load 0.3 -n 2000 > "$T/w.mps"
	netrun "$T/w.mps" > "$T/p.mps"
	netrun --no-packets "$T/w.mps" > "$T/n.mps"
	mpcat -H "$T/n.mps" | grep -qx 'pkt_records=0'
	run lstat --csv "$T/n.mps"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/n.csv"
	lstat --csv "$T/p.mps" > "$T/p.csv"
	# Message latency columns agree; packets are the run's; packet
	# latency and hops are empty.
	get() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == "all" { print $c[k] }' "$1"; }
	for k in messages msg_lat_mean msg_lat_ci95 norm_lat_mean msg_lat_p99 packets status; do
		[ "$(get "$T/n.csv" $k)" = "$(get "$T/p.csv" $k)" ]
	done
	[ "$(get "$T/n.csv" pkt_lat_mean)" = "" ]
	[ "$(get "$T/n.csv" hops_mean)" = "" ]
	run lstat -q "$T/n.mps"
	[[ "$output" == *"# saturation: run record: ok; second half of the input: not judged (no packet records)"* ]]
	[[ "$output" == *"0 packets read (the stream has no packet records: netrun --no-packets; no packet latency)"* ]]
}

@test "a stream that says it has no packet records but has some: exit 1" {
	wlgen --preset po2 --load 0.3 -n 200 | netrun > "$T/p.mps"
	mpcat -c -m -r pkt "$T/p.mps" | sed 's/^#pkt_records=1$/#pkt_records=0/' |
		mpcat -C -k deliveries -r pkt > "$T/x.mps"
	run lstat "$T/x.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: "*"packet records, but the header says the stream has none (pkt_records=0)" ]]
}

@test "a replayed trace's provenance has the FNV-1a hash of its contents" {
	printf 'time,src,dst,packets\n0,1,2,3\n10,2,1,1\n' > "$T/a.csv"
	# 02dccfab55d8a7b3: FNV-1a 64 of those 33 bytes, computed apart.
	run sh -c "wlgen --preset po2 --replay '$T/a.csv' | mpcat -H | grep '^replay'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "replay=$T/a.csv" ]
	[ "${lines[1]}" = "replay.fnv1a64=02dccfab55d8a7b3" ]
	# Same contents under another name: same hash; one byte changed: not.
	cp "$T/a.csv" "$T/b.csv"
	wlgen --preset po2 --replay "$T/b.csv" | mpcat -H | grep -qx 'replay.fnv1a64=02dccfab55d8a7b3'
	printf 'time,src,dst,packets\n0,1,2,3\n10,2,1,2\n' > "$T/c.csv"
	run sh -c "wlgen --preset po2 --replay '$T/c.csv' | mpcat -H | grep '^replay.fnv1a64='"
	[ "$status" -eq 0 ]
	[ "$output" != "replay.fnv1a64=02dccfab55d8a7b3" ]
	# From standard input there is nothing to hash before the header.
	run sh -c "wlgen --preset po2 --replay - < '$T/a.csv' | mpcat -H | grep -c '^replay.fnv1a64='"
	[ "$output" = 0 ]
}

@test "a replayed Netrace file is hashed as stored (compressed)" {
	f=$(ls "$BATS_TEST_DIRNAME"/../traces/netrace/*.tra.bz2 | head -1)
	[ -n "$f" ]
	run sh -c "wlgen --preset po2 --netrace '$f' --no-deps --drop-self --remap-mod -n 10 | mpcat -H | grep '^replay.fnv1a64='"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^replay.fnv1a64=[0-9a-f]{16}$ ]]
}

@test "mpcat -C numbers messages in row order when the CSV has no id column" {
	printf 'src,dst,packets,time\n0,1,1,0\n1,2,1,5\n2,3,1,9\n' > "$T/m.csv"
	run sh -c "mpcat -C -s nodes=91 '$T/m.csv' | mpcat -c | cut -d, -f7"
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "id 0 1 2" ]
	# An id column is taken as it is.
	printf 'src,dst,packets,time,id\n0,1,1,0,7\n1,2,1,5,7\n' > "$T/i.csv"
	run sh -c "mpcat -C -s nodes=91 '$T/i.csv' | mpcat -c | cut -d, -f7"
	[ "$(echo $output)" = "id 7 7" ]
}

@test "lstat --by length refuses packets of two messages in flight under one id" {
	# Two 3-packet messages with id 7, from nodes 0 and 1 to node 2 at
	# the same time: their packets interleave in the stream.
	printf 'src,dst,packets,time,id\n0,2,3,0,7\n1,2,3,0,7\n' > "$T/i.csv"
	mpcat -C -s nodes=91 "$T/i.csv" | netrun --preset po2 > "$T/d.mps"
	run lstat --by length "$T/d.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "lstat: "*": message 7 has 3 packets but "*" arrived under its id: message ids are not unique" ]]
	# Numbered apart, the same messages are fine.
	printf 'src,dst,packets,time\n0,2,3,0\n1,2,3,0\n' > "$T/n.csv"
	mpcat -C -s nodes=91 "$T/n.csv" | netrun --preset po2 > "$T/e.mps"
	run lstat --by length "$T/e.mps"
	[ "$status" -eq 0 ]
}
