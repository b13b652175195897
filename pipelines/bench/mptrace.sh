#!/bin/sh
# mptrace's overhead (issue 24): tests/mpi/stencil (-w 0, 8-byte
# messages, so the steps are all MPI) on 1 rank (a singleton, its
# messages to itself: the tracer's own cost, no waiting on another rank)
# and on 2 ranks (the machine's cores), alternately without and with
# mptrace, BENCH_RUNS times each. From rank
# 0's time in the steps' loop (MPI_Wtime, printed by the program): the
# time added per MPI call, (traced - plain) / calls, medians of the
# runs; the whole run's elapsed time (start-up and the archive's writing
# at MPI_Finalize included); the trace's bytes and events per call; and
# rank 0's peak RSS at two run lengths with a 1 MB buffer, which stays
# flat when the buffer is flushed to disk. A benchmark: it prints, it
# judges nothing.
#
# Variables: BENCH_RUNS (default 5), MPT_STEPS (default 20000).
cd "$(dirname "$0")/../.." || exit 1
PATH="$PWD/tools/mptrace:$PWD/tools:$PATH"
export PATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

runs=${BENCH_RUNS:-5}
steps=${MPT_STEPS:-20000}
stencil=tests/mpi/stencil
echo "== mptrace: time and bytes per recorded MPI call"
if ! command -v mpirun >/dev/null 2>&1 || [ ! -f tools/mptrace/libmptrace.so ] ||
    [ ! -x "$stencil" ]; then
	echo "skipped: needs MPI, tools/mptrace/libmptrace.so and $stencil (make deps; make all mpi-tests)"
	exit 0
fi
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"
mpirun="mpirun"
[ "$(id -u)" = 0 ] && mpirun="$mpirun --allow-run-as-root"
# Copies, so that a rebuild of the tree during the run changes nothing.
mkdir "$tmp/bin"
cp tools/mptrace/mptrace tools/mptrace/libmptrace.so "$stencil" "$tmp/bin/"
prog="$tmp/bin/stencil -n $steps -b 8 -w 0 -T"
# Calls per rank in the loop: 2 MPI_Sendrecv, 2 MPI_Irecv, 2 MPI_Isend,
# MPI_Waitall, MPI_Allreduce per step.
calls=$((8 * steps))

# one LOG [mptrace args]: a run on $np ranks (1: the program alone, a
# singleton); appends "loop elapsed peak_kB" to LOG.
one() {
	log=$1
	shift
	launch="$mpirun -np $np"
	[ "$np" = 1 ] && launch=
	t0=$(date +%s%N)
	if [ $# -gt 0 ]; then
		rm -rf "$tmp/a"
		"$tmp/bin/mptrace" "$@" -o "$tmp/a" -- $launch $prog >"$tmp/out" 2>"$tmp/err" || {
			cat "$tmp/err" >&2
			exit 1
		}
	else
		$launch $prog >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	fi
	t1=$(date +%s%N)
	awk -v e=$(( (t1 - t0) / 1000 )) '
		/^stencil: loop / { l = $3 }
		/^stencil: peak RSS/ { r = $4 }
		END { printf "%s %.6f %s\n", l, e / 1e6, r }' "$tmp/out" >>"$log"
}

# med LOG COLUMN: "median min max" of a column.
med() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      print m, v[1], v[NR] }'
}

for np in 1 2; do
: >"$tmp/plain"
: >"$tmp/traced"
r=1
while [ $r -le "$runs" ]; do
	one "$tmp/plain"
	one "$tmp/traced" -f
	r=$((r + 1))
done
ev=$(sed -n 's/^events: //p' "$tmp/a/mptrace.txt")
by=$(sed -n 's/^bytes: //p' "$tmp/a/mptrace.txt")
all=$(awk '/^calls: / { s += $3 } END { print s }' "$tmp/a/mptrace.txt")
echo
if [ "$np" = 1 ]; then
	echo "  1 rank: $stencil -n $steps -b 8 -w 0 -T, and mptrace -o a -- the same"
else
	echo "  2 ranks: $mpirun -np 2 $stencil -n $steps -b 8 -w 0 -T, and mptrace -o a -- the same"
fi
echo "  $calls MPI calls per rank in the loop; medians of $runs runs each, alternating, (min..max)"
set -- $(med "$tmp/plain" 1)
pl=$1
printf '    loop, plain:            %.4f s (%.4f..%.4f)\n' "$1" "$2" "$3"
set -- $(med "$tmp/traced" 1)
tr=$1
printf '    loop, traced:           %.4f s (%.4f..%.4f)\n' "$1" "$2" "$3"
awk -v p="$pl" -v t="$tr" -v c="$calls" 'BEGIN {
	printf "    added per MPI call:     %.0f ns (plain %.0f ns per call; traced/plain %.2f)\n",
		(t - p) / c * 1e9, p / c * 1e9, t / p }'
set -- $(med "$tmp/plain" 2)
printf '    whole run, plain:       %.3f s (%.3f..%.3f)\n' "$1" "$2" "$3"
set -- $(med "$tmp/traced" 2)
printf '    whole run, traced:      %.3f s (%.3f..%.3f)\n' "$1" "$2" "$3"
awk -v e="$ev" -v b="$by" -v a="$all" 'BEGIN {
	printf "    trace: %d calls, %d events, %d bytes: %.2f events and %.1f bytes per call\n",
		a, e, b, e / a, b / a }'
done

# Memory: a 1 MB buffer per rank, the run and four times as long.
echo
echo "  rank 0's peak RSS (VmHWM), 2 ranks, mptrace -b 1M:"
np=2
for n in "$steps" $((4 * steps)); do
	: >"$tmp/mem"
	prog="$tmp/bin/stencil -n $n -b 8 -w 0 -T"
	one "$tmp/mem" -f -b 1M
	: >"$tmp/memp"
	one "$tmp/memp"
	f=$(sed -n 's/^flushes: //p' "$tmp/a/mptrace.txt")
	printf '    %7d steps: %s kB traced (%s buffer flushes), %s kB plain\n' "$n" \
	    "$(awk '{ print $3 }' "$tmp/mem")" "$f" "$(awk '{ print $3 }' "$tmp/memp")"
done
