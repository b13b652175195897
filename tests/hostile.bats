#!/usr/bin/env bats
# Hostile input for every program: truncated and corrupted streams,
# concatenations, the wrong kind or a newer version, records out of
# order or out of range, impossible option values, missing and unreadable
# files, a full disk and a closed pipe at the writer. Each case asserts
# the exit status (1 bad data, 2 bad usage) and one line on stderr in the
# form "prog: where: what", where names the input and the record.
# Samples (setup_file): six messages on E2 (7 nodes), raw and compressed,
# their injections and deliveries; six messages on E6; and the deliveries
# of lstat's fixture (tests/data/dlv_small.csv). The .pk samples are
# compressed ones taken out of zstd: raw bytes of packed records. Loops of thousands of
# runs go through plain(), outside bats' tracing.

bats_require_minimum_version 1.5.0

setup_file() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	cd "$BATS_FILE_TMPDIR" || return 1
	wlgen --size 2 --load 0.3 -n 6 --seed 11 --raw -o m.raw
	wlgen --size 2 --load 0.3 -n 6 --seed 11 -o m.zst
	sched --alpha 8 -o i.raw --raw m.raw
	netrun --size 2 -q -o d.raw --raw m.raw
	# A small deliveries stream for the every-byte test: the six
	# message records of lstat's fixture.
	mpcat -C -k deliveries -r dlv --raw -s nodes=7 -o ds.raw \
		"$BATS_TEST_DIRNAME/data/dlv_small.csv"
	mpcat -o ds.zst ds.raw
	zstd -qdc m.zst > m.pk
	zstd -qdc ds.zst > ds.pk
	# Six messages on E6 (91 nodes).
	wlgen --load 0.3 -n 6 --seed 11 --raw -o m91.raw
}

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	S="$BATS_FILE_TMPDIR"
	export S
	cd "$BATS_TEST_TMPDIR" || return 1
}

# Run a script in a plain bash with the helpers below: bats traces every
# command of a test, which makes loops of thousands of runs slow.
plain() {
	bash -c "$(declare -f hdr_len check_bad); set -u; $1"
}

# Length of the header (fixed part and metadata) of a raw stream.
hdr_len() {
	perl -e 'read STDIN, $b, 16; print 24 + unpack("V", substr($b, 12, 4))' < "$1"
}

# setfield TAG N OFF FMT VALUE < raw > raw: set a field (perl pack format
# FMT at byte OFF) of the N-th record with tag TAG of a raw stream.
setfield() {
	perl -e '
		my ($tag, $n, $off, $fmt, $val) = @ARGV;
		my %size = (1, 40, 2, 40, 3, 48, 4, 56, 5, 56, 6, 64, 7, 64);
		local $/; my $s = <STDIN>;
		my $p = 24 + unpack("V", substr($s, 12, 4));
		while ($p < length $s) {
			my $t = ord(substr($s, $p, 1));
			if ($t == $tag && --$n == 0) {
				my $v = pack($fmt, $val);
				substr($s, $p + $off, length $v) = $v;
				last;
			}
			$p += $size{$t};
		}
		print $s' "$@"
}

# A CSV of messages (time,src,dst,packets,id), one argument a row.
msgs_csv() {
	printf 'time,src,dst,packets,id\n'
	for r in "$@"; do printf '%s\n' "$r"; done
}

# expect STATUS LINE: the last run (with --separate-stderr) ended with
# STATUS and its stderr is exactly LINE (one line).
expect() {
	if [ "$status" -ne "$1" ] || [ "$stderr" != "$2" ]; then
		echo "expected status $1 and: $2"
		echo "got status $status and: $stderr"
		return 1
	fi
}

# expect_re STATUS REGEX: as expect, stderr one line matching REGEX.
expect_re() {
	if [ "$status" -ne "$1" ] || [ "${#stderr_lines[@]}" -ne 1 ] ||
	   ! [[ "$stderr" =~ $2 ]]; then
		echo "expected status $1 and one line matching: $2"
		echo "got status $status and: $stderr"
		return 1
	fi
}

# One run of a reader on a bad file, checked without bats' run (fast):
# exit 1, one line "prog: file: ...", located by record when located=1.
check_bad() {
	local located=$1 file=$2 prog=$3
	shift 3
	local st=0 msg
	"$prog" "$@" "$file" > /dev/null 2> err || st=$?
	msg=$(< err)
	if [ "$st" -ne 1 ] || [[ -z $msg || $msg == *$'\n'* ]] ||
	   [[ "$msg" != "$prog: $file: "* ]]; then
		echo "$prog $* $file: status $st: $msg"
		return 1
	fi
	if [ "$located" = 1 ] && ! [[ "$msg" =~ ^$prog:\ $file:\ record\ [0-9]+:\  ]]; then
		echo "$prog $* $file: not located by record: $msg"
		return 1
	fi
}

@test "truncated at every byte: exit 1 and one line naming the program, input and record" {
	# Messages through sched, netrun and mpcat in turn; deliveries
	# through lstat and mpcat in turn. Past the header of a raw stream
	# (fixed-size or packed records) the message names the record.
	run plain '
	for s in m.raw m.zst m.pk ds.raw ds.zst ds.pk; do
		size=$(wc -c < "$S/$s")
		hl=0
		[[ $s != *.zst ]] && hl=$(hdr_len "$S/$s")
		case $s in
		m.*) progs=(sched netrun mpcat) ;;
		*) progs=(lstat mpcat) ;;
		esac
		# Every prefix, written at once.
		perl -e '"'"'local $/; $s = <STDIN>;
			for $k (0 .. length($s) - 1) {
				open O, ">", "p.$k" or die; print O substr($s, 0, $k);
				close O;
			}'"'"' < "$S/$s"
		k=0
		while [ $k -lt "$size" ]; do
			prog=${progs[$((k % ${#progs[@]}))]}
			args=()
			[ "$prog" = netrun ] && args=(--size 2 -q)
			[ "$prog" = mpcat ] && args=(-n)
			located=0
			[ "$hl" -gt 0 ] && [ $k -ge "$hl" ] && located=1
			check_bad $located p.$k "$prog" "${args[@]}" ||
				{ echo "$s cut at $k bytes"; exit 1; }
			rm p.$k
			k=$((k + 1))
		done
	done'
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "a filter that fails on bad input leaves no stream that passes for complete" {
	hl=$(hdr_len "$S/m.raw")
	for cut in $((hl + 10)) $((hl + 120)) $(($(wc -c < "$S/m.raw") - 64)); do
		head -c $cut "$S/m.raw" > p
		for cmd in "sched" "netrun --size 2 -q"; do
			st=0
			$cmd p > out 2> err || st=$?
			[ $st -eq 1 ] || { echo "$cmd, cut $cut: status $st"; return 1; }
			# Downstream, what it wrote is refused, not taken as a
			# shorter but complete stream.
			run --separate-stderr mpcat -n out
			[ "$status" -eq 1 ] || { echo "$cmd, cut $cut: its output reads"; return 1; }
			$cmd -o out.mps p 2> err && return 1
			run --separate-stderr mpcat -n out.mps
			[ "$status" -eq 1 ] || { echo "$cmd -o, cut $cut: its output reads"; return 1; }
		done
	done
	# The whole pipeline then fails at its end, not only in the middle.
	run --separate-stderr bash -c "head -c $((hl + 120)) '$S/m.raw' | sched 2>/dev/null |
		netrun --size 2 -q 2>/dev/null | lstat"
	expect_re 1 '^lstat: stdin: '
}

@test "flipped header bytes: every byte of the raw header, the start of the compressed one" {
	run plain '
	hl=$(hdr_len "$S/m.raw")
	perl -e '"'"'local $/; $s = <STDIN>;
		for $k (0 .. $ARGV[0] - 1) {
			$c = $s;
			substr($c, $k, 1) = chr(ord(substr($c, $k, 1)) ^ 0xff);
			open O, ">", "f.$k" or die; print O $c; close O;
		}'"'"' "$hl" < "$S/m.raw"
	# Bytes of the zstd frame header and the first block.
	perl -e '"'"'local $/; $s = <STDIN>;
		for $k (0 .. 63) {
			$c = $s;
			substr($c, $k, 1) = chr(ord(substr($c, $k, 1)) ^ 0x55);
			open O, ">", "z.$k" or die; print O $c; close O;
		}'"'"' < "$S/m.zst"
	progs=(sched netrun lstat mpcat)
	k=0
	for f in $(seq -f "f.%g" 0 $((hl - 1))) $(seq -f "z.%g" 0 63); do
		prog=${progs[$((k % 4))]}
		args=()
		[ "$prog" = netrun ] && args=(--size 2 -q)
		[ "$prog" = mpcat ] && args=(-c)
		check_bad 0 $f "$prog" "${args[@]}" || { echo "flipped: $f"; exit 1; }
		k=$((k + 1))
	done'
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# The checksum in words, the magic by name.
	perl -e 'local $/; $s = <STDIN>; substr($s, 30, 1) = "X"; print $s' \
		< "$S/m.raw" > c.mps
	run --separate-stderr sched c.mps
	expect 1 "sched: c.mps: header: checksum mismatch (corrupt header)"
	run --separate-stderr lstat "$BATS_TEST_DIRNAME/data/msgs.csv"
	expect 1 "lstat: $BATS_TEST_DIRNAME/data/msgs.csv: not a meshpipe stream (bad magic)"
}

@test "concatenated streams of one kind and node count read as one" {
	# The same messages again 10000 and 20000 units later, raw and
	# compressed.
	mpcat -c -m "$S/m.raw" > a.csv
	for k in 1 2; do
		awk -F, -v k=$k '/^#/ || /^class/ { print; next }
			{ $8 += 10000 * k; $7 += 6 * k; print }' OFS=, a.csv > b$k.csv
	done
	mpcat -C --raw -o b1.raw b1.csv
	mpcat -C -o b2.zst b2.csv
	cat "$S/m.raw" b1.raw b2.zst > mmm
	run --separate-stderr mpcat -n mmm
	[ "$status" -eq 0 ]
	[ "$output" = "msg 18" ]
	sched mmm | netrun --size 2 -q > d3.mps
	run --separate-stderr lstat --csv d3.mps
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[1]}" | cut -d, -f1-2)" = "all,18" ]
	# Times that restart in the second stream are out of order.
	cat "$S/m.raw" "$S/m.zst" > mm
	run --separate-stderr sched mm
	expect 1 "sched: mm: record 8: out of time order: time 952 after 3889"
	run --separate-stderr mpcat -n mm
	expect 1 "mpcat: mm: record 8: out of time order: time 952 after 3889"
	# Deliveries concatenated: lstat adds the run records up.
	cat "$S/d.raw" "$S/d.raw" > dd
	run --separate-stderr lstat dd
	[ "$status" -eq 0 ]
	[[ "$output" == *"# counts: 12 messages and 126 packets read; as the run record says (12 messages in"* ]]
}

@test "concatenated streams that disagree: kind, node count" {
	cat "$S/m.raw" "$S/d.raw" > md
	for prog in sched mpcat; do
		args=()
		[ "$prog" = mpcat ] && args=(-n)
		run --separate-stderr "$prog" "${args[@]}" md
		expect 1 "$prog: md: concatenated stream 2 is of kind deliveries, the first is messages"
	done
	cat "$S/m.raw" "$S/m91.raw" > m7m91
	run --separate-stderr netrun --size 2 -q m7m91
	expect 1 "netrun: m7m91: concatenated stream 2 is for 91 nodes, the first for 7"
	run --separate-stderr bash -c "cat '$S/d.raw' '$S/m.raw' | lstat"
	expect 1 "lstat: stdin: concatenated stream 2 is of kind messages, the first is deliveries"
}

@test "a stream of the wrong kind for the program" {
	run --separate-stderr sched "$S/d.raw"
	expect 1 "sched: $S/d.raw: a deliveries stream: sched reads messages"
	run --separate-stderr netrun --size 2 "$S/d.raw"
	expect 1 "netrun: $S/d.raw: a deliveries stream: netrun reads messages (wlgen) or injections (sched)"
	run --separate-stderr lstat "$S/m.raw"
	expect 1 "lstat: $S/m.raw: a stream of kind messages, not deliveries"
	run --separate-stderr lstat "$S/i.raw"
	expect 1 "lstat: $S/i.raw: a stream of kind injections, not deliveries"
	# A CSV trace given to a stream reader, a stream given to --replay.
	run --separate-stderr netrun "$BATS_TEST_DIRNAME/../traces/sample.csv"
	expect 1 "netrun: $BATS_TEST_DIRNAME/../traces/sample.csv: not a meshpipe stream (bad magic)"
	run --separate-stderr wlgen --replay "$S/m.raw"
	expect_re 1 "^wlgen: $S/m.raw: (line [0-9]+: )?"
}

@test "a newer major version is refused by name; a newer minor is read" {
	perl -e 'local $/; $s = <STDIN>; substr($s, 4, 2) = pack("v", 2); print $s' \
		< "$S/m.raw" > v2.mps
	perl -e 'local $/; $s = <STDIN>; substr($s, 4, 2) = pack("v", 2); print $s' \
		< "$S/d.raw" > d2.mps
	what="stream format version 2.1 is newer than this program's 1.1: upgrade meshpipe to read it"
	run --separate-stderr sched v2.mps
	expect 1 "sched: v2.mps: $what"
	run --separate-stderr netrun --size 2 v2.mps
	expect 1 "netrun: v2.mps: $what"
	run --separate-stderr mpcat -c v2.mps
	expect 1 "mpcat: v2.mps: $what"
	run --separate-stderr lstat d2.mps
	expect 1 "lstat: d2.mps: $what"
	# As the second of two concatenated streams.
	cat "$S/m.raw" v2.mps > mv2
	run --separate-stderr sched mv2
	expect 1 "sched: mv2: $what"
	# Minor 1 with a record kind this version does not know: skipped.
	run --separate-stderr netrun --preset po2 -q -o /dev/null \
		"$BATS_TEST_DIRNAME/fuzz/corpus/fuzz_stream/minor-raw.bin"
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
}

@test "records out of time order: streams by record, CSV by line" {
	setfield 1 3 24 'Q<' 5 < "$S/m.raw" > o.mps
	run --separate-stderr sched o.mps
	expect 1 "sched: o.mps: record 3: out of time order: time 5 after 1726"
	run --separate-stderr netrun --size 2 -q o.mps
	expect 1 "netrun: o.mps: record 3: out of time order: time 5 after 1726"
	run --separate-stderr mpcat -c o.mps
	expect 1 "mpcat: o.mps: record 3: out of time order: time 5 after 1726"
	msgs_csv 10,1,2,1,0 5,2,1,1,1 > o.csv
	run --separate-stderr mpcat -C -o o2.mps o.csv
	expect 1 "mpcat: o.csv: line 3: out of time order: time 5 after 10"
	[ ! -e o2.mps ]
	run --separate-stderr wlgen --replay o.csv -o o3.mps
	expect 1 "wlgen: o.csv: line 3: time 5 is before the previous row's 10 (rows must be in time order)"
	[ ! -e o3.mps ]
}

@test "node ids out of range: by record, by line, and against the fabric" {
	setfield 1 2 8 V 140 < "$S/m.raw" > n.mps
	run --separate-stderr sched n.mps
	expect 1 "sched: n.mps: record 2: destination 140 out of range (7 nodes)"
	run --separate-stderr netrun --size 2 -q n.mps
	expect 1 "netrun: n.mps: record 2: destination 140 out of range (7 nodes)"
	setfield 1 4 4 V 7 < "$S/m.raw" > n2.mps
	run --separate-stderr mpcat -n n2.mps
	expect 1 "mpcat: n2.mps: record 4: source 7 out of range (7 nodes)"
	# A stream that does not say its node count: the fabric checks.
	msgs_csv 0,1,2,1,0 10,3,140,2,1 > n.csv
	mpcat -C -o nn.mps n.csv
	run --separate-stderr netrun --size 2 -q nn.mps
	expect 1 "netrun: nn.mps: record 2: message 1: node out of range (7 nodes)"
	# A stream for another fabric.
	run --separate-stderr netrun --size 3 -q "$S/m.raw"
	expect 1 "netrun: $S/m.raw: the stream is for 7 nodes, the fabric has 19"
	# Replay and CSV import, by line.
	run --separate-stderr wlgen --size 2 --replay n.csv
	expect 1 "wlgen: n.csv: line 3: dst 140 out of range (7 nodes)"
	run --separate-stderr mpcat -C -s nodes=7 -o x.mps n.csv
	expect 1 "mpcat: n.csv: line 3: destination 140 out of range (7 nodes)"
	# Deliveries: lstat and mpcat.
	setfield 4 2 4 V 9 < "$S/d.raw" > nd.mps
	run --separate-stderr lstat nd.mps
	expect_re 1 "^lstat: nd.mps: record [0-9]+: node 9 out of range \(7 nodes\)$"
}

@test "message lengths out of range: zero, too long for the field, too long for the fabric" {
	setfield 1 2 12 V 0 < "$S/m.raw" > z.mps
	run --separate-stderr sched z.mps
	expect 1 "sched: z.mps: record 2: message 1 has zero length"
	run --separate-stderr netrun --size 2 -q z.mps
	expect 1 "netrun: z.mps: record 2: message 1 has zero length"
	msgs_csv 0,1,2,4294967296,0 > big.csv
	run --separate-stderr mpcat -C -o x.mps big.csv
	expect 1 "mpcat: big.csv: line 2: column 'packets': 4294967296 is too large (at most 4294967295)"
	run --separate-stderr wlgen --replay big.csv
	expect 1 "wlgen: big.csv: line 2: packets: 4294967296 is too large (at most 4294967295)"
	msgs_csv 0,1,2,0,0 > zero.csv
	run --separate-stderr wlgen --replay zero.csv
	expect 1 "wlgen: zero.csv: line 2: packets: 0 is too small (at least 1)"
	msgs_csv 0,1,2,40000000,0 > long.csv
	run --separate-stderr wlgen --replay long.csv
	expect 1 "wlgen: long.csv: line 2: 40000000 packets of 128 bytes overflow the 32-bit bytes field"
	# 2^32 - 1 packets: netrun finds the source queue growing without
	# bound and stops, instead of running for ever.
	setfield 1 2 12 V 4294967295 < "$S/m.raw" > huge.mps
	run --separate-stderr netrun --size 2 -q -o h.mps huge.mps
	[ "$status" -eq 1 ]
	[[ "${stderr_lines[0]}" =~ ^netrun:\ saturated\ at\ time\ [0-9]+:\ [0-9]+\ packets\ queued ]]
	run lstat h.mps
	[ "$status" -eq 0 ]
	[[ "$output" == *"# status: SATURATED"* ]]
}

@test "message times out of range: refused, never wrapped around" {
	setfield 1 6 24 'Q<' 18446744073709551615 < "$S/m.raw" > t.mps
	what="time 18446744073709551615 out of range (at most 4611686018427387904)"
	run --separate-stderr netrun --size 2 -q t.mps
	expect 1 "netrun: t.mps: record 6: $what"
	run --separate-stderr sched t.mps
	expect 1 "sched: t.mps: record 6: $what"
	msgs_csv 0,1,2,1,0 18446744073709551615,2,1,1,1 > t.csv
	run --separate-stderr mpcat -C -o x.mps t.csv
	expect 1 "mpcat: t.csv: line 3: $what"
	run --separate-stderr wlgen --replay t.csv
	expect 1 "wlgen: t.csv: line 3: time 18446744073709551615 scaled by 1 is too large"
	msgs_csv 1e300,1,2,1,0 > t2.csv
	run --separate-stderr wlgen --replay t2.csv --time-scale 1e12
	expect 1 "wlgen: t2.csv: line 2: time 1e300 scaled by 1e+12 is too large"
}

@test "NaN, negative and huge option values: exit 2 naming the program and the option" {
	touch x.csv
	while IFS='|' read -r cmd msg; do
		[ -n "$cmd" ] || continue
		st=0
		$cmd < /dev/null > out 2> err || st=$?
		first=$(head -1 err)
		# Bad usage is one line, ending with a pointer to -h.
		msg="$msg; try '${cmd%% *} -h'"
		if [ $st -ne 2 ] || [ "$first" != "$msg" ] || [ -s out ] ||
		   [ "$(wc -l < err)" -ne 1 ]; then
			echo "$cmd: status $st: $(cat err)"
			echo "expected: $msg"
			return 1
		fi
	done <<'EOF'
wlgen --load nan -n 10|wlgen: --load: 'nan' is not a finite number
wlgen --load -1 -n 10|wlgen: --load: -1 is out of range [1e-06, 10]
wlgen --load 1e999 -n 10|wlgen: --load: '1e999' is not a finite number
wlgen --load inf -n 10|wlgen: --load: 'inf' is not a finite number
wlgen --load 0.5 -n -5|wlgen: -n: '-5' is not an unsigned integer
wlgen --preset cmp --chains 4 --dest transpose -n 10|wlgen: --chains: --dest does not apply (a chain's server is uniform, its pace --think)
wlgen --preset cmp --chains 4 --load 0.3 -n 10|wlgen: --chains: --load does not apply (a chain's server is uniform, its pace --think)
wlgen --load 0.5 -n 1e99|wlgen: -n: '1e99' is not an unsigned integer
wlgen --load 0.5 -n 99999999999999999999999|wlgen: -n: 99999999999999999999999 is too large (at most 1125899906842624)
wlgen --load 0.5 -n 10 --seed -1|wlgen: --seed: '-1' is not an unsigned integer
wlgen --load 0.5 -n 10 --long 200|wlgen: --long: 200 is out of range [0, 100]
wlgen --load 0.5 -n 10 --long nan|wlgen: --long: 'nan' is not a finite number
wlgen --load 0.5 -n 10 --payload 0|wlgen: --payload: 0 is too small (at least 1)
wlgen --load 0.5 -n 10 --size 1000000|wlgen: --size: 1000000 is too large (at most 1000)
wlgen --load 0.5 --duration -1|wlgen: --duration: '-1' is not an unsigned integer
wlgen --replay x.csv --time-scale nan|wlgen: --time-scale: 'nan' is not a finite number
wlgen --replay x.csv --time-scale -2|wlgen: --time-scale: -2 is out of range [1e-12, 1e+12]
sched --alpha nan|sched: --alpha: 'nan' is not a finite number
sched --alpha -1|sched: --alpha: -1 is out of range [0, 1e+09]
sched --alpha inf|sched: --alpha: 'inf' is not a finite number
sched --alpha 1e99|sched: --alpha: 1e99 is out of range [0, 1e+09]
sched --segment 0|sched: --segment: 0 is too small (at least 1)
sched --segment -1|sched: --segment: '-1' is not an unsigned integer
sched --segment 99999999999|sched: --segment: 99999999999 is too large (at most 1073741824)
netrun --buffers -1|netrun: --buffers: '-1' is not an unsigned integer
netrun --buffers 0|netrun: --buffers: 0 is too small (at least 1)
netrun --buffers nan|netrun: --buffers: 'nan' is not an unsigned integer
netrun --buffers 1e99|netrun: --buffers: '1e99' is not an unsigned integer
netrun --packet-time 0|netrun: --packet-time: 0 is too small (at least 1)
netrun --max-backlog 0|netrun: --max-backlog: 0 is too small (at least 1)
netrun --seed -1|netrun: --seed: '-1' is not an unsigned integer
netrun --util-interval 0|netrun: --util-interval: 0 is too small (at least 1)
netrun --inject-timeout -5|netrun: --inject-timeout: '-5' is not an unsigned integer
netrun --preset ncube --fifo 0|netrun: --fifo: 0 is too small (at least 1)
netrun --preset ncube --fifo -1|netrun: --fifo: '-1' is not an unsigned integer
netrun --preset ncube --stages 0|netrun: --stages: 0 is too small (at least 1)
netrun --preset ncube --stages 25|netrun: --stages: 25 is too large (at most 24)
netrun --preset ncube --stages 21|netrun: --topo, --stages: butterfly:2,21 has more than 2^20 inputs
netrun --preset ncube --topo butterfly:2,0|netrun: --topo: 'butterfly:2,0': 1 to 24 stages
netrun --preset ncube --topo butterfly:4,11|netrun: --topo, --stages: butterfly:4,11 has more than 2^20 inputs
netrun --preset ncube --topo crossbar:1|netrun: --topo: 1 is too small (at least 2)
netrun --preset ncube --sink prob:nan|netrun: --sink: 'prob:nan' is not perfect or prob:Q with 0 < Q <= 1
netrun --preset ncube --sink prob:0|netrun: --sink: 'prob:0' is not perfect or prob:Q with 0 < Q <= 1
netrun --preset ncube --arb coin|netrun: --arb: 'coin' is not one of rr|priority|credit:A|oldest|random
wlgen --preset ncube --arrival model:2 -n 5|wlgen: --arrival: model:P needs 0 < P <= 1, not '2'
wlgen --preset ncube --arrival model:nan -n 5|wlgen: --arrival: model:P needs 0 < P <= 1, not 'nan'
wlgen --preset ncube --stages 0 --load 0.5 -n 5|wlgen: --stages: 0 is too small (at least 1)
wlgen --preset ncube --nodes 1000 --load 0.5 -n 5|wlgen: --nodes: the fabric (butterfly:2,3) has 8 nodes, not 1000
lstat --slow-inputs 0|lstat: --slow-inputs: 0 is too small (at least 1)
lstat --warmup -1|lstat: --warmup: '-1' is not an unsigned integer
lstat --warmup nan|lstat: --warmup: 'nan' is not an unsigned integer
lstat --warmup 18446744073709551616|lstat: --warmup: 18446744073709551616 is too large (at most 18446744073709551615)
lstat --warmup-time 1e9|lstat: --warmup-time: '1e9' is not an unsigned integer
hexflow --pe-util nan|hexflow: --pe-util: 'nan' is not a finite number
hexflow --pe-util -0.5|hexflow: --pe-util: -0.5 is out of range [0, 1]
hexflow --pe-util 2|hexflow: --pe-util: 2 is out of range [0, 1]
hexflow --pe-util inf|hexflow: --pe-util: 'inf' is not a finite number
hexflow --packet-time 0|hexflow: --packet-time: 0 is too small (at least 1)
hexflow --packet-time -1|hexflow: --packet-time: '-1' is not an unsigned integer
hexflow --min-n nan|hexflow: --min-n: 'nan' is not an unsigned integer
hexflow --inject-setup 1e99|hexflow: --inject-setup: '1e99' is not an unsigned integer
EOF
}

@test "impossible values in a stream header or CSV metadata: exit 1 naming the input" {
	D="$BATS_TEST_DIRNAME/data"
	mpcat -C -k deliveries -r dlv -s nodes=7 -s pe_time=nan -o pe.mps "$D/dlv_small.csv"
	run --separate-stderr lstat pe.mps
	expect 1 "lstat: pe.mps: header: bad pe_time 'nan'"
	mpcat -C -k deliveries -r dlv -s nodes=7 -s short_max=-1 -o sm.mps "$D/dlv_small.csv"
	run --separate-stderr lstat sm.mps
	expect 1 "lstat: sm.mps: header: bad short_max '-1'"
	mpcat -C -k injections -r inj -s nodes=91 -s sched.policy=alpha \
		-s sched.alpha=nan -o a.mps "$D/msgs.csv"
	run --separate-stderr netrun -q a.mps
	expect 1 "netrun: a.mps: header: bad or missing sched.alpha"
	mpcat -C -k injections -r inj -s nodes=91 -s sched.policy=lottery \
		-o b.mps "$D/msgs.csv"
	run --separate-stderr netrun -q b.mps
	expect 1 "netrun: b.mps: header: unknown injection policy 'lottery'"
	for v in nan 0 -1 99999999999; do
		run --separate-stderr mpcat -C -s nodes=$v -o x.mps "$D/msgs.csv"
		expect_re 1 "^mpcat: $D/msgs.csv: metadata nodes: '?$v'? is (not an unsigned integer|too small|too large)"
		[ ! -e x.mps ]
	done
}

@test "missing, unreadable and directory inputs: exit 1 naming the file" {
	for c in "sched" "netrun" "lstat" "mpcat -n" "mpcat -c" "mpcat -C" \
		"wlgen --replay"; do
		prog=${c%% *}
		st=0
		$c nosuch > /dev/null 2> err || st=$?
		[ $st -eq 1 ] && [ "$(cat err)" = "$prog: nosuch: No such file or directory" ] ||
			{ echo "$c nosuch: $st: $(cat err)"; return 1; }
		st=0
		$c "$S" > /dev/null 2> err || st=$?
		[ $st -eq 1 ] && [ "$(cat err)" = "$prog: $S: read failed: Is a directory" ] ||
			{ echo "$c dir: $st: $(cat err)"; return 1; }
		# Opens but cannot be read, even by root.
		st=0
		$c /proc/self/mem > /dev/null 2> err || st=$?
		[ $st -eq 1 ] &&
		[ "$(cat err)" = "$prog: /proc/self/mem: read failed: Input/output error" ] ||
			{ echo "$c /proc/self/mem: $st: $(cat err)"; return 1; }
	done
	if [ "$(id -u)" -ne 0 ]; then
		cp "$S/m.raw" locked.mps
		chmod 000 locked.mps
		run --separate-stderr sched locked.mps
		expect 1 "sched: locked.mps: Permission denied"
	fi
	# An output that cannot be opened.
	run --separate-stderr sched -o nodir/x.mps "$S/m.raw"
	expect 1 "sched: nodir/x.mps: No such file or directory"
	run --separate-stderr netrun --size 2 -o nodir/x.mps "$S/m.raw"
	expect 1 "netrun: nodir/x.mps: No such file or directory"
	run --separate-stderr wlgen -n 5 --load 0.5 -o nodir/x.mps
	expect 1 "wlgen: nodir/x.mps: No such file or directory"
}

@test "a full disk (/dev/full) at the writer: exit 1 naming the output" {
	full="write failed: No space left on device"
	while IFS='|' read -r cmd; do
		[ -n "$cmd" ] || continue
		prog=${cmd%% *}
		st=0
		eval "$cmd" > /dev/full 2> err || st=$?
		[ $st -eq 1 ] && [ "$(cat err)" = "$prog: stdout: $full" ] ||
			{ echo "$cmd > /dev/full: $st: $(cat err)"; return 1; }
	done <<EOF
wlgen -n 1000 --load 0.5
wlgen --replay $BATS_TEST_DIRNAME/../traces/sample.csv
sched $S/m.raw
netrun --size 2 -q $S/m.raw
lstat $S/d.raw
lstat --csv $S/d.raw
lstat --prov $S/d.raw
mpcat $S/m.raw
mpcat -c $S/m.raw
mpcat -H $S/m.raw
mpcat -C $BATS_TEST_DIRNAME/data/msgs.csv
netrun --show-config
wlgen -h
sched -h
netrun -h
lstat -h
mpcat -h
EOF
	for cmd in "wlgen -n 1000 --load 0.5" "sched $S/m.raw" \
		"netrun --size 2 -q $S/m.raw" "mpcat -c $S/m.raw"; do
		prog=${cmd%% *}
		st=0
		$cmd -o /dev/full 2> err || st=$?
		[ $st -eq 1 ] && [ "$(cat err)" = "$prog: /dev/full: $full" ] ||
			{ echo "$cmd -o /dev/full: $st: $(cat err)"; return 1; }
	done
	# hexflow too says "write failed".
	run --separate-stderr bash -c 'hexflow > /dev/full'
	expect 1 "hexflow: stdout: write failed: No space left on device"
}

@test "a closed stdout: killed by SIGPIPE (status 141), quietly, as any writer" {
	run --separate-stderr bash -c 'wlgen --load 0.5 -n 200000 | head -c 10 > /dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 141 ]
	[ "$stderr" = "" ]
	# Small outputs fit a pipe's buffer: close the reading end first.
	while IFS='|' read -r cmd; do
		[ -n "$cmd" ] || continue
		prog=${cmd%% *}
		run --separate-stderr perl -e 'pipe(R, W) or die; close R;
			open(STDOUT, ">&W") or die; close W; exec @ARGV' $cmd
		[ "$status" -eq 141 ] && [ "$stderr" = "" ] ||
			{ echo "$cmd: $status: $stderr"; return 1; }
	done <<EOF
wlgen -n 10 --load 0.5
sched $S/m.raw
netrun --size 2 -q $S/m.raw
lstat $S/d.raw
mpcat -c $S/d.raw
mpcat $S/d.raw
wlgen -h
sched -h
netrun -h
netrun --show-config
EOF
	run --separate-stderr perl -e 'pipe(R, W) or die; close R;
		open(STDOUT, ">&W") or die; close W; exec @ARGV' hexflow
	[ "$status" -eq 141 ] && [ "$stderr" = "" ]
}
