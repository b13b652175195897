#!/usr/bin/env bats
# Import of a real Netrace trace (../shared/external/netrace, the example
# trace of the Netrace project; licence in traces/netrace/README, where a
# copy lives): header fields, the first packets as decoded by hand from
# the file's bytes, sizes and segmentation, scaling, stdin, and damaged
# input.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	# The shared original when the checkout sits beside it, else the
	# repository's copy (traces/netrace, with its licence).
	NT="$BATS_TEST_DIRNAME/../../shared/external/netrace/example.tra.bz2"
	[ -r "$NT" ] || NT="$BATS_TEST_DIRNAME/../traces/netrace/example.tra.bz2"
}

@test "header: benchmark, nodes, cycles and packets from the trace" {
	wlgen --preset torus --size 8 --netrace "$NT" --no-deps --drop-self -o "$T/m.mps"
	run mpcat -H "$T/m.mps"
	[[ "$output" == *"workload=netrace"* ]]
	[[ "$output" == *"netrace.benchmark=read-resp-delay-test"* ]]
	[[ "$output" == *"netrace.nodes=64"* ]]
	[[ "$output" == *"netrace.cycles=6820"* ]]
	[[ "$output" == *"netrace.packets=175"* ]]
}

@test "the first packets are the ones in the file's bytes" {
	# Decoded by hand from bzcat | xxd: packet 0 at cycle 0 is a
	# ReadResp (type 2, 72 bytes) from 34 to 6; packet 1 at cycle 18 a
	# ReadReq (8 bytes) from 17 to 39; packet 2 at cycle 20 an
	# UpgradeReq (8 bytes) from 17 to 34. Torus payload: 16 bytes.
	# sed reads to the end: head would close the pipe under mpcat
	run sh -c "wlgen --preset torus --size 8 --netrace '$NT' --no-deps --drop-self | mpcat -c | sed -n 1,4p"
	[ "${lines[0]}" = "class,group,route,src,dst,packets,id,time,bytes,prio" ]
	[ "${lines[1]}" = "0,0,0,34,6,5,0,0,72,0" ]
	[ "${lines[2]}" = "0,0,0,17,39,1,1,18,8,0" ]
	[ "${lines[3]}" = "0,0,0,17,34,1,2,20,8,0" ]
}

@test "all packets but the four to themselves become messages" {
	run sh -c "wlgen --preset torus --size 8 --netrace '$NT' --no-deps --drop-self | mpcat -n"
	[ "$output" = "msg 171" ]
	run wlgen --preset torus --size 8 --netrace "$NT" --no-deps -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $NT: packet 10: src and dst are both 17 (--drop-self skips such packets)" ]
}

@test "segmentation follows the preset's payload; time scaling" {
	run sh -c "wlgen --preset po2 --netrace '$NT' --no-deps --drop-self --time-scale 2 | mpcat -c | sed -n 2,3p"
	[ "${lines[0]}" = "0,0,0,34,6,1,0,0,72,0" ]
	[ "${lines[1]}" = "0,0,0,17,39,1,1,36,8,0" ]
}

@test "an uncompressed trace on stdin gives the same messages" {
	wlgen --preset torus --netrace "$NT" --no-deps --drop-self | mpcat -c > "$T/a.csv"
	bzcat "$NT" | wlgen --preset torus --netrace - --no-deps --drop-self | mpcat -c > "$T/b.csv"
	cmp "$T/a.csv" "$T/b.csv"
}

@test "the trace runs through the fabric and every message arrives" {
	run sh -c "wlgen --preset torus --size 8 --netrace '$NT' --no-deps --drop-self | netrun --preset torus --size 8 | lstat --csv | cut -d, -f1,2,3"
	[ "${lines[1]}" = "all,171,335" ]
}

@test "damaged traces: truncated, not compressed right, not Netrace" {
	head -c 800 "$NT" > "$T/cut.bz2"
	run wlgen --preset torus --netrace "$T/cut.bz2" --no-deps --drop-self -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/cut.bz2: bzip2 -dc failed: the file is corrupt or truncated" ]
	[ ! -e "$T/m.mps" ]
	bzcat "$NT" | head -c 1000 > "$T/cut.tra"
	run wlgen --preset torus --netrace "$T/cut.tra" --no-deps --drop-self -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/cut.tra: packet 32: truncated (20 of 21 bytes)" ]
	bzcat "$NT" | head -c 50 > "$T/hdr.tra"
	run wlgen --preset torus --netrace "$T/hdr.tra" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/hdr.tra: truncated Netrace header (50 of 72 bytes)" ]
	printf 'time,src,dst,packets\n' > "$T/x.tra"
	run wlgen --preset torus --netrace "$T/x.tra" -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/x.tra: not a Netrace trace (bad magic)" ]
	run wlgen --preset torus --netrace "$T/none.tra"
	[ "$status" -eq 1 ]
	[ "$output" = "wlgen: $T/none.tra: No such file or directory" ]
}

@test "node ids beyond the fabric are refused unless remapped" {
	run wlgen --preset torus --size 4 --netrace "$NT" --no-deps --drop-self -o "$T/m.mps"
	[ "$status" -eq 1 ]
	[[ "$output" == "wlgen: $NT: packet 1: src 34 out of range (16 nodes)" ]]
	run sh -c "wlgen --preset torus --size 4 --netrace '$NT' --no-deps --drop-self --remap-mod | mpcat -n"
	[ "$status" -eq 0 ]
}
