# Shell functions shared by bench.sh and profile.sh (sourced, not run):
# the reference configurations, timing of one run, medians and spreads,
# and the callgrind figures.  The caller sets $tmp to a scratch directory.

# ref_config I: set name, wargs (wlgen), nargs (netrun), base_n (messages
# for a timed run, about a CPU second when this was written; bench.sh
# scales it up when netrun gets faster) and cg_n (messages for the
# callgrind run) for reference configuration I (1..ref_count).
ref_count=12
ref_config() {
	case $1 in
	1) name=po2-0.5-deterministic
	   wargs="--preset po2 --long 10 --load 0.5"
	   nargs="--preset po2 --route deterministic"
	   base_n=100000 cg_n=3000 ;;
	2) name=po2-0.5-best
	   wargs="--preset po2 --long 10 --load 0.5"
	   nargs="--preset po2 --route best"
	   base_n=100000 cg_n=3000 ;;
	3) name=po2-0.5-derouting
	   wargs="--preset po2 --long 10 --load 0.5"
	   nargs="--preset po2 --route derouting"
	   base_n=100000 cg_n=3000 ;;
	4) name=po2-0.9-deterministic
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route deterministic"
	   base_n=50000 cg_n=3000 ;;
	5) name=po2-0.9-best
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route best"
	   base_n=30000 cg_n=3000 ;;
	6) name=po2-0.9-derouting
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route derouting"
	   base_n=20000 cg_n=3000 ;;
	7) name=po2-E16-0.7-derouting
	   wargs="--preset po2 --size 16 --long 10 --load 0.7"
	   nargs="--preset po2 --size 16 --route derouting"
	   base_n=20000 cg_n=2000 ;;
	8) name=torus-8x8-0.30
	   wargs="--preset torus --size 8 --uniform --load 0.30"
	   nargs="--preset torus --size 8"
	   base_n=1000000 cg_n=20000 ;;
	# The saturated PO2 runs under the other retry rule: a refused
	# packet waits for the refusing node to change (netrun(1)).
	9) name=po2-0.9-det-notify
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route deterministic --retry notify"
	   base_n=50000 cg_n=3000 ;;
	10) name=po2-0.9-best-notify
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route best --retry notify"
	   base_n=50000 cg_n=3000 ;;
	11) name=po2-0.9-der-notify
	   wargs="--preset po2 --long 10 --load 0.9"
	   nargs="--preset po2 --route derouting --retry notify"
	   base_n=30000 cg_n=3000 ;;
	# Boughton's network (SPEC 3.4): 11 stages of 2x2 routers, 2048
	# inputs, FIFOs of 5, saturated model sources, which netrun's ncube
	# model generates from the stream's declaration (-n: messages).
	12) name=ncube-11-B5-saturated
	   wargs="--preset ncube --stages 11 --arrival model:1"
	   nargs="--preset ncube --stages 11 --fifo 5"
	   base_n=2000000 cg_n=100000 ;;
	*) return 1 ;;
	esac
}

# progress MSG...: a line on stderr when it is a terminal.
progress() {
	if [ -t 2 ]; then
		printf '  %s\n' "$*" >&2
	fi
}

# timed LOG CMD...: run CMD with the caller's redirections and append
# "elapsed_seconds peak_rss_kb cpu_seconds" to LOG.  Elapsed time is
# wall-clock time in nanoseconds from date(1) (GNU time's %e has 10 ms
# steps); peak RSS (%M) and CPU time, user plus system (%U + %S, of CMD
# and the children it waited for), come from GNU time.  Returns CMD's exit
# status.
timed() {
	_log=$1
	shift
	_t0=$(date +%s%N)
	/usr/bin/time -o "$tmp/time.out" -f '%M %U %S' "$@"
	_st=$?
	_t1=$(date +%s%N)
	printf '%s %s\n' "$((_t1 - _t0))" "$(tail -n 1 "$tmp/time.out")" |
	    awk '{ printf "%.6f %d %.2f\n", $1 / 1e9, $2, $3 + $4 }' >>"$_log"
	return $_st
}

# stats FILE COL [MUL]: "median min max" of column COL of FILE, each value
# multiplied by MUL (default 1).
stats() {
	awk -v c="$2" -v m="${3:-1}" '{ print $c * m }' "$1" | sort -g |
	    awk '{ v[NR] = $1 }
	    END {
		if (NR == 0) { print "- - -"; exit }
		med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.6g %.6g %.6g\n", med, v[1], v[NR]
	    }'
}

# rates FILE AMOUNT [COL]: "median min max" of AMOUNT / time over the runs
# logged in FILE, the time from column COL (default 1, elapsed; 3 is CPU).
rates() {
	awk -v a="$2" -v c="${3:-1}" '{ print a / ($c > 0 ? $c : 1e-9) }' \
	    "$1" >"$tmp/rates"
	stats "$tmp/rates" 1
}

# spread "MED MIN MAX" DIV FMT: "med (min..max)" with each value divided by
# DIV and printed with the printf format FMT.
spread() {
	echo "$1" | awk -v d="$2" -v f="$3" '{
		if ($1 == "-") { print "-"; exit }
		printf f " (" f ".." f ")\n", $1 / d, $2 / d, $3 / d }'
}

# netrun_counts FILE: from netrun -v's accounting line in FILE, print
# "messages packets hops events refusals".
netrun_counts() {
	sed -n 's/.*messages read \([0-9]*\) .*packets accepted \([0-9]*\) .*; \([0-9]*\) refusals; \([0-9]*\) packet-hops; \([0-9]*\) events.*/\1 \2 \4 \5 \3/p' \
	    "$1" | tail -n 1
}

# run_status DELIVERIES: the run status lstat reads from a deliveries
# stream (ok, saturated, deadlock, stopped), or "failed".
run_status() {
	lstat --csv "$1" 2>/dev/null | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next }
		$1 == "all" && c { s = $c }
		END { print (s == "" ? "failed" : s) }'
}

# count_records STREAM: the number of records of all kinds in STREAM.
count_records() {
	mpcat -n "$1" | awk '{ n += $2 } END { print n + 0 }'
}

# callgrind OUT INPUT NETRUN-ARGS...: run netrun under callgrind on INPUT,
# profile in OUT; print "total_Ir hops".  Returns 1 when valgrind fails.
callgrind() {
	_out=$1 _in=$2
	shift 2
	valgrind -q --tool=callgrind --callgrind-out-file="$_out" \
	    netrun "$@" -k -v -o /dev/null "$_in" 2>"$_out.err" || return 1
	_ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$_out" | head -n 1)
	[ -n "$_ir" ] || _ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$_out" |
	    head -n 1)
	set -- $(netrun_counts "$_out.err")
	[ -n "$_ir" ] && [ -n "$3" ] || return 1
	echo "$_ir $3"
}

# cg_top OUT HOPS [K]: the K (default 10) functions with the most
# instructions of their own in callgrind profile OUT, as Ir per packet-hop,
# share of the total and file:function with directories left out (code
# inlined from a header shows as header:function), the library in
# parentheses unless it is netrun itself.
cg_top() {
	callgrind_annotate --auto=no --threshold=100 --inclusive=no "$1" |
	    awk -v hops="$2" -v k="${3:-10}" '
		/PROGRAM TOTALS/ { gsub(/,/, "", $1); total = $1 }
		/file:function/ { on = 1; next }
		on && /^ *[0-9][0-9,]* / && n < k {
			ir = $1; gsub(/,/, "", ir)
			rest = $0; sub(/^[^)]*\) */, "", rest)
			split(rest, f, " ")
			fn = f[1]; sub(/^.*\//, "", fn)
			obj = f[2]; gsub(/[][]/, "", obj); sub(/^.*\//, "", obj)
			if (fn ~ /^\?\?\?/) { sub(/0x0*/, "0x", fn); fn = fn " (" obj ")" }
			else if (obj != "" && obj != "netrun") fn = fn " (" obj ")"
			printf "  %10.1f  %6.2f%%  %s\n", ir / hops, 100 * ir / total, fn
			sum += ir; n++
		}
		END {
			printf "  %10.1f  %6.2f%%  %s\n", (total - sum) / hops,
			    100 * (total - sum) / total, "(all other functions)"
			printf "  %10.1f  %6.2f%%  %s\n", total / hops, 100, "total"
		}'
}

# cachegrind OUT INPUT NETRUN-ARGS...: run netrun under cachegrind with
# its cache and branch-prediction simulation on INPUT (raw output, so that
# the figures are the simulator's), profile in OUT; print "hops".
# Returns 1 when valgrind fails.
cachegrind() {
	_out=$1 _in=$2
	shift 2
	valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes \
	    --cachegrind-out-file="$_out" \
	    netrun "$@" -k -v --raw -o /dev/null "$_in" 2>"$_out.err" || return 1
	set -- $(netrun_counts "$_out.err")
	[ -n "$3" ] || return 1
	echo "$3"
}

# cachegrind_top OUT HOPS [K]: per packet-hop, the totals of cachegrind
# profile OUT (instructions, first-level data cache misses, mispredicted
# branches), then the K (default 10) functions with the most misses and
# mispredictions together, named as in cg_top.
cachegrind_top() {
	cg_annotate --show=Ir,D1mr,D1mw,Bcm,Bim --auto=no "$1" |
	    sed 's/([^)]*%)//g' >"$1.txt" || return 1
	awk -v hops="$2" '
		function num(x) { gsub(/,/, "", x); return x == "." ? 0 : x + 0 }
		/PROGRAM TOTALS/ {
			printf "  per packet-hop: %.0f instructions, %.1f D1 misses, %.1f mispredicted branches\n",
			    num($1) / hops, (num($2) + num($3)) / hops,
			    (num($4) + num($5)) / hops
			exit
		}' "$1.txt"
	echo
	echo "      Ir/hop  D1 misses/hop  mispredicts/hop  function"
	awk -v hops="$2" '
		function num(x) { gsub(/,/, "", x); return x == "." ? 0 : x + 0 }
		/file:function/ { on = 1; next }
		on && NF >= 6 && $1 ~ /^[0-9][0-9,]*$/ {
			fn = $6; sub(/^.*\//, "", fn)
			m = num($2) + num($3); b = num($4) + num($5)
			printf "%d   %9.1f  %13.2f  %15.2f  %s\n", m + b,
			    num($1) / hops, m / hops, b / hops, fn
		}' "$1.txt" | sort -rn | head -n "${3:-10}" | cut -d' ' -f2-
}

# cg_lib OUT PATTERN: the instructions executed in objects (libraries)
# whose name matches PATTERN, in callgrind profile OUT.
cg_lib() {
	callgrind_annotate --auto=no --threshold=100 --inclusive=no "$1" |
	    awk -v p="$2" '
		/file:function/ { on = 1; next }
		on && /^ *[0-9][0-9,]* / && $NF ~ p { ir = $1; gsub(/,/, "", ir); s += ir }
		END { printf "%.0f\n", s }'
}

# freeze_tools PROG...: copy the named programs from tools/ to $tmp/bin and
# put that first in PATH, so that a rebuild of the shared tree during the
# run (other flags, other code) does not change the programs measured.
# Sets build_flags to the optimization and instrumentation flags of the
# build (from lib/.cflags), and warns when it is instrumented.
freeze_tools() {
	mkdir -p "$tmp/bin" || return 1
	for _p in "$@"; do
		[ -x "tools/$_p" ] || { echo "bench: tools/$_p not built (make)" >&2; return 1; }
		cp "tools/$_p" "$tmp/bin/" || return 1
	done
	PATH="$tmp/bin:$PATH"
	export PATH
	build_flags=$(grep -o -e '-O[0-9sgz]*' -e '-fsanitize=[^ ]*' -e '-pg' \
	    -e '--coverage' -e '-fprofile[^ ]*' lib/.cflags 2>/dev/null |
	    awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')
	case $build_flags in
	*sanitize* | *-pg* | *coverage* | *profile* | *-O0*)
		echo "${0##*/}: warning: tools/ is an instrumented or unoptimized build ($build_flags): rebuild with plain make for meaningful figures" >&2 ;;
	esac
	return 0
}
