#!/usr/bin/env bats
# Tests of hexflow, the analytical flow model of derouting on E_n:
# output shape, the columns' invariants, options and their errors.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
}

HEADER=n,nodes,mean_path,minimal_max_pe_util,derouting_max_pe_util

@test "csv header is exact" {
	run hexflow --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$HEADER" ]
}

@test "default range is n = 6..16, one row each" {
	run hexflow --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 12 ]
	[ "$(printf '%s\n' "$output" | sed 1d | cut -d, -f1 | tr '\n' ' ')" = "6 7 8 9 10 11 12 13 14 15 16 " ]
}

@test "text table has the same rows, aligned" {
	run hexflow
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 12 ]
	[ "$(echo "${lines[0]}" | awk '{print $1, $5}')" = "n derouting_max_pe_util" ]
	# every line is as long as the header
	[ "$(printf '%s\n' "$output" | awk '{print length}' | sort -u | wc -l)" -eq 1 ]
}

@test "nodes column is 3n(n-1)+1 and mean_path is (2n-1)/3" {
	run hexflow --csv -n 2-20
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20 ]
	printf '%s\n' "$output" | awk -F, 'NR > 1 {
		if ($2 != 3 * $1 * ($1 - 1) + 1) exit 1
		if ($3 != sprintf("%.6f", (2 * $1 - 1) / 3)) exit 1
	}'
}

@test "minimal max >= derouting max in every row, both in (0, 1]" {
	for o in "" --no-overhead; do
		run hexflow --csv -n 2-30 $o
		[ "$status" -eq 0 ]
		printf '%s\n' "$output" | awk -F, 'NR > 1 {
			if ($4 + 0 < $5 + 0) exit 1
			if ($5 <= 0 || $4 > 1) exit 1
		}'
	done
}

@test "minimal max is min(1, 6s/mean_path)" {
	run hexflow --csv -n 6-16
	printf '%s\n' "$output" | awk -F, 'NR > 1 {
		m = 6 * 1.3125 / ((2 * $1 - 1) / 3); if (m > 1) m = 1
		if ($4 != sprintf("%.6f", m)) exit 1
	}'
}

@test "E_2: no derouting possible, both maxima 1" {
	run hexflow --csv -n 2
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "2,7,1.000000,1.000000,1.000000" ]
}

@test "known rows: E_13 with and without overhead" {
	run hexflow --csv -n 13
	[ "${lines[1]}" = "13,469,8.333333,0.945000,0.646590" ]
	run hexflow --csv -n 13 --no-overhead
	[ "${lines[1]}" = "13,469,8.333333,0.720000,0.492640" ]
}

@test "--no-overhead lowers the maxima (s = 1 < 1.3125), never raises" {
	a=$(hexflow --csv | sed 1d)
	b=$(hexflow --csv --no-overhead | sed 1d)
	[ "$a" != "$b" ]
	paste -d, <(printf '%s\n' "$a") <(printf '%s\n' "$b") | awk -F, '{
		if ($9 > $4 || $10 > $5) exit 1
		if ($1 >= 13 && !($9 < $4 && $10 < $5)) exit 1
	}'
}

@test "--no-overhead equals zero set-up times" {
	a=$(hexflow --csv --no-overhead)
	b=$(hexflow --csv --inject-setup 0 --eject-setup 0)
	[ "$a" = "$b" ]
}

@test "set-up times change s: larger set-up, higher PE maximum" {
	a=$(hexflow --csv -n 13 | sed 1d | cut -d, -f4,5)
	b=$(hexflow --csv -n 13 --inject-setup 160 | sed 1d | cut -d, -f4,5)
	# derouting: 6 s / pbar(1), pbar(1) = 12.179279 on E_13
	[ "$a" = "0.945000,0.646590" ]
	# s = (160 + 240/2) / 160 = 1.5625: 9.375 / 12.179279
	[ "$b" = "1.000000,0.769750" ]
	# s = (320 + 100/2) / 320 = 1.15625: 6.9375 / (25/3)
	c=$(hexflow --csv -n 13 --packet-time 320 | sed 1d | cut -d, -f4)
	[ "$c" = "0.832500" ]
}

@test "--pe-util adds the two internal utilization columns" {
	run hexflow --csv --pe-util 0.9
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$HEADER,minimal_int_util,derouting_int_util" ]
	[ "${#lines[@]}" -eq 12 ]
	[ "${lines[1]}" = "6,91,3.666667,1.000000,1.000000,0.419048,0.502985" ]
	# E_13: minimal below saturation, derouting saturated (empty)
	[ "${lines[8]}" = "13,469,8.333333,0.945000,0.646590,0.952381," ]
	[ "${lines[9]}" = "14,547,9.000000,0.875000,0.597375,," ]
}

@test "--pe-util: derouting needs more internal bandwidth than minimal" {
	run hexflow --csv --pe-util 0.5 -n 3-16
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | awk -F, 'NR > 1 {
		if ($6 == "" || $7 == "" || $7 + 0 <= $6 + 0) exit 1
		if ($6 != sprintf("%.6f", 0.5 * (2 * $1 - 1) / 3 / 7.875)) exit 1
	}'
}

@test "--pe-util: text table shows - where the fabric saturates" {
	run hexflow --pe-util 90% -n 14
	[ "$status" -eq 0 ]
	[ "$(echo "${lines[1]}" | awk '{print $6, $7}')" = "- -" ]
}

@test "--min-n and --max-n set the range" {
	run hexflow --csv --min-n 7 --max-n 9
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(printf '%s\n' "$output" | sed 1d | cut -d, -f1 | tr '\n' ' ')" = "7 8 9 " ]
}

@test "output is deterministic" {
	a=$(hexflow --csv --pe-util 0.7 -n 2-40)
	b=$(hexflow --csv --pe-util 0.7 -n 2-40)
	[ "$a" = "$b" ]
}

@test "-h prints usage to stdout, exit 0" {
	run hexflow -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == usage:\ hexflow* ]]
}

@test "bad options exit 2 with a message" {
	run hexflow --bogus
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: unknown option '--bogus'; try 'hexflow -h'" ]
	run hexflow -n 1
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: -n: 1 is too small (at least 2); try 'hexflow -h'" ]
	run hexflow -n 9-x
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: -n: 'x' is not an unsigned integer; try 'hexflow -h'" ]
	run hexflow -n 9-7
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: empty range of n: 9 > 7; try 'hexflow -h'" ]
	run hexflow --max-n 5
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: empty range of n: 6 > 5; try 'hexflow -h'" ]
	run hexflow --pe-util 0
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: --pe-util: 0 is out of range (0, 1]; try 'hexflow -h'" ]
	run hexflow --pe-util 1.5
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "hexflow: --pe-util: 1.5 is out of range"* ]]
	run hexflow --packet-time 0
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: --packet-time: 0 is too small (at least 1); try 'hexflow -h'" ]
	run hexflow --inject-setup -3
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: --inject-setup: '-3' is not an unsigned integer; try 'hexflow -h'" ]
	run hexflow --no-overhead --eject-setup 5
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: --no-overhead conflicts with --eject-setup; try 'hexflow -h'" ]
	run hexflow --pe-util
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: option '--pe-util' needs a value; try 'hexflow -h'" ]
	run hexflow extra
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "hexflow: unexpected argument 'extra'; try 'hexflow -h'" ]
}

@test "bad usage prints the usage to stderr, nothing to stdout" {
	run bash -c 'hexflow --bogus 2>/dev/null'
	[ "$status" -eq 2 ]
	[ -z "$output" ]
}

@test "a failed write to stdout exits 1" {
	run bash -c 'hexflow >/dev/full'
	[ "$status" -eq 1 ]
	[[ "$output" == "hexflow: stdout: write failed"* ]]
	run bash -c 'hexflow -h >/dev/full'
	[ "$status" -eq 1 ]
}
