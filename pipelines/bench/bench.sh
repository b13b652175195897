#!/bin/sh
# make bench: speed and memory figures of the toolchain.  netrun on the
# reference configurations (packet-hops, messages and events per second,
# peak RSS), instructions per packet-hop under callgrind, each pipeline
# stage alone and the whole pipeline in records per second, compressed and
# raw, and peak RSS against trace length.  A benchmark, not a test: it
# prints medians and spreads and judges nothing.
#
# Variables: BENCH_RUNS (timed runs per figure, default 5), BENCH_N_SCALE
# (multiplies the trace lengths after calibration, default 1), BENCH_BIG=0
# (leaves 10^7 messages out of the memory figures: minutes), BENCH_CALLGRIND=0
# (skips the callgrind figures).
cd "$(dirname "$0")/../.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
. pipelines/bench/common.sh

runs=${BENCH_RUNS:-5}
scale=${BENCH_N_SCALE:-1}
big=${BENCH_BIG:-1}
use_cg=${BENCH_CALLGRIND:-1}
case $runs in
'' | *[!0-9]*) echo "bench: BENCH_RUNS must be a positive integer" >&2; exit 2 ;;
esac
[ "$runs" -ge 1 ] || { echo "bench: BENCH_RUNS must be at least 1" >&2; exit 2; }
awk -v s="$scale" 'BEGIN { exit !(s + 0 > 0) }' ||
    { echo "bench: BENCH_N_SCALE must be a positive number" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs GNU time as /usr/bin/time" >&2; exit 1; }
freeze_tools wlgen sched netrun lstat mpcat swsim || exit 1

# newn N SECONDS MIN TARGET CAP: N, or when a run of N took less than MIN
# seconds, N scaled up to take about TARGET seconds (at most 100 times, at
# most CAP); then times BENCH_N_SCALE, at least 100.  The seconds are CPU
# seconds, which other work on the machine inflates less than elapsed
# time.
newn() {
	awk -v n="$1" -v e="$2" -v lo="$3" -v t="$4" -v cap="$5" -v s="$scale" '
	BEGIN {
		if (e < lo) {
			f = t / (e > 0.001 ? e : 0.001)
			if (f > 100) f = 100
			n = int(n * f / 1000 + 0.999) * 1000
			if (n > cap) n = cap
		}
		n = int(n * s)
		print (n < 100 ? 100 : n)
	}'
}

# last_cpu LOG: the CPU seconds of the last run logged in LOG.
last_cpu() {
	tail -n 1 "$1" | awk '{ print $3 }'
}

# table: print the rows of $tmp/table, "|"-separated, as aligned columns
# (first column left-aligned, the others right-aligned), then empty it.
table() {
	awk -F'|' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
	  if (NF > nf) nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			line = sprintf("%-" w[1] "s", c[r, 1])
			for (i = 2; i <= nf; i++) line = line sprintf("  %" w[i] "s", c[r, i])
			print line
		}
	}' "$tmp/table"
	: >"$tmp/table"
}

# section TITLE: a section heading with the load average of the moment.
section() {
	echo
	echo "== $1"
	echo "(load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
}

now() {
	date -u '+%Y-%m-%d %H:%M UTC'
}

echo "meshpipe benchmark, $(now)"
echo
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
mem=$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
echo "machine: $(nproc) cores${cpu:+, $cpu}${mem:+, $mem}; $(uname -sr)"
if git rev-parse --git-dir >/dev/null 2>&1; then
	rev=$(git rev-parse --short HEAD)
	if [ -n "$(git status --porcelain -- lib tools Makefile 2>/dev/null)" ]; then
		rev="$rev + uncommitted changes in lib/, tools/ or Makefile"
	fi
	echo "build: $rev"
fi
echo "compiler flags of the build: ${build_flags:-unknown}"
case $build_flags in
*sanitize* | *-pg* | *coverage* | *profile* | *-O0*)
	echo "WARNING: an instrumented or unoptimized build; these figures do not"
	echo "measure the programs as shipped (rebuild with plain make)." ;;
esac
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "runs per figure: $runs; BENCH_N_SCALE=$scale; BENCH_BIG=$big"
echo
echo "The machine may be shared and noisy: every timed figure is the median"
echo "of $runs runs with the min..max spread in brackets; compare figures from"
echo "one report, and ratios only where both sides were measured here."
echo "Elapsed time is wall-clock time (date +%s%N around the run); peak RSS"
echo "is GNU time's maximum resident set size.  Trace lengths are calibrated"
echo "so that each run takes about a second of CPU time (see the messages"
echo "columns)."
echo "The programs of tools/ are copied aside at the start, so that a rebuild"
echo "of the tree during the run does not change what is measured."

# ---------------------------------------------------------------------------
section "1. netrun on the reference configurations"
echo
echo "Input: a raw message stream made once per configuration by wlgen;"
echo "netrun writes raw output to /dev/null (the simulator's speed: what the"
echo "compressed writer adds is measured in sections 2 and 3), with -k so a"
echo "saturated run goes on to the end and -v for the counts.  Commands:"
echo
i=1
while ref_config $i; do
	progress "netrun: $name: calibrating"
	n=$base_n
	wlgen $wargs -n "$n" --seed 1 --raw -o "$tmp/$name.raw" || exit 1
	: >"$tmp/cal.t"
	timed "$tmp/cal.t" netrun $nargs -k --raw -o /dev/null "$tmp/$name.raw" 2>/dev/null
	n2=$(newn "$n" "$(last_cpu "$tmp/cal.t")" 0.5 1.2 10000000)
	if [ "$n2" != "$n" ]; then
		n=$n2
		wlgen $wargs -n "$n" --seed 1 --raw -o "$tmp/$name.raw" || exit 1
	fi
	# One untimed run keeps the deliveries stream for the run status.
	netrun $nargs -k --raw -o "$tmp/trial.out" "$tmp/$name.raw" 2>/dev/null
	status=$(run_status "$tmp/trial.out")
	rm -f "$tmp/trial.out"
	printf '  %-22s netrun %s -k -v --raw -o /dev/null w.raw\n' "$name" "$nargs"
	printf '  %-22s   (w.raw: wlgen %s -n %s --seed 1 --raw)\n' "" "$wargs" "$n"
	: >"$tmp/$name.t"
	fail=
	r=1
	while [ $r -le "$runs" ]; do
		progress "netrun: $name: run $r of $runs ($n messages)"
		timed "$tmp/$name.t" netrun $nargs -k -v --raw -o /dev/null \
		    "$tmp/$name.raw" 2>"$tmp/$name.err" || fail=" (exit $?)"
		r=$((r + 1))
	done
	set -- $(netrun_counts "$tmp/$name.err")
	msgs=${1:-0} pkts=${2:-0} hops=${3:-0} events=${4:-0} refusals=${5:-0}
	echo "$name $n $msgs $pkts $hops $events $refusals $status$fail" >>"$tmp/ref.rows"
	rm -f "$tmp/$name.raw"
	i=$((i + 1))
done
echo
echo "config|messages|packets|packet-hops|hops/packet|events/hop|refusals/hop|status" >"$tmp/table"
while read -r name n msgs pkts hops events refusals status; do
	awk -v a="$name" -v m="$msgs" -v p="$pkts" -v h="$hops" -v e="$events" \
	    -v r="$refusals" -v s="$status" 'BEGIN {
		hh = h > 0 ? h : 1; pp = p > 0 ? p : 1
		printf "%s|%d|%d|%d|%.2f|%.2f|%.2f|%s\n", a, m, p, h, h / pp,
		    e / hh, r / hh, s }' >>"$tmp/table"
done <"$tmp/ref.rows"
table
echo
echo "config|elapsed s|M packet-hops/s|k messages/s|peak RSS MB|CPU s|M hops/CPU-s" >"$tmp/table"
while read -r name n msgs pkts hops events refusals status; do
	el=$(spread "$(stats "$tmp/$name.t" 1)" 1 %.3f)
	hs=$(spread "$(rates "$tmp/$name.t" "$hops")" 1e6 %.2f)
	ms=$(spread "$(rates "$tmp/$name.t" "$msgs")" 1e3 %.1f)
	rss=$(spread "$(stats "$tmp/$name.t" 2)" 1024 %.1f)
	cpu=$(spread "$(stats "$tmp/$name.t" 3)" 1 %.2f)
	hc=$(rates "$tmp/$name.t" "$hops" 3 | awk '{ printf "%.2f", $1 / 1e6 }')
	echo "$name|$el|$hs|$ms|$rss|$cpu|$hc" >>"$tmp/table"
	echo "$(stats "$tmp/$name.t" 1) $(stats "$tmp/$name.t" 3)" >"$tmp/$name.med"
done <"$tmp/ref.rows"
table
echo
echo "Packet-hops are link traversals (injection and ejection not counted);"
echo "events are netrun's event-queue events; refusals are refused attempts"
echo "(each one costs events but moves nothing).  On the torus every message"
echo "is one packet.  CPU s is user plus system time (10 ms steps): less"
echo "sensitive than elapsed time to other work on the machine."
echo "ncube-11-B5-saturated is the synchronous model (netrun --model ncube):"
echo "its packet-hops are moves out of a FIFO, the last one into the sink (11"
echo "per packet), its events the units simulated and the sources' arrivals,"
echo "and its refusals offers refused by a full FIFO or a sink."

# ---------------------------------------------------------------------------
section "2. Instructions per packet-hop (callgrind)"
echo
if [ "$use_cg" = 0 ]; then
	echo "skipped (BENCH_CALLGRIND=0)"
elif ! command -v valgrind >/dev/null 2>&1; then
	echo "skipped: valgrind is not installed (Debian package valgrind)"
	use_cg=0
else
	echo "valgrind --tool=callgrind on a shorter run of each configuration:"
	echo "all instructions executed (Ir, the program's and libraries', start-up"
	echo "included) over the packet-hops of that run: the same input gives the"
	echo "same count to within a few thousand instructions, whatever the load of"
	echo "the machine.  zstd/hop: the part spent in libzstd compressing the"
	echo "output stream (default output); without zstd: the simulator and the"
	echo "rest of the program.  Commands:"
	echo
	echo "  valgrind --tool=callgrind netrun ARGS -k -v -o /dev/null w.raw"
	echo "  (w.raw: wlgen ARGS -n MESSAGES --seed 1 --raw, ARGS as in section 1)"
	echo
	echo "config|messages|packet-hops|instructions|instructions/hop|of which zstd/hop|without zstd/hop" >"$tmp/table"
	i=1
	while ref_config $i; do
		progress "callgrind: $name ($cg_n messages)"
		wlgen $wargs -n "$cg_n" --seed 1 --raw -o "$tmp/cg.raw" || exit 1
		if set -- $(callgrind "$tmp/cg.$i.out" "$tmp/cg.raw" $nargs) &&
		    [ $# -eq 2 ]; then
			z=$(cg_lib "$tmp/cg.$i.out" libzstd)
			echo "$1 $2 $z" >"$tmp/cg.$i.fig"
			awk -v a="$name" -v m="$cg_n" -v ir="$1" -v h="$2" -v z="$z" 'BEGIN {
				printf "%s|%d|%d|%.0f|%.0f|%.0f|%.0f\n", a, m, h, ir, ir / h, z / h, (ir - z) / h }' >>"$tmp/table"
		else
			echo "$name|$cg_n|-|-|failed|-|-" >>"$tmp/table"
		fi
		i=$((i + 1))
	done
	table
fi

# ---------------------------------------------------------------------------
section "3. Pipeline stages alone, compressed and raw"
echo
pw="--preset po2 --long 10 --load 0.5"
pn="--preset po2 --route derouting"
echo "The default pipeline (PO2 E6, 10% long, load 0.5, alpha 8, derouting),"
echo "one stage at a time from a file to /dev/null.  compressed: zstd input"
echo "and output (the default); raw: raw input and --raw output.  The two are"
echo "run alternately.  Records: messages for wlgen and sched, records"
echo "written (pkt, dlv, util, run) for netrun, records read for lstat."
echo "comp/raw: compressed over raw throughput, the median over pairs of"
echo "runs, by elapsed time and by CPU time."
echo "Commands (N as in the table; lstat reads K concatenated copies of one"
echo "run's deliveries):"
echo
echo "  wlgen  $pw -n N --seed 1 [--raw] -o /dev/null"
echo "  sched  --alpha 8 [--raw] -o /dev/null w.{mps,raw}"
echo "  netrun $pn [--raw] -o /dev/null s.{mps,raw}"
echo "  lstat  d.{mps,raw} >/dev/null"
echo

# stage TAG N RECORDS COMP-CMD RAW-CMD: time the two commands alternately
# and add a row to the table.
# alternate LABEL A.t B.t CMD-A CMD-B: run the two commands $runs times
# each, alternately, their timings into A.t and B.t; then write to
# $tmp/pairs, per pair of runs, B's time over A's (elapsed, CPU): the
# throughput of A relative to B.
alternate() {
	: >"$2"
	: >"$3"
	_r=1
	while [ $_r -le "$runs" ]; do
		progress "$1: run $_r of $runs"
		timed "$2" sh -c "$4" || echo "bench: failed: $4" >&2
		timed "$3" sh -c "$5" || echo "bench: failed: $5" >&2
		_r=$((_r + 1))
	done
	paste "$2" "$3" |
	    awk '{ print $4 / ($1 > 0 ? $1 : 1e-9), ($3 > 0 ? $6 / $3 : 0) }' >"$tmp/pairs"
}

stage() {
	alternate "$1" "$tmp/$1.comp.t" "$tmp/$1.raw.t" "$4" "$5"
	_c=$(rates "$tmp/$1.comp.t" "$3")
	_w=$(rates "$tmp/$1.raw.t" "$3")
	_re=$(stats "$tmp/pairs" 1 | awk '{ printf "%.2f", $1 }')
	_rc=$(stats "$tmp/pairs" 2 | awk '{ printf "%.2f", $1 }')
	echo "$1|$2|$3|$(spread "$_c" 1e6 %.2f)|$(spread "$_w" 1e6 %.2f)|$_re|$_rc|$(spread "$(stats "$tmp/$1.comp.t" 2)" 1024 %.1f)|$(spread "$(stats "$tmp/$1.raw.t" 2)" 1024 %.1f)" >>"$tmp/table"
}

echo "stage|messages|records|compressed M rec/s|raw M rec/s|comp/raw|by CPU|RSS MB comp|RSS MB raw" >"$tmp/table"

# pair_factor COMP-CMD RAW-CMD: after one run of each, by how much the
# input must grow for the raw run to take about 0.3 CPU seconds or the
# compressed one 1.5, whichever comes first (raw runs are much faster: they
# set the resolution, the compressed ones the time the bench takes); 1
# when that is less than 1.5, at most 100.
pair_factor() {
	: >"$tmp/cal.c"
	: >"$tmp/cal.r"
	timed "$tmp/cal.c" sh -c "$1"
	timed "$tmp/cal.r" sh -c "$2"
	awk -v c="$(last_cpu "$tmp/cal.c")" -v r="$(last_cpu "$tmp/cal.r")" 'BEGIN {
		fr = 0.3 / (r > 0.005 ? r : 0.005); fc = 1.5 / (c > 0.005 ? c : 0.005)
		f = fr < fc ? fr : fc
		print (f < 1.5 ? 1 : f > 100 ? 100 : f) }'
}

# scale_n N FACTOR CAP: N times FACTOR (rounded up to thousands when
# FACTOR > 1, at most CAP), times BENCH_N_SCALE, at least 100.
scale_n() {
	awk -v n="$1" -v f="$2" -v cap="$3" -v s="$scale" 'BEGIN {
		if (f > 1) n = int(n * f / 1000 + 0.999) * 1000
		if (n > cap) n = cap
		n = int(n * s)
		print (n < 100 ? 100 : n) }'
}

# wlgen
progress "wlgen: calibrating"
n=1000000
f=$(pair_factor "wlgen $pw -n $n --seed 1 -o /dev/null" \
    "wlgen $pw -n $n --seed 1 --raw -o /dev/null")
n=$(scale_n $n "$f" 50000000)
stage wlgen "$n" "$n" "wlgen $pw -n $n --seed 1 -o /dev/null" \
    "wlgen $pw -n $n --seed 1 --raw -o /dev/null"

# sched
progress "sched: calibrating"
n=1000000
wlgen $pw -n $n --seed 1 --raw -o "$tmp/w.raw"
mpcat -o "$tmp/w.mps" "$tmp/w.raw"
f=$(pair_factor "sched --alpha 8 -o /dev/null $tmp/w.mps" \
    "sched --alpha 8 --raw -o /dev/null $tmp/w.raw")
n2=$(scale_n $n "$f" 50000000)
if [ "$n2" != "$n" ]; then
	n=$n2
	wlgen $pw -n $n --seed 1 --raw -o "$tmp/w.raw"
	mpcat -o "$tmp/w.mps" "$tmp/w.raw"
fi
stage sched "$n" "$n" "sched --alpha 8 -o /dev/null $tmp/w.mps" \
    "sched --alpha 8 --raw -o /dev/null $tmp/w.raw"
rm -f "$tmp/w.raw" "$tmp/w.mps"

# netrun
progress "netrun: calibrating"
n=50000
wlgen $pw -n $n --seed 1 | sched --alpha 8 --raw -o "$tmp/s.raw"
mpcat -o "$tmp/s.mps" "$tmp/s.raw"
f=$(pair_factor "netrun $pn -o /dev/null $tmp/s.mps" \
    "netrun $pn --raw -o /dev/null $tmp/s.raw")
n2=$(scale_n $n "$f" 10000000)
if [ "$n2" != "$n" ]; then
	n=$n2
	wlgen $pw -n $n --seed 1 | sched --alpha 8 --raw -o "$tmp/s.raw"
	mpcat -o "$tmp/s.mps" "$tmp/s.raw"
fi
netrun $pn --raw -o "$tmp/d.raw" "$tmp/s.raw"
recs=$(count_records "$tmp/d.raw")
stage netrun "$n" "$recs" "netrun $pn -o /dev/null $tmp/s.mps" \
    "netrun $pn --raw -o /dev/null $tmp/s.raw"
rm -f "$tmp/s.raw" "$tmp/s.mps"

# lstat: K copies of the deliveries of $n messages.
progress "lstat: calibrating"
mv "$tmp/d.raw" "$tmp/d1.raw"
mpcat -o "$tmp/d1.mps" "$tmp/d1.raw"
f=$(pair_factor "lstat $tmp/d1.mps >/dev/null" "lstat $tmp/d1.raw >/dev/null")
k=$(awk -v f="$f" -v s="$scale" 'BEGIN { k = int(f * s + 0.5); print (k < 1 ? 1 : k) }')
: >"$tmp/d.raw"
: >"$tmp/d.mps"
j=0
while [ $j -lt "$k" ]; do
	cat "$tmp/d1.raw" >>"$tmp/d.raw"
	cat "$tmp/d1.mps" >>"$tmp/d.mps"
	j=$((j + 1))
done
rm -f "$tmp/d1.raw" "$tmp/d1.mps"
recs=$(count_records "$tmp/d.raw")
stage lstat "$((n * k))" "$recs" "lstat $tmp/d.mps >/dev/null" \
    "lstat $tmp/d.raw >/dev/null"
rm -f "$tmp/d.raw" "$tmp/d.mps"
table
echo
echo "(lstat: K = $k copies of the deliveries of $n messages.)"

# ---------------------------------------------------------------------------
section "4. The whole pipeline, compressed and raw"
echo
e2e_c="wlgen $pw -n N --seed 1 | sched --alpha 8 | netrun $pn | lstat"
e2e_r="wlgen $pw -n N --seed 1 --raw | sched --alpha 8 --raw | netrun $pn --raw | lstat"
progress "pipeline: calibrating"
n=100000
: >"$tmp/cal.t"
timed "$tmp/cal.t" sh -c "$(echo "$e2e_r" | sed "s/-n N/-n $n/") >/dev/null"
n=$(newn $n "$(last_cpu "$tmp/cal.t")" 0.5 1.2 10000000)
c=$(echo "$e2e_c" | sed "s/-n N/-n $n/")
w=$(echo "$e2e_r" | sed "s/-n N/-n $n/")
echo "Run alternately, $runs times each, N = $n messages, to /dev/null:"
echo
echo "  compressed: $c"
echo "  raw:        $w"
echo
alternate pipeline "$tmp/e2e.c.t" "$tmp/e2e.r.t" "$c >/dev/null" "$w >/dev/null"
mv "$tmp/pairs" "$tmp/e2e.ratio"
echo "pipeline|elapsed s|k messages/s|CPU s, all stages" >"$tmp/table"
echo "compressed|$(spread "$(stats "$tmp/e2e.c.t" 1)" 1 %.3f)|$(spread "$(rates "$tmp/e2e.c.t" "$n")" 1e3 %.1f)|$(spread "$(stats "$tmp/e2e.c.t" 3)" 1 %.2f)" >>"$tmp/table"
echo "raw|$(spread "$(stats "$tmp/e2e.r.t" 1)" 1 %.3f)|$(spread "$(rates "$tmp/e2e.r.t" "$n")" 1e3 %.1f)|$(spread "$(stats "$tmp/e2e.r.t" 3)" 1 %.2f)" >>"$tmp/table"
table
e2e_ratio=$(stats "$tmp/e2e.ratio" 1)
e2e_cratio=$(stats "$tmp/e2e.ratio" 2)
echo
echo "compressed/raw throughput, per pair of runs: $(spread "$e2e_ratio" 1 %.3f)"
echo "the same by CPU time (all stages):            $(spread "$e2e_cratio" 1 %.3f)"

# ---------------------------------------------------------------------------
section "5. Peak RSS against trace length"
echo
sizes="100000 1000000"
[ "$big" = 1 ] && sizes="$sizes 10000000"
mw="$pw"
echo "PO2 E6, 10% long, load 0.5 (below saturation), derouting, streamed;"
echo "one run per length:"
echo
echo "  wlgen $mw -n N --seed 1 | netrun $pn | lstat --csv"
echo
echo "messages|netrun peak RSS MB|lstat peak RSS MB|netrun elapsed s|status" >"$tmp/table"
: >"$tmp/mem.rows"
for n in $sizes; do
	progress "memory: $n messages"
	wlgen $mw -n "$n" --seed 1 |
	    /usr/bin/time -o "$tmp/m.nr" -f '%e %M' netrun $pn |
	    /usr/bin/time -o "$tmp/m.ls" -f '%e %M' lstat --csv >"$tmp/m.csv"
	set -- $(tail -n 1 "$tmp/m.nr") $(tail -n 1 "$tmp/m.ls")
	st=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next }
	    $1 == "all" && c { s = $c } END { print (s == "" ? "failed" : s) }' "$tmp/m.csv")
	grep -q 'exited with non-zero' "$tmp/m.nr" "$tmp/m.ls" && st="$st (a stage failed)"
	echo "$n $2 $4" >>"$tmp/mem.rows"
	awk -v n="$n" -v a="$2" -v b="$4" -v e="$1" -v s="$st" 'BEGIN {
		printf "%d|%.1f|%.1f|%.2f|%s\n", n, a / 1024, b / 1024, e, s }' >>"$tmp/table"
done
table
[ "$big" = 1 ] || echo "(10^7 messages left out: BENCH_BIG=0.)"

# ---------------------------------------------------------------------------
if [ "$use_cg" != 0 ]; then
	section "6. Where the instructions go (callgrind, top 10 functions by own Ir)"
	for i in 8 6; do
		ref_config $i
		[ -f "$tmp/cg.$i.fig" ] || continue
		set -- $(cat "$tmp/cg.$i.fig")
		echo
		echo "$name ($cg_n messages, $2 packet-hops):"
		echo "      Ir/hop   share  function"
		cg_top "$tmp/cg.$i.out" "$2" 10
	done
fi

# ---------------------------------------------------------------------------
section "7. Against the targets of the speed issue"
echo
echo "Elapsed-time figures against the targets; per CPU second alongside."
echo "netrun's speeds are with raw output (section 1); its instruction"
echo "counts are given with the default compressed output and without the"
echo "compressor's share."
echo
echo "figure|measured|target|met|per CPU-s" >"$tmp/table"
ref_config 8
set -- $(cat "$tmp/$name.med")
tpk=$(awk -v n="$name" '$1 == n { print $4 }' "$tmp/ref.rows")
echo "$1 $4 $tpk" | awk '{ v = $3 / $1; c = $2 > 0 ? $3 / $2 : 0
	printf "torus: simulated packets/s|%.2f M|>= 1.3 M|%s|%.2f M\n", v / 1e6, (v >= 1.3e6 ? "yes" : "no"), c / 1e6 }' >>"$tmp/table"
if [ -f "$tmp/cg.8.fig" ]; then
	awk '{ v = $1 / $2; printf "torus: instructions/packet-hop, compressed output|%.0f|<= 500|%s|-\n", v, (v <= 500 ? "yes" : "no")
		v = ($1 - $3) / $2; printf "torus: instructions/packet-hop, without zstd|%.0f|<= 500|%s|-\n", v, (v <= 500 ? "yes" : "no") }' "$tmp/cg.8.fig" >>"$tmp/table"
fi
for i in 4 5 6; do
	ref_config $i
	set -- $(cat "$tmp/$name.med")
	h=$(awk -v n="$name" '$1 == n { print $5 }' "$tmp/ref.rows")
	echo "$1 $4 $h" | awk -v n="$name" '{ v = $3 / $1; c = $2 > 0 ? $3 / $2 : 0
		printf "%s: packet-hops/s|%.2f M|>= 5 M|%s|%.2f M\n", n, v / 1e6, (v >= 5e6 ? "yes" : "no"), c / 1e6 }' >>"$tmp/table"
done
awk '
	NR == 1 { a0 = $2; b0 = $3 }
	{ if ($2 > am) am = $2; if (am0 == "" || $2 < am0) am0 = $2
	  if ($3 > bm) bm = $3; if (bm0 == "" || $3 < bm0) bm0 = $3; last = $1 }
	END {
		printf "netrun peak RSS, largest/smallest (to %d messages)|%.3f|<= 1.10|%s|-\n", last, am / am0, (am / am0 <= 1.10 ? "yes" : "no")
		printf "lstat peak RSS, largest/smallest (to %d messages)|%.3f|<= 1.10|%s|-\n", last, bm / bm0, (bm / bm0 <= 1.10 ? "yes" : "no")
	}' "$tmp/mem.rows" >>"$tmp/table"
set -- $e2e_ratio $e2e_cratio
awk -v v="$1" -v c="$4" 'BEGIN { printf "pipeline compressed/raw throughput|%.3f|>= 0.85|%s|%.3f\n", v, (v >= 0.85 ? "yes" : "no"), c }' >>"$tmp/table"
table

# ---------------------------------------------------------------------------
section "8. swsim: simulated cycles per second"
echo
echo "The single switch of the 8-ary 3-cube (4 x 4, DAMQ, unbounded, 1-flit"
echo "packets) at load 0.5 flits per node per cycle, beyond the network's"
echo "saturation (bottleneck utilization 1.75: the link inputs are saturated"
echo "and the buffers grow), and at 0.2 (bottleneck 0.70).  Simulated cycles"
echo "are warm-up plus measured cycles, W = C/10; C is calibrated to about a"
echo "CPU second.  Commands:"
echo
echo "config|cycles simulated|elapsed s|M cycles/s|peak RSS MB|M cycles/CPU-s" >"$tmp/table"
for load in 0.5 0.2; do
	sargs="--topo kary:8,3 --buffer damq --load $load --packet-flits 1 --csv"
	progress "swsim: load $load: calibrating"
	c=200000
	: >"$tmp/cal.t"
	timed "$tmp/cal.t" swsim $sargs --cycles $c --warmup $((c / 10)) >/dev/null
	c=$(newn "$c" "$(last_cpu "$tmp/cal.t")" 0.5 1.2 1000000000)
	w=$((c / 10))
	printf '  swsim %s --cycles %s --warmup %s\n' "$sargs" "$c" "$w"
	: >"$tmp/sw.t"
	r=1
	while [ $r -le "$runs" ]; do
		progress "swsim: load $load: run $r of $runs"
		timed "$tmp/sw.t" swsim $sargs --cycles $c --warmup $w >/dev/null
		r=$((r + 1))
	done
	n=$((c + w))
	echo "kary:8,3 damq load $load|$n|$(spread "$(stats "$tmp/sw.t" 1)" 1 %.3f)|$(spread "$(rates "$tmp/sw.t" "$n")" 1e6 %.2f)|$(spread "$(stats "$tmp/sw.t" 2)" 1024 %.1f)|$(rates "$tmp/sw.t" "$n" 3 | awk '{ printf "%.2f", $1 / 1e6 }')" >>"$tmp/table"
done
echo
table

# ---------------------------------------------------------------------------
section "9. The flit model: flit link-hops per second"
echo
echo "netrun --model flit on SPEC 3.3's network: 8x8 torus, wormhole on 2"
echo "virtual channels of 16 flits, 16-flit packets, uniform destinations,"
echo "0.30 flits per node per cycle.  Flit link-hops are packet-hops (from"
echo "netrun -v) times 16.  Target: at least 10 M flit link-hops per CPU"
echo "second.  Commands:"
echo
fargs="--preset rs --vcs 2 --vc-buf 16"
n=40000
wlgen --preset rs --load 0.3 -n "$n" --seed 1 --raw -o "$tmp/flit.raw" || exit 1
: >"$tmp/cal.t"
timed "$tmp/cal.t" netrun $fargs -k --raw -o /dev/null "$tmp/flit.raw" 2>/dev/null
n2=$(newn "$n" "$(last_cpu "$tmp/cal.t")" 0.5 1.2 10000000)
if [ "$n2" != "$n" ]; then
	n=$n2
	wlgen --preset rs --load 0.3 -n "$n" --seed 1 --raw -o "$tmp/flit.raw" || exit 1
fi
printf '  netrun %s -k -v --raw -o /dev/null w.raw
' "$fargs"
printf '    (w.raw: wlgen --preset rs --load 0.3 -n %s --seed 1 --raw)
' "$n"
: >"$tmp/flit.t"
r=1
while [ $r -le "$runs" ]; do
	progress "netrun flit: run $r of $runs ($n messages)"
	timed "$tmp/flit.t" netrun $fargs -k -v --raw -o /dev/null \
	    "$tmp/flit.raw" 2>"$tmp/flit.err"
	r=$((r + 1))
done
set -- $(netrun_counts "$tmp/flit.err")
fh=$(( ${3:-0} * 16 ))
echo "config|messages|flit link-hops|elapsed s|M flit-hops/s|M flit-hops/CPU-s|peak RSS MB" >"$tmp/table"
echo "rs wormhole 2x16 0.30|$n|$fh|$(spread "$(stats "$tmp/flit.t" 1)" 1 %.3f)|$(spread "$(rates "$tmp/flit.t" "$fh")" 1e6 %.2f)|$(rates "$tmp/flit.t" "$fh" 3 | awk '{ printf "%.2f", $1 / 1e6 }')|$(spread "$(stats "$tmp/flit.t" 2)" 1024 %.1f)" >>"$tmp/table"
table
echo
echo "Peak RSS against run length (the same load, 4 times the messages):"
n4=$((n * 4))
wlgen --preset rs --load 0.3 -n "$n4" --seed 1 --raw -o "$tmp/flit4.raw" || exit 1
: >"$tmp/flit4.t"
timed "$tmp/flit4.t" netrun $fargs -k --raw -o /dev/null "$tmp/flit4.raw" 2>/dev/null
echo "messages|peak RSS MB" >"$tmp/table"
echo "$n|$(stats "$tmp/flit.t" 2 | awk '{ printf "%.1f", $1 / 1024 }')" >>"$tmp/table"
echo "$n4|$(stats "$tmp/flit4.t" 2 | awk '{ printf "%.1f", $1 / 1024 }')" >>"$tmp/table"
table
rm -f "$tmp/flit4.raw"
if [ "$use_cg" != 0 ]; then
	echo
	echo "Instructions per flit link-hop (callgrind, a run of $((n / 10)) messages):"
	wlgen --preset rs --load 0.3 -n $((n / 10)) --seed 1 --raw -o "$tmp/flitcg.raw" || exit 1
	set -- $(callgrind "$tmp/flit.cg" "$tmp/flitcg.raw" $fargs --raw)
	if [ -n "$2" ]; then
		awk -v ir="$1" -v h="$2" 'BEGIN { printf "  %d instructions / %d flit link-hops = %.0f per flit-hop\n", ir, h * 16, ir / (h * 16) }'
	else
		echo "  callgrind failed"
	fi
fi

# ---------------------------------------------------------------------------
section "10. The DAMQ network: packet-hops per CPU-second"
echo
echo "netrun --preset damq (flit model, DAMQ buffers, unbounded, virtual"
echo "cut-through): the unidirectional 8-ary 3-cube at 0.2 flits per node per"
echo "cycle (bottleneck utilization 0.70), packets of 1 and 8 flits; the"
echo "binary 8-cube (9-port routers, 162 input queues: bitmaps of 3 words) and"
echo "the 256-node omega of 4x4 switches (uniform over every output) at 0.5,"
echo "1-flit packets.  Packet-hops from netrun -v.  Commands:"
echo
echo "config|messages|packet-hops|elapsed s|M packet-hops/CPU-s|peak RSS MB" >"$tmp/dtable"
for cfg in kary:8,3/1/0.2 kary:8,3/8/0.2 kary:2,8/1/0.5 omega:4,4/1/0.5; do
	topo=${cfg%%/*} L=${cfg#*/} L=${L%/*} load=${cfg##*/}
	dest=
	case $topo in omega:*) dest="--dest any" ;; esac
	n=20000
	wl="--preset damq --topo $topo${dest:+ $dest} --load $load --packet-flits $L"
	wlgen $wl -n "$n" --seed 1 --raw -o "$tmp/damq.raw" || exit 1
	: >"$tmp/cal.t"
	timed "$tmp/cal.t" netrun --preset damq --topo $topo --packet-flits $L -k --raw -o /dev/null "$tmp/damq.raw" 2>/dev/null
	n2=$(newn "$n" "$(last_cpu "$tmp/cal.t")" 0.5 1.2 10000000)
	if [ "$n2" != "$n" ]; then
		n=$n2
		wlgen $wl -n "$n" --seed 1 --raw -o "$tmp/damq.raw" || exit 1
	fi
	printf '  netrun --preset damq --topo %s --packet-flits %s -k -v --raw -o /dev/null w.raw\n' "$topo" "$L"
	printf '    (w.raw: wlgen %s -n %s --seed 1 --raw)\n' "$wl" "$n"
	: >"$tmp/damq.t"
	r=1
	while [ $r -le "$runs" ]; do
		progress "netrun damq $topo L=$L: run $r of $runs ($n messages)"
		timed "$tmp/damq.t" netrun --preset damq --topo $topo --packet-flits $L -k -v --raw \
		    -o /dev/null "$tmp/damq.raw" 2>"$tmp/damq.err"
		r=$((r + 1))
	done
	set -- $(netrun_counts "$tmp/damq.err")
	ph=${3:-0}
	echo "$topo $L-flit $load|$n|$ph|$(spread "$(stats "$tmp/damq.t" 1)" 1 %.3f)|$(rates "$tmp/damq.t" "$ph" 3 | awk '{ printf "%.2f", $1 / 1e6 }')|$(spread "$(stats "$tmp/damq.t" 2)" 1024 %.1f)" >>"$tmp/dtable"
done
echo
mv "$tmp/dtable" "$tmp/table"
table
rm -f "$tmp/damq.raw"

echo
sh pipelines/bench/deps.sh

echo
sh pipelines/bench/mptrace.sh

echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); finished $(now)"
