#!/usr/bin/env bats
# The study pipelines' reporting: pipelines/po2/tables.awk orders
# strategies only where intervals across seeds allow it, and the tables
# target does not start a sweep by itself.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	T=$BATS_TEST_TMPDIR
	cd "$T"
	printf 'workload,route,load,status,diff_pp\n' > m.csv
	printf 'workload,route,load,group,seed,msg_lat_mean\n' > r.csv
}

# summary ROUTE-ROWS...: a summary.csv of one workload and load.
summary() {
	printf 'workload,route,load,group,runs,saturated,status,msg_lat,msg_lat_ci95,norm_lat,norm_lat_ci95,pkt_lat,pkt_lat_ci95\n'
	for r in "$@"; do printf 'long10,%s\n' "$r"; done
}

orders() {
	awk -F, -v loads=0.50 -f "$TOP/pipelines/po2/tables.awk" s.csv m.csv r.csv |
		grep '^| 0.50 | [a-z]* [<~?]'
}

@test "tables.awk: one seed gives no order ('?'), a missing CI is not zero" {
	summary deterministic,0.50,all,1,0,ok,300,,200,,100, \
		best,0.50,all,1,0,ok,200,,150,,90, \
		derouting,0.50,all,1,0,ok,100,,120,,80, > s.csv
	run orders
	[ "$status" -eq 0 ]
	[ "$output" = "| 0.50 | derouting ? best ? deterministic | derouting ? best ? deterministic | deterministic ? best ? derouting | deterministic ? best ? derouting |" ]
	# One run's batch-means interval does not order strategies either.
	summary deterministic,0.50,all,1,0,ok,300,1,200,1,100,1 \
		best,0.50,all,1,0,ok,200,1,150,1,90,1 \
		derouting,0.50,all,1,0,ok,100,1,120,1,80,1 > s.csv
	run orders
	[[ "$output" != *" < "* ]]
}

@test "tables.awk: five seeds order by 95% CIs: '<' apart, '~' overlapping" {
	summary deterministic,0.50,all,5,0,ok,300,10,200,1,100,1 \
		best,0.50,all,5,0,ok,200,100,150,1,90,1 \
		derouting,0.50,all,5,0,ok,100,10,120,1,80,1 > s.csv
	run orders
	[ "$status" -eq 0 ]
	[[ "$output" == "| 0.50 | derouting ~ best ~ deterministic | derouting < best < deterministic |"* ]]
}

@test "make tables without results says how to make them, and starts nothing" {
	run make -s -C "$TOP/pipelines/po2" tables OUT="$T/none"
	[ "$status" -ne 0 ]
	[[ "$output" == *"tables: no results in $T/none/: run the sweep first:"* ]]
	[[ "$output" == *"po2-quick"* ]]
	# Only the bookkeeping the make file always writes: no stream, no CSV.
	[ "$(find "$T/none" -name '*.mps' -o -name '*.csv')" = "" ]
}
