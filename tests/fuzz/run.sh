#!/bin/sh
# make fuzz: build each fuzz target of tests/fuzz/ with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer (clang) in a temporary
# directory, run it for SECONDS (default 60) from its seed corpus
# tests/fuzz/corpus/<target>/ and the regression inputs
# tests/fuzz/regress/<target>/, save what breaks into tests/fuzz/crashes/
# and print executions and crashes per target. A target is restarted
# after a crash until its time is up, so one run can find several.
# Environment: FUZZ_CC (default clang), FUZZ_TARGETS (default all).
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
case $secs in
'' | *[!0-9]*) echo "usage: tests/fuzz/run.sh [SECONDS]" >&2; exit 2 ;;
esac
cc=${FUZZ_CC:-clang}
targets=${FUZZ_TARGETS:-"fuzz_stream fuzz_csv fuzz_args"}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found: install clang (apt-get install clang)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p tests/fuzz/crashes "$tmp/obj"

flags="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
	-DMP_VERSION=\"fuzz\" -fno-omit-frame-pointer -fno-sanitize-recover=all
	-Ilib"
san="address,undefined"
echo "fuzz: building the library and $(echo $targets | wc -w) targets with $cc"
for c in lib/*.c; do
	o="$tmp/obj/$(basename "$c" .c).o"
	# shellcheck disable=SC2086
	$cc $flags -fsanitize=fuzzer-no-link,$san -c -o "$o" "$c" || exit 1
done
for t in $targets; do
	# shellcheck disable=SC2086
	$cc $flags -fsanitize=fuzzer,$san -o "$tmp/$t" "tests/fuzz/$t.c" \
		"$tmp"/obj/*.o -lzstd -lcsv -lm -pthread || exit 1
done

# Seeds made from files of the tree rather than kept twice: the Netrace
# example trace, decompressed, for wlgen --netrace.
mkdir -p "$tmp/seeds/fuzz_args"
if command -v bzip2 >/dev/null 2>&1; then
	{ echo "wlgen --netrace --preset fedx --drop-self"
	  bzip2 -dc traces/netrace/example.tra.bz2; } >"$tmp/seeds/fuzz_args/nt1"
	{ echo "wlgen --netrace --preset torus --size 8 --time-scale 0.5 --remap-mod"
	  bzip2 -dc traces/netrace/example.tra.bz2 | head -c 1200; } \
		>"$tmp/seeds/fuzz_args/nt2"
fi

status=0
summary=
for t in $targets; do
	mkdir -p "$tmp/corpus/$t"
	seeds="tests/fuzz/corpus/$t"
	[ -d "$tmp/seeds/$t" ] && seeds="$seeds $tmp/seeds/$t"
	[ -d "tests/fuzz/regress/$t" ] && seeds="$seeds tests/fuzz/regress/$t"
	arts() {
		ls tests/fuzz/crashes/ 2>/dev/null | grep "^$t-" |
			grep -v -- "-log\." | sort
	}
	arts >"$tmp/before"
	start=$(date +%s)
	execs=0
	runs=0
	echo "fuzz: $t for ${secs}s"
	while :; do
		left=$((secs - ($(date +%s) - start)))
		[ "$left" -gt 0 ] || break
		runs=$((runs + 1))
		had=$(arts | wc -l)
		# New inputs go to the temporary corpus (the first directory);
		# the seed directories are only read. Scratch files go to $tmp
		# too: a target that crashes cannot remove them.
		# shellcheck disable=SC2086
		TMPDIR="$tmp" "$tmp/$t" -max_total_time="$left" -timeout=10 \
			-rss_limit_mb=2048 \
			-max_len=65536 -print_final_stats=1 \
			-artifact_prefix="tests/fuzz/crashes/$t-" \
			"$tmp/corpus/$t" $seeds >"$tmp/log" 2>&1
		rc=$?
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log" | tail -1)
		if [ -z "$n" ]; then
			# No final stats after a crash: take the last status line.
			n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$tmp/log" | tail -1)
		fi
		execs=$((execs + ${n:-0}))
		[ "$rc" -eq 0 ] && break
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: contract|.*runtime error)' \
			"$tmp/log" | head -5 | sed "s/^/fuzz: $t: /"
		cp "$tmp/log" "tests/fuzz/crashes/$t-log.$runs"
		# Nothing new saved (it cannot start, or a seed keeps crashing
		# it): restarting would only repeat that.
		if [ "$(arts | wc -l)" -eq "$had" ]; then
			echo "fuzz: $t: stopped: the same failure again (see" \
				"tests/fuzz/crashes/$t-log.$runs)"
			status=1
			break
		fi
	done
	new=$(arts | comm -13 "$tmp/before" - | wc -l)
	[ "$new" -gt 0 ] && status=1
	summary="$summary$(printf '%-12s %6ss %12s executions %4s runs %4s new crashes' \
		"$t" "$secs" "$execs" "$runs" "$new")
"
done
echo
echo "fuzz summary (crash inputs in tests/fuzz/crashes/):"
printf '%s' "$summary"
exit $status
