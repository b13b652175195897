#!/bin/sh
# make soak: long runs near saturation. wlgen streams a PO2 workload
# (10% long messages) at a load just below saturation into netrun -k -v
# and lstat, for 10^5, 10^6 and 10^7 messages; the peak memory (RSS) of
# netrun and lstat must stay flat as the trace grows, and the counts must
# be conserved: every message read delivered, nothing in flight or
# queued at the end, and lstat reading what the run record says.
# Environment: SOAK_LOAD (default 0.75), SOAK_SIZES (default
# "100000 1000000 10000000"), SOAK_SEED (default 1).
cd "$(dirname "$0")/.." || exit 1
PATH="$PWD/tools:$PATH"
export PATH
load=${SOAK_LOAD:-0.75}
sizes=${SOAK_SIZES:-"100000 1000000 10000000"}
seed=${SOAK_SEED:-1}
if ! [ -x /usr/bin/time ]; then
	echo "soak: needs /usr/bin/time (apt-get install time)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Peak RSS in KiB from a /usr/bin/time -v report.
rss() {
	sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"
}

echo "soak: PO2 (E6), 10% long messages, load $load, seed $seed"
status=0
table=
for n in $sizes; do
	echo "soak: $n messages ..."
	start=$(date +%s)
	wlgen --preset po2 --long 10 --load "$load" -n "$n" --seed "$seed" |
		/usr/bin/time -v -o "$tmp/netrun.time" \
			netrun --preset po2 -k -v -q 2>"$tmp/netrun.err" |
		/usr/bin/time -v -o "$tmp/lstat.time" lstat >"$tmp/lstat.out" \
			2>"$tmp/lstat.err"
	wall=$(($(date +%s) - start))
	acc=$(grep '^netrun: accounting at ' "$tmp/netrun.err")
	counts=$(grep '^# counts: ' "$tmp/lstat.out")
	st=$(grep '^# status: ' "$tmp/lstat.out")
	if [ -z "$acc" ] || [ -z "$counts" ]; then
		echo "soak: $n: the pipeline failed:" >&2
		cat "$tmp/netrun.err" "$tmp/lstat.err" >&2
		exit 1
	fi
	# netrun: every message read delivered, nothing left anywhere.
	set -- $(echo "$acc" | sed 's/.*messages read \([0-9]*\) = delivered \([0-9]*\) + unfinished \([0-9]*\); packets accepted \([0-9]*\) = delivered \([0-9]*\) + in flight \([0-9]*\); \([0-9]*\) packets never.*/\1 \2 \3 \4 \5 \6 \7/')
	read_=$1 done_=$2 unf=$3 acc_p=$4 dlv_p=$5 fl=$6 q=$7
	ok=yes
	if [ "$read_" != "$n" ] || [ "$done_" != "$n" ] || [ "$unf" != 0 ] ||
	   [ "$acc_p" != "$dlv_p" ] || [ "$fl" != 0 ] || [ "$q" != 0 ]; then
		ok=no
	fi
	# lstat: it read what netrun delivered, as the run record says.
	want="# counts: $n messages and $dlv_p packets read; as the run record says ($n messages in, $acc_p packets injected, 0 in flight, 0 queued)"
	[ "$counts" = "$want" ] || ok=no
	[ $ok = yes ] || status=1
	nr=$(rss "$tmp/netrun.time")
	lr=$(rss "$tmp/lstat.time")
	echo "  $acc" | sed 's/; [0-9]* refusals.*//'
	echo "  lstat $counts"
	echo "  lstat $st"
	echo "  conserved: $ok; wall ${wall}s; peak RSS netrun ${nr} KiB, lstat ${lr} KiB"
	case $st in
	*SATURATED*) echo "  note: saturated at load $load: lower SOAK_LOAD" ;;
	esac
	table="$table$(printf '%12s %10s %12s %12s %10s' "$n" "${wall}s" \
		"$nr" "$lr" "$ok")
"
done
echo
echo "soak summary (load $load):"
printf '%12s %10s %12s %12s %10s\n' messages wall "netrun KiB" "lstat KiB" conserved
printf '%s' "$table"
exit $status
