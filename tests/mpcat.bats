#!/usr/bin/env bats
# Tests of mpcat: header printing, exact CSV dumps, CSV -> stream -> CSV
# round trips, copies, usage, bad CSV rows, bad streams (every truncated
# prefix, every flipped header byte) and write failures.
# Fixtures: tests/data/msgs.csv (five messages on 91 nodes),
# tests/data/mpcat_dlv.csv (deliveries with metadata comments) and
# tests/data/mpcat_pkt.csv (packets).

bats_require_minimum_version 1.5.0

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	D="$BATS_TEST_DIRNAME/data"
	T="$BATS_TEST_TMPDIR"
	cd "$T" || return 1
	mpcat -C -s nodes=91 -s topology=hex -o z.mps "$D/msgs.csv"
	mpcat -C --raw -s nodes=91 -s topology=hex -o r.mps "$D/msgs.csv"
}

MSGHDR=class,group,route,src,dst,packets,id,time,bytes,prio
LAYOUT1="layout.1=msg 40 tag:u8@0 class:u8@1 group:u8@2 route:u8@3 src:u32@4 dst:u32@8 packets:u32@12 id:u64@16 time:u64@24 bytes:u32@32 prio:u32@36"

@test "-h and --help print the usage to stdout, exit 0" {
	run --separate-stderr mpcat -h
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: mpcat [-Hn] [file ...]" ]
	[ "$stderr" = "" ]
	run --separate-stderr mpcat --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: mpcat [-Hn] [file ...]" ]
}

@test "bad usage: a message and the usage on stderr, exit 2" {
	run --separate-stderr mpcat --bogus
	[ "$status" -eq 2 ]
	[ "$output" = "" ]
	[ "$stderr" = "mpcat: unknown option '--bogus'; try 'mpcat -h'" ]
	run --separate-stderr mpcat -C -k nope
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "mpcat: --kind: unknown stream kind 'nope' (messages, injections, deliveries, utilization); try 'mpcat -h'" ]
	run --separate-stderr mpcat -c -r end z.mps
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "mpcat: --rec: unknown record kind 'end' (msg, inj, pkt, dlv, util, run, dep, rel); try 'mpcat -h'" ]
	run --separate-stderr mpcat -C -s nodes
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "mpcat: --set: 'nodes' is not key=value (keys are made of a-z, 0-9, '_' and '.'); try 'mpcat -h'" ]
	for args in "-x" "-o" "--rec" "-c -C" "-H -c" "-n -C" "-m z.mps" \
		"-k messages z.mps" "-s a=b z.mps" "-r msg z.mps" "--raw -c z.mps" \
		"-C -s Nodes=1" "-C -s kind=messages" "-C -s layout.1=x" \
		"-C a.csv b.csv" "-c -r nope z.mps"; do
		run --separate-stderr mpcat $args
		[ "$status" -eq 2 ] || { echo "mpcat $args: status $status"; return 1; }
		[ "$output" = "" ]
		[[ "$stderr" == "mpcat: "*"; try 'mpcat -h'" ]]
		[ "${#stderr_lines[@]}" -eq 1 ]
	done
}

@test "-H prints kind, version, encoding, metadata and numbered provenance" {
	run --separate-stderr mpcat -H z.mps
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 13 ]
	[ "${lines[0]}" = "kind: messages" ]
	[ "${lines[1]}" = "version: 1.1" ]
	[ "${lines[2]}" = "encoding: compressed (zstd), packed records" ]
	[ "${lines[3]}" = "nodes=91" ]
	[ "${lines[4]}" = "topology=hex" ]
	[ "${lines[5]}" = "$LAYOUT1" ]
	[[ "${lines[11]}" == "layout.7=end 64 "* ]]
	[[ "${lines[12]}" =~ ^"prov 1: mpcat "[0-9]+\.[0-9]+\.[0-9]+" args=-C -s nodes=91 -s topology=hex -o z.mps $D/msgs.csv"$ ]]
	run mpcat --header r.mps
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "encoding: raw, fixed-size records" ]
}

@test "-H numbers every provenance entry, in order" {
	mpcat -C "$D/mpcat_dlv.csv" | mpcat > c.mps
	run mpcat -H c.mps
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "kind: deliveries" ]
	[ "$(printf '%s\n' "${lines[@]}" | grep '^prov ' | sed 's/ [0-9][0-9.]* / V /')" = "prov 1: wlgen V seed=7 args=--preset po2 --load 0.3 -n 3
prov 2: netrun V args=--preset po2 --route derouting
prov 3: mpcat V args=-C $D/mpcat_dlv.csv
prov 4: mpcat V args=" ]
}

@test "-n counts the records of each kind; -H -n adds the counts" {
	run --separate-stderr mpcat -n z.mps
	[ "$status" -eq 0 ]
	[ "$output" = "msg 5" ]
	run mpcat --count < r.mps
	[ "$status" -eq 0 ]
	[ "$output" = "msg 5" ]
	run mpcat -H -n r.mps
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "kind: messages" ]
	[ "${lines[13]}" = "msg 5" ]
	[ "${#lines[@]}" -eq 14 ]
}

@test "-c dumps the main records as CSV, exactly" {
	run --separate-stderr mpcat -c z.mps
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[ "$output" = "$MSGHDR
0,0,0,0,90,1,0,0,128,0
0,1,0,17,4,25,1,12,3200,0
1,0,2,44,45,3,2,12,384,0
0,0,1,90,0,5,3,400,640,0
0,0,0,3,77,2,4,1260,256,0" ]
	run mpcat --csv - < r.mps
	[ "$status" -eq 0 ]
	[ "${lines[5]}" = "0,0,0,3,77,2,4,1260,256,0" ]
}

@test "CSV -> stream -> CSV is byte-identical" {
	mpcat -c z.mps > a.csv
	cmp a.csv "$D/msgs.csv"
	mpcat -c r.mps > b.csv
	cmp b.csv "$D/msgs.csv"
	mpcat -C < "$D/msgs.csv" | mpcat -c > c.csv
	cmp c.csv "$D/msgs.csv"
	grep -v '^#' "$D/mpcat_dlv.csv" > dlv.csv
	mpcat -C "$D/mpcat_dlv.csv" | mpcat -c > d.csv
	cmp d.csv dlv.csv
}

@test "--meta dump converts back to the identical raw stream" {
	mpcat -C --raw < "$D/mpcat_dlv.csv" > s1.mps
	V=$(mpcat -H s1.mps | sed -n 's/^prov 3: mpcat \([0-9.]*\) .*/\1/p')
	[[ "$V" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	run --separate-stderr mpcat -c -m s1.mps
	[ "$status" -eq 0 ]
	# The fixture's comments, mpcat's provenance, then the rows.
	[ "$output" = "$(grep '^#' "$D/mpcat_dlv.csv"
		echo "#prov=mpcat $V args=-C --raw"
		grep -v '^#' "$D/mpcat_dlv.csv")" ]
	# Less the provenance the conversion itself added, the dump makes
	# the same stream again, byte for byte.
	mpcat -c --meta s1.mps | grep -vx "#prov=mpcat $V args=-C --raw" |
		mpcat -C --raw > s2.mps
	cmp s1.mps s2.mps
	# Compressed the same way.
	mpcat -C < "$D/mpcat_dlv.csv" > z1.mps
	mpcat -c -m z1.mps | grep -vx "#prov=mpcat $V args=-C" | mpcat -C > z2.mps
	cmp z1.mps z2.mps
}

@test "--raw writes a raw stream, the default is zstd" {
	[ "$(od -An -tx1 -N4 r.mps)" = " 8d 6d 70 0a" ]
	[ "$(od -An -tx1 -N4 z.mps)" = " 28 b5 2f fd" ]
	# A real zstd frame: zstd(1) decompresses it to a raw stream of
	# packed records, and compresses a raw one into a stream of fixed-
	# size records (the format before 1.1); both read the same.
	zstd -qdc z.mps > u.mps
	[ "$(mpcat -H u.mps | sed -n 3p)" = "encoding: raw, packed records" ]
	[ "$(mpcat -c u.mps)" = "$(mpcat -c r.mps)" ]
	zstd -qc r.mps > o.mps
	[ "$(mpcat -H o.mps | sed -n 3p)" = "encoding: compressed (zstd), fixed-size records" ]
	[ "$(mpcat -c o.mps)" = "$(mpcat -c r.mps)" ]
	mpcat r.mps > c.mps
	[ "$(mpcat -H c.mps | sed -n 3p)" = "encoding: compressed (zstd), packed records" ]
	mpcat --raw -o c2.mps z.mps
	[ "$(od -An -tx1 -N4 c2.mps)" = " 8d 6d 70 0a" ]
	[[ "$(mpcat -H c2.mps | tail -n 1)" == "prov 2: mpcat "*" args=--raw -o c2.mps z.mps" ]]
}

@test "copy: several inputs into one stream, -r picks a record kind" {
	mpcat -C -k deliveries -r pkt -s nodes=91 "$D/mpcat_pkt.csv" > p.mps
	mpcat -C "$D/mpcat_dlv.csv" > d.mps
	mpcat p.mps d.mps > all.mps
	run mpcat -n all.mps
	[ "$status" -eq 0 ]
	[ "$output" = "pkt 2
dlv 3" ]
	[ "$(cat p.mps d.mps | mpcat -n)" = "$output" ]
	mpcat -c -r pkt all.mps > p.csv
	cmp p.csv "$D/mpcat_pkt.csv"
	[ "$(mpcat -c all.mps)" = "$(grep -v '^#' "$D/mpcat_dlv.csv")" ]
	run mpcat -H all.mps
	[ "${lines[0]}" = "kind: deliveries" ]
	[[ "${lines[@]: -2:1}" == "prov 1: mpcat "*" args=-C -k deliveries -r pkt -s nodes=91 $D/mpcat_pkt.csv" ]]
	[[ "${lines[@]: -1}" == "prov 2: mpcat "*" args=p.mps d.mps" ]]
	# No mode and no file: standard input to standard output.
	mpcat < z.mps > s.mps
	[ "$(mpcat -c s.mps)" = "$(mpcat -c z.mps)" ]
}

@test "copy refuses inputs that cannot make one stream" {
	run --separate-stderr mpcat z.mps z.mps -o x.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: z.mps: record 1: out of time order: time 0 after 1260 (of an earlier input)" ]
	[ ! -e x.mps ]
	mpcat -C "$D/mpcat_dlv.csv" > d.mps
	run --separate-stderr mpcat z.mps d.mps -o x.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: d.mps: stream of kind deliveries, the first input is of kind messages" ]
	mpcat -C -s nodes=100 "$D/msgs.csv" > n.mps
	run --separate-stderr mpcat n.mps z.mps -o x.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: z.mps: stream for 91 nodes, the first input is for 100" ]
	run --separate-stderr mpcat -o z.mps z.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: z.mps: input file is also the output" ]
	[ "$(mpcat -n z.mps)" = "msg 5" ]
}

@test "-C: kind from -k, else #kind=, else messages; record from the kind" {
	printf '#kind=injections\nsrc,dst,packets,time,prio\n1,2,1,0,3\n' > i.csv
	[ "$(mpcat -C i.csv | mpcat -H | head -n 1)" = "kind: injections" ]
	[ "$(mpcat -C i.csv | mpcat -c)" = "$MSGHDR
0,0,0,1,2,1,0,0,0,3" ]
	[ "$(mpcat -C -k messages i.csv | mpcat -n)" = "msg 1" ]
	[ "$(mpcat -C --kind utilization --rec inj i.csv | mpcat -n)" = "inj 1" ]
	# Column names in any case and order; missing columns are zero.
	printf 'Time,SRC,Dst,packets\n7,1,2,3\n' > m.csv
	[ "$(mpcat -C m.csv | mpcat -c | sed 1d)" = "0,0,0,1,2,3,0,7,0,0" ]
	[ "$(mpcat -C m.csv | mpcat -H | head -n 1)" = "kind: messages" ]
}

@test "-C: metadata from comments, --set overrides, prov accumulates" {
	printf '# a free-text note = ignored\n#nodes=91\n#load=0.5\n#prov=wlgen 9.9.9 args=x\nsrc,dst,packets,time\n1,2,1,0\n' > m.csv
	mpcat -C -s load=0.7 --set prov=by-hand -s seed=3 m.csv > m.mps
	run mpcat -H m.mps
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -v '^layout\.' | sed 's/^prov 3: mpcat [0-9.]* /prov 3: mpcat V /')" = "kind: messages
version: 1.1
encoding: compressed (zstd), packed records
nodes=91
load=0.7
seed=3
prov 1: wlgen 9.9.9 args=x
prov 2: by-hand
prov 3: mpcat V args=-C -s load=0.7 --set prov=by-hand -s seed=3 m.csv" ]
}

# Write $1 (printf format) to c.csv; mpcat -C must fail with exactly $2.
csv_fails() {
	printf "$1" > c.csv
	run --separate-stderr mpcat -C -o out.mps c.csv
	[ "$status" -eq 1 ] || { echo "status $status for $1"; return 1; }
	[ "$output" = "" ]
	[ "$stderr" = "mpcat: c.csv: $2" ] || { echo "got: $stderr"; return 1; }
	[ ! -e out.mps ]
}

@test "bad CSV values: exit 1, the line and the column named" {
	csv_fails 'src,dst,packets,time\n1,2,1,0\n1,abc,1,5\n' \
		"line 3: column 'dst': 'abc' is not an unsigned integer"
	csv_fails 'src,dst,packets,time\n1,2,1,-5\n' \
		"line 2: column 'time': '-5' is not an unsigned integer"
	csv_fails 'src,dst,packets,time\n1,2,1,0x10\n' \
		"line 2: column 'time': '0x10' is not an unsigned integer"
	csv_fails 'src,dst,class,packets\n1,2,256,1\n' \
		"line 2: column 'class': 256 is too large (at most 255)"
	csv_fails 'src,dst,packets,time\n1,2,1,18446744073709551616\n' \
		"line 2: column 'time': 18446744073709551616 is too large (at most 18446744073709551615)"
	csv_fails 'src,dst,packets\n1,2,\n' "line 2: column 'packets' is empty"
	csv_fails 'src,dst,packets\n1,2,1,4\n' \
		"line 2: 4 fields, the header row has 3 columns"
	csv_fails 'src,dst,packets,time\n1,2,1,"5\n' "line 2: quoted field is not closed"
	csv_fails 'src,dst,packets,time\n1,2,1,5"\n' \
		"line 2: malformed quoted field (a quote inside an unquoted field, or text after a closing quote)"
	csv_fails '' "no header row"
	csv_fails '#nodes=91\n\n' "no header row"
}

@test "bad CSV header and metadata: exit 1, located" {
	csv_fails 'src,dts,packets\n1,2,1\n' \
		"line 1: unknown column 'dts' (msg records have no such field)"
	csv_fails '#nodes=91\nsrc,dst,tag\n' \
		"line 2: unknown column 'tag' (msg records have no such field)"
	csv_fails 'src,dst,_rsv\n' \
		"line 1: unknown column '_rsv' (msg records have no such field)"
	csv_fails 'src,dst,SRC\n' "line 1: header row: column 'SRC' appears twice"
	csv_fails 'src,,dst\n' "line 1: header row: column 2 has no name"
	csv_fails '#kind=bogus\nsrc\n' "line 1: unknown stream kind 'bogus'"
	csv_fails '#x=1\n#Nodes=91\nsrc\n' \
		"line 2: bad metadata key 'Nodes' (keys are made of a-z, 0-9, '_' and '.')"
	csv_fails '#note=a\tb\nsrc\n' \
		"line 1: metadata value of 'note' holds a control character"
	csv_fails '#nodes=many\nsrc\n' \
		"metadata nodes: 'many' is not an unsigned integer"
	csv_fails '#nodes=0\nsrc\n' "metadata nodes: 0 is too small (at least 1)"
}

@test "records the reader would refuse: exit 1, located" {
	csv_fails '#nodes=91\nsrc,dst,packets,time\n0,90,1,0\n3,91,1,5\n' \
		"line 4: destination 91 out of range (91 nodes)"
	csv_fails '#nodes=91\nsrc,dst,packets\n91,1,1\n' \
		"line 3: source 91 out of range (91 nodes)"
	csv_fails 'src,dst,packets,time\n1,2,0,0\n' "line 2: message 0 has zero length"
	csv_fails 'src,dst,packets,id\n1,1,1,4\n' \
		"line 2: message 4 is sent to its own source 1"
	csv_fails 'src,dst,packets,time\n1,2,1,5\n1,3,1,4\n' \
		"line 3: out of time order: time 4 after 5"
	csv_fails 'src,dst,packets,class\n1,2,1,2\n' "line 2: unknown traffic class 2"
	csv_fails 'src,dst,packets,group\n1,2,1,2\n' "line 2: unknown source group 2"
	csv_fails 'src,dst,packets,route\n1,2,1,3\n' "line 2: unknown routing choice 3"
	csv_fails '#kind=deliveries\n#nodes=91\nsrc,dst,packets,t_arrive,t_first,t_done\n1,2,1,5,4,9\n' \
		"line 4: inconsistent message delivery times"
	csv_fails '#kind=deliveries\n#nodes=91\nsrc,dst,packets,t_done\n1,95,1,9\n' \
		"line 4: node 95 out of range (91 nodes)"
	csv_fails '#kind=utilization\nscope,busy,refused\n5,1,0\n' \
		"line 3: bad utilization record (scope 5)"
	csv_fails '#kind=utilization\nscope,busy,refused\n0,1,2\n' \
		"line 3: refused time exceeds busy time"
	# --set nodes applies to the fixture's rows too.
	run --separate-stderr mpcat -C -s nodes=90 "$D/msgs.csv"
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: $D/msgs.csv: line 2: destination 90 out of range (90 nodes)" ]
}

@test "a failed conversion never leaves a complete-looking stream in a pipe" {
	printf 'src,dst,packets,time\n1,2,1,5\n1,3,1,4\n' > c.csv
	run --separate-stderr bash -c 'mpcat -C c.csv 2>/dev/null | mpcat -n'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "mpcat: stdin: "* ]]
}

@test "CSV with CRLF line ends, blank lines, notes, spaces and quotes" {
	printf 'src,dst,packets,time\r\n\r\n1,2,1,5\r\n  3 , "4" ,1,6\r\n# a note\r\n5,6,"1",7' > c.csv
	run --separate-stderr mpcat -C c.csv -o c.mps
	[ "$status" -eq 0 ]
	# No id column: ids in row order.
	[ "$(mpcat -c c.mps | sed 1d)" = "0,0,0,1,2,1,0,5,0,0
0,0,0,3,4,1,1,6,0,0
0,0,0,5,6,1,2,7,0,0" ]
}

@test "unreadable, empty, foreign and newer inputs: exit 1, located" {
	run --separate-stderr mpcat -c nosuch.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: nosuch.mps: No such file or directory" ]
	: > e.mps
	run --separate-stderr mpcat -c e.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: e.mps: empty input: no stream header" ]
	run --separate-stderr mpcat -n < /dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: stdin: empty input: no stream header" ]
	run --separate-stderr mpcat -c "$D/msgs.csv"
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: $D/msgs.csv: not a meshpipe stream (bad magic)" ]
	# Major version 2 (bytes 4-5).
	perl -e 'local $/; $s = <STDIN>; substr($s, 4, 2) = pack("v", 2); print $s' < r.mps > v2.mps
	run --separate-stderr mpcat -c v2.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: v2.mps: stream format version 2.1 is newer than this program's 1.1: upgrade meshpipe to read it" ]
	# A changed trailer count.
	perl -e 'local $/; $s = <STDIN>; substr($s, -56, 1) = chr(6); print $s' < r.mps > t.mps
	run --separate-stderr mpcat -n t.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: t.mps: record 6: trailer says 6 msg records, read 5" ]
}

@test "torture: every truncated prefix gives exit 1 and one located line" {
	for s in r.mps z.mps; do
		size=$(wc -c < $s)
		n=0
		while [ $n -lt $size ]; do
			head -c $n $s > p.mps
			st=0
			mpcat -c p.mps > /dev/null 2> err || st=$?
			if [ $st -ne 1 ] || [ "$(wc -l < err)" -ne 1 ] ||
			   [[ "$(cat err)" != "mpcat: p.mps: "* ]]; then
				echo "$s: prefix of $n bytes: status $st: $(cat err)"
				return 1
			fi
			n=$((n + 1))
		done
	done
}

@test "torture: every flipped header byte gives exit 1 and one located line" {
	hlen=$(perl -e 'read STDIN, $b, 16; print 24 + unpack("V", substr($b, 12, 4))' < r.mps)
	[ "$hlen" -gt 24 ]
	perl -e 'local $/; $s = <STDIN>;
		for $k (0 .. $ARGV[0] - 1) {
			$c = $s;
			substr($c, $k, 1) = chr(ord(substr($c, $k, 1)) ^ 0xff);
			open O, ">", "f.$k" or die; print O $c; close O;
		}' "$hlen" < r.mps
	k=0
	while [ $k -lt "$hlen" ]; do
		st=0
		mpcat -c f.$k > /dev/null 2> err || st=$?
		if [ $st -ne 1 ] || [ "$(wc -l < err)" -ne 1 ] ||
		   [[ "$(cat err)" != "mpcat: f.$k: "* ]]; then
			echo "byte $k flipped: status $st: $(cat err)"
			return 1
		fi
		k=$((k + 1))
	done
}

@test "write errors: /dev/full and a closed pipe give exit 1 and a message" {
	for cmd in "mpcat -c z.mps" "mpcat -H z.mps" "mpcat -n z.mps" \
		"mpcat r.mps" "mpcat --raw z.mps" "mpcat -C $D/msgs.csv" \
		"mpcat -C --raw $D/msgs.csv"; do
		run --separate-stderr bash -c "$cmd > /dev/full"
		[ "$status" -eq 1 ] || { echo "$cmd: status $status"; return 1; }
		[ "$stderr" = "mpcat: stdout: write failed: No space left on device" ]
		# A closed pipe: killed by SIGPIPE, quietly, as any writer.
		run --separate-stderr perl -e 'pipe(R, W) or die; close R;
			open(STDOUT, ">&W") or die; close W; exec @ARGV' $cmd
		[ "$status" -eq 141 ] || { echo "$cmd: status $status"; return 1; }
		[ "$stderr" = "" ]
	done
	run --separate-stderr mpcat -c -o /dev/full z.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: /dev/full: write failed: No space left on device" ]
	run --separate-stderr mpcat -c -o nodir/x.csv z.mps
	[ "$status" -eq 1 ]
	[ "$stderr" = "mpcat: nodir/x.csv: No such file or directory" ]
}
