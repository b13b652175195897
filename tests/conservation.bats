#!/usr/bin/env bats
# Conservation and determinism. netrun's end-of-run accounting (-v) must
# add up on every preset, for complete runs and for runs stopped early by
# saturation or deadlock, and agree with the run record, the records in
# the stream and lstat's count line; lstat must refuse a stream that was
# cut short or whose counts disagree. The demo pipeline must give the same
# bytes twice, and the PO2 quick sweep the same CSV with make -j1 and -j2.

bats_require_minimum_version 1.5.0

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	TOP="$BATS_TEST_DIRNAME/.."
	cd "$BATS_TEST_TMPDIR" || return 1
}

# Packets of the first N messages (all when N is empty) of stream $1.
offered() {
	mpcat -c "$1" | awk -F, -v n="${2:-0}" \
		'NR > 1 && (n == 0 || NR - 1 <= n) { s += $6 } END { print s + 0 }'
}

# check_accounting ERRFILE DLVSTREAM INPUT: netrun's -v line in ERRFILE
# adds up, and agrees with the run record and the records of DLVSTREAM
# and with the packets of the messages it read from INPUT. Sets A (read),
# B (delivered), C (unfinished), D (accepted), E (delivered), F (in
# flight), G (queued).
check_accounting() {
	local re='accounting at t=([0-9]+): messages read ([0-9]+) = delivered ([0-9]+) \+ unfinished ([0-9]+); packets accepted ([0-9]+) = delivered ([0-9]+) \+ in flight ([0-9]+); ([0-9]+) packets never accepted'
	local line
	line=$(grep '^netrun: accounting at ' "$1")
	[[ "$line" =~ $re ]] || { echo "no accounting line in: $(cat "$1")"; return 1; }
	T_END=${BASH_REMATCH[1]} A=${BASH_REMATCH[2]} B=${BASH_REMATCH[3]}
	C=${BASH_REMATCH[4]} D=${BASH_REMATCH[5]} E=${BASH_REMATCH[6]}
	F=${BASH_REMATCH[7]} G=${BASH_REMATCH[8]}
	echo "accounting: t=$T_END read $A = $B + $C; accepted $D = $E + $F; queued $G"
	# The sums as printed.
	[ "$A" -eq $((B + C)) ] || { echo "messages do not add up"; return 1; }
	[ "$D" -eq $((E + F)) ] || { echo "packets do not add up"; return 1; }
	# Every packet of every message read was accepted (then delivered
	# or still in flight) or is still held at its source.
	local off
	off=$(offered "$3" "$A")
	[ "$off" -eq $((E + F + G)) ] ||
		{ echo "offered $off != delivered $E + in flight $F + queued $G"; return 1; }
	# The run record says the same.
	local run
	run=$(mpcat -c -r run "$2" | tail -1)
	local want
	want="$(mpcat -c -r run "$2" | head -1 | tr , ' ')"
	[ "$want" = "status nodes t_end msgs_in msgs_done pkts_injected pkts_delivered pkts_in_flight pkts_queued" ] ||
		{ echo "run record columns changed: $want"; return 1; }
	IFS=, read -r _ _ r_end r_in r_done r_inj r_dlv r_fl r_q <<<"$run"
	[ "$r_end $r_in $r_done $r_inj $r_dlv $r_fl $r_q" = "$T_END $A $B $D $E $F $G" ] ||
		{ echo "run record $run differs"; return 1; }
	# The stream holds a record per delivered message and packet.
	local counts
	counts=$(mpcat -n "$2" | tr '\n' ' ')
	[[ "$counts" == *"pkt $E "* && "$counts" == *"dlv $B "* && "$counts" == *"run 1 "* ]] ||
		{ echo "records: $counts"; return 1; }
	# lstat checks them and says so.
	local l
	l=$(lstat "$2" | grep '^# counts: ')
	[ "$l" = "# counts: $B messages and $E packets read; as the run record says ($A messages in, $D packets injected, $F in flight, $G queued)" ] ||
		{ echo "lstat: $l"; return 1; }
}

@test "every preset: a complete run delivers everything and the accounting adds up" {
	for p in po2 fedx torus; do
		run netrun --show-config --preset $p
		[ "$status" -eq 0 ]
		wlgen --preset $p --long 10 --load 0.3 -n 2000 --seed 3 -o w.mps
		run --separate-stderr netrun --preset $p -v -o d.mps w.mps
		[ "$status" -eq 0 ] || { echo "$p: $stderr"; return 1; }
		echo "$stderr" > err
		check_accounting err d.mps w.mps
		[ "$A" -eq 2000 ] && [ "$C" -eq 0 ] && [ "$F" -eq 0 ] && [ "$G" -eq 0 ] ||
			{ echo "$p: not everything delivered"; return 1; }
		run mpcat -c -r run d.mps
		[[ "${lines[1]}" == 0,* ]] || { echo "$p: status ${lines[1]}"; return 1; }
	done
}

@test "every preset, every routing: accounting with sched's alpha policy and bursts" {
	for p in po2 fedx torus; do
		for r in deterministic best derouting; do
			[ $p = torus ] && [ $r = derouting ] && continue
			wlgen --preset $p --long 20 --load 0.7 -n 1500 --seed 5 |
				sched --alpha 8 > w.mps
			st=0
			netrun --preset $p --route $r -k -v -o d.mps w.mps 2> err || st=$?
			[ $st -eq 0 ] || { echo "$p $r: $(cat err)"; return 1; }
			check_accounting err d.mps w.mps
			[ "$C" -eq 0 ] && [ "$F" -eq 0 ] && [ "$G" -eq 0 ]
		done
	done
}

@test "saturated and stopped early: the accounting still adds up" {
	# Far beyond saturation, without -k: netrun stops as soon as the
	# source queues pass the backlog limit, with messages unfinished,
	# packets in flight and packets never accepted.
	for p in po2 fedx torus; do
		wlgen --preset $p --long 10 --load 3 -n 20000 --seed 2 -o w$p.mps
		st=0
		netrun --preset $p --max-backlog 50 -v -o d.mps w$p.mps 2> err || st=$?
		[ $st -eq 1 ] || { echo "$p: status $st: $(cat err)"; return 1; }
		grep -q '^netrun: saturated at time ' err
		check_accounting err d.mps w$p.mps
		[ "$A" -lt 20000 ] && [ "$C" -gt 0 ] && [ "$G" -gt 0 ] ||
			{ echo "$p: expected an early stop with work left"; return 1; }
		run mpcat -c -r run d.mps
		[[ "${lines[1]}" == 1,* ]]
		run lstat d.mps
		[[ "$output" == *"# status: SATURATED"* ]]
	done
	# With -k the same input runs to its end and everything arrives.
	netrun --preset po2 -k -v -o k.mps wpo2.mps 2> err
	check_accounting err k.mps wpo2.mps
	[ "$A" -eq 20000 ] && [ "$C" -eq 0 ] && [ "$F" -eq 0 ] && [ "$G" -eq 0 ]
}

@test "deadlocked and stopped: the accounting names what is stuck" {
	wlgen --preset torus --size 4 --uniform --load 0.9 -n 20000 --seed 1 -o w.mps
	st=0
	netrun --preset torus --size 4 --buffers 1 --deadlock none \
		--deadlock-time 2000 -v -o d.mps w.mps 2> err || st=$?
	[ $st -eq 1 ]
	grep -q '^netrun: deadlock at time ' err
	check_accounting err d.mps w.mps
	[ "$F" -gt 0 ]
	run mpcat -c -r run d.mps
	[[ "${lines[1]}" == 2,* ]]
}

@test "lstat: a stream cut short or with counts that disagree is refused" {
	wlgen --preset po2 --load 0.5 -n 300 --seed 1 | netrun --preset po2 --raw -o d.raw
	size=$(wc -c < d.raw)
	# Without its trailer.
	head -c $((size - 64)) d.raw > cut.mps
	n=$(mpcat -n d.raw | awk '{ s += $2 } END { print s }')
	run --separate-stderr lstat cut.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "lstat: cut.mps: record $((n + 1)): stream cut short: no trailer after $n records" ]
	# Cut inside a record, raw and compressed. (Of two cuts a byte
	# apart, at most one is between records, where the trailer is
	# missed instead.)
	inside=0
	for k in 0 1; do
		head -c $((size / 2 + k)) d.raw > half.mps
		run --separate-stderr lstat half.mps
		[ "$status" -eq 1 ]
		if [[ "$stderr" =~ ^lstat:\ half.mps:\ record\ [0-9]+:\ truncated\ [a-z]+\ record ]]; then
			inside=$((inside + 1))
		else
			[[ "$stderr" =~ ^lstat:\ half.mps:\ record\ [0-9]+:\ stream\ cut\ short ]]
		fi
	done
	[ "$inside" -ge 1 ]
	# (Compressed, past the first block of 128 KiB of packed records:
	# before it, the header itself cannot be decompressed.)
	wlgen --preset po2 --load 0.5 -n 6000 --seed 1 | netrun --preset po2 -o d.zst
	head -c $(($(wc -c < d.zst) / 2)) d.zst > zhalf.mps
	run --separate-stderr lstat zhalf.mps
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^lstat:\ zhalf.mps:\ record\ [0-9]+:\ compressed\ input\ is\ truncated$ ]]
	# A trailer that disagrees with the records before it.
	perl -e 'local $/; $s = <STDIN>;
		substr($s, -64 + 8 + 8 * 3, 8) = pack("Q<", 1); print $s' < d.raw > t.mps
	run --separate-stderr lstat t.mps
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^lstat:\ t.mps:\ record\ [0-9]+:\ trailer\ says\ 1\ dlv\ records,\ read\ 300$ ]]
	# Complete streams whose run record disagrees: a delivery lost on
	# the way (a CSV round trip without one message).
	mpcat -c -m -r dlv d.raw | awk -F, '$6 != 17' > dlv.csv
	mpcat -C -k deliveries -r dlv dlv.csv > dlv.mps
	mpcat -c -m -r pkt d.raw | grep -v '^#' > pkt.csv
	mpcat -C -k deliveries -r pkt -s nodes=91 pkt.csv > pkt.mps
	mpcat -c -r run d.raw > run.csv
	mpcat -C -k deliveries -r run -s nodes=91 run.csv > run.mps
	cat pkt.mps dlv.mps run.mps > lost.mps
	run --separate-stderr lstat lost.mps
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^lstat:\ lost.mps:\ counts\ not\ conserved:\ the\ run\ record\ says\ 300\ messages\ and\ [0-9]+\ packets\ delivered,\ the\ stream\ has\ 299\ message\ and\ [0-9]+\ packet\ records$ ]]
}

# The pipeline of pipelines/demo.sh, with its fixed seeds, in directory
# $1 (file names relative, so the provenance in the headers is the same).
demo_pipeline() {
	mkdir -p "$1"
	(
		cd "$1" || exit 1
		wlgen --preset po2 --long 10 --load 0.5 -n 20000 --seed 1 -o w.mps
		for r in deterministic best derouting; do
			sched --alpha 0 w.mps | netrun --preset po2 --route $r -k \
				-o $r.mps
			lstat --csv --warmup 2000 $r.mps > $r.csv
		done
		lstat --by length --warmup 2000 derouting.mps > length.txt
	)
}

@test "determinism: the demo pipeline twice gives the same bytes" {
	# make demo's output, twice; its provenance lines name the
	# temporary files it used, which differ.
	sh "$TOP/pipelines/demo.sh" > demo1.txt
	sh "$TOP/pipelines/demo.sh" > demo2.txt
	grep -q '^derouting ' demo1.txt
	grep -q '^# prov: netrun ' demo1.txt
	cmp <(grep -v '^# prov: ' demo1.txt) <(grep -v '^# prov: ' demo2.txt)
	# Its pipeline kept in files: every intermediate stream too, and
	# the same records raw.
	demo_pipeline a
	demo_pipeline b
	for f in w.mps deterministic.mps best.mps derouting.mps \
		deterministic.csv best.csv derouting.csv length.txt; do
		cmp a/$f b/$f
	done
	(cd a && mpcat --raw derouting.mps > ../a.raw)
	(cd b && mpcat --raw derouting.mps > ../b.raw)
	cmp a.raw b.raw
}

@test "determinism: the PO2 quick sweep gives the same CSV with make -j1 and -j2" {
	if [ ! -f "$TOP/pipelines/po2/Makefile" ]; then
		skip "pipelines/po2/Makefile does not exist yet"
	fi
	# Each run into its own output directory, so the tree's own
	# pipelines/po2/out-quick is left alone.
	run make -s -C "$TOP/pipelines/po2" -j1 po2-quick OUT="$PWD/j1"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	run make -s -C "$TOP/pipelines/po2" -j2 po2-quick OUT="$PWD/j2"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -s j1/results.csv ]
	[ "$(wc -l < j1/results.csv)" -gt 1 ]
	cmp j1/results.csv j2/results.csv
}
