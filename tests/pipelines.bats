#!/usr/bin/env bats
# The study pipelines' reporting: pipelines/po2/tables.awk orders
# strategies only where intervals across seeds allow it, the tables
# target does not start a sweep by itself, and the README figures are
# put in place (and checked) by pipelines/figures.sh from the results.

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

# A README with two figure blocks, and the blocks a generator printed.
readme_pair() {
	printf '# t\n\ntext 1\n<!-- figures:a begin -->\nold\n<!-- figures:a end -->\nmid\n<!-- figures:b begin -->\n<!-- figures:b end -->\nend\n' > R.md
	printf '@@ a\n| x | 1.5 |\n@@ b\nb line 1\nb line 2\n' > B.txt
}

@test "figures.sh fills the blocks in place, and -c exits 1 with a diff on drift" {
	readme_pair
	run "$TOP/pipelines/figures.sh" -c R.md B.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"-old"* && "$output" == *"+| x | 1.5 |"* ]]
	run "$TOP/pipelines/figures.sh" R.md B.txt
	[ "$status" -eq 0 ]
	[ "$(cat R.md)" = "$(printf '# t\n\ntext 1\n<!-- figures:a begin -->\n| x | 1.5 |\n<!-- figures:a end -->\nmid\n<!-- figures:b begin -->\nb line 1\nb line 2\n<!-- figures:b end -->\nend')" ]
	run "$TOP/pipelines/figures.sh" -c R.md B.txt
	[ "$status" -eq 0 ]
	# Text outside the blocks is the writer's: not a drift.
	sed -i 's/^mid$/middle/' R.md
	"$TOP/pipelines/figures.sh" -c R.md B.txt
	# A number changed by hand inside a block is.
	sed -i 's/1\.5/1.6/' R.md
	run "$TOP/pipelines/figures.sh" -c R.md B.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"-| x | 1.6 |"*"+| x | 1.5 |"* ]]
}

@test "figures.sh: a measured- block (CPU times) is rewritten, but -c checks only that it is there" {
	printf 'a\n<!-- figures:measured-cpu begin -->\n| cpu | 0.60 |\n<!-- figures:measured-cpu end -->\n<!-- figures:m begin -->\n1\n<!-- figures:m end -->\n' > R.md
	printf '@@ measured-cpu\n| cpu | 0.69 |\n@@ m\n1\n' > B.txt
	"$TOP/pipelines/figures.sh" -c R.md B.txt
	grep -qx '| cpu | 0.60 |' R.md
	"$TOP/pipelines/figures.sh" R.md B.txt
	grep -qx '| cpu | 0.69 |' R.md
	# Still a drift elsewhere, and still a missing block.
	sed -i 's/^1$/2/' R.md
	run "$TOP/pipelines/figures.sh" -c R.md B.txt
	[ "$status" -eq 1 ]
	printf '@@ m\n2\n' > C.txt
	run "$TOP/pipelines/figures.sh" -c R.md C.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"block measured-cpu is not generated"* ]]
}

@test "figures.sh refuses blocks without a place, places without a block, unended blocks" {
	readme_pair
	printf '@@ a\nx\n' > A.txt
	run "$TOP/pipelines/figures.sh" R.md A.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"block b is not generated"* ]]
	printf '@@ a\nx\n@@ b\ny\n@@ c\nz\n' > C.txt
	run "$TOP/pipelines/figures.sh" R.md C.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"generated block c has no place"* ]]
	sed -i '/figures:b end/d' R.md
	cp R.md R0.md
	run "$TOP/pipelines/figures.sh" R.md B.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"block b not ended"* ]]
	# A failure leaves the README as it was.
	cmp R.md R0.md
	# A generator that printed nothing: said so, not a README line
	# taken for generated text.
	: > E.txt
	run "$TOP/pipelines/figures.sh" -c R.md E.txt
	[ "$status" -eq 1 ]
	[ "$output" = "figures.sh: R.md: no blocks generated (E.txt is empty)" ]
	run "$TOP/pipelines/figures.sh" R.md - < E.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *"no blocks generated"* ]]
	cmp R.md R0.md
}

@test "make readme fills po2's README from a small sweep; readme-check catches a drifted number" {
	# A quick sweep at three loads, one seed: seconds.
	cp "$TOP/pipelines/po2/README.md" R.md
	run make -s -j2 -C "$TOP/pipelines/po2" readme QUICK=1 OUT="$T/out" load='0.40 0.60 0.70' README="$T/R.md"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no results in $T/out/"* ]]
	make -s -j2 -C "$TOP/pipelines/po2" "$T/out/results.csv" QUICK=1 OUT="$T/out" load='0.40 0.60 0.70' > /dev/null
	make -s -j2 -C "$TOP/pipelines/po2" readme QUICK=1 OUT="$T/out" load='0.40 0.60 0.70' README="$T/R.md"
	# The uniform table's 0.70 deterministic row is summary.csv's (one
	# decimal below 1000 units; one seed: lstat's interval, if any).
	want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == "uniform" && $2 == "deterministic" && $3 == "0.70" && $4 == "all" {
			d = $c["msg_lat"] < 1000 ? 1 : 0; h = $c["msg_lat_ci95"]
			printf "| 0.70 | deterministic | %.*f%s |", d, $c["msg_lat"], h == "" ? "" : sprintf(" ± %.*f", d, h) }' "$T/out/summary.csv")
	[ -n "$want" ]
	grep -qF -- "$want" R.md
	grep -q '^| load | 0.40 to 0.70 (3 loads) |$' R.md
	# Every block is filled, and the text outside them is unchanged.
	[ "$(grep -c '^<!-- figures:.* begin -->$' R.md)" -eq "$(grep -c '^@@ ' "$T/out/figures.txt")" ]
	diff <(sed '/^<!-- figures:.* begin -->$/,/^<!-- figures:.* end -->$/d' "$TOP/pipelines/po2/README.md") <(sed '/^<!-- figures:.* begin -->$/,/^<!-- figures:.* end -->$/d' R.md)
	make -s -C "$TOP/pipelines/po2" readme-check QUICK=1 OUT="$T/out" load='0.40 0.60 0.70' README="$T/R.md"
	# One number edited by hand: caught, and the diff names it.
	awk -v w="$want" '{ i = index($0, w)
		if (i) $0 = substr($0, 1, i - 1) "| 0.70 | deterministic | 1.0 ± 0.1 |" substr($0, i + length(w)) } 1' R.md > R2.md
	run cmp -s R.md R2.md
	[ "$status" -eq 1 ]
	mv R2.md R.md
	run make -s -C "$TOP/pipelines/po2" readme-check QUICK=1 OUT="$T/out" load='0.40 0.60 0.70' README="$T/R.md"
	[ "$status" -ne 0 ]
	[[ "$output" == *"figures differ from what the results give"* ]]
	[[ "$output" == *"-| 0.70 | deterministic | 1.0 ± 0.1 |"* ]]
}

@test "fedx figures.awk fills every block of fedx's README, from the columns it names" {
	# One point per study is enough to fill every block.
	{ echo workload,hot,bp,load,seed,group,messages,throughput,msg_lat_mean,msg_lat_ci95,pkt_lat_mean,pkt_lat_ci95,status
	  for w in wk1-5 wk30; do for h in off on; do for b in none message destination; do
	    for g in hot independent all; do echo "$w,$h,$b,0.3,1,$g,100,0.05,1234.5,12.5,300,3,ok"; done; done; done; done; } > h.csv
	{ echo alpha,load,seed,group,msg_lat_mean,msg_lat_ci95,pkt_lat_mean,pkt_lat_ci95,status
	  for a in 0 8; do for g in short long all; do echo "$a,0.5,1,$g,2000,20,500,5,ok"; done; done; } > a.csv
	{ echo bal,alpha,load,seed,group,msg_lat_mean,msg_lat_ci95,pkt_lat_mean,pkt_lat_ci95,status
	  for b in off d2t2 d2t4 d2t6; do for a in 0 8; do echo "$b,$a,0.7,1,all,5000,,800,8,saturated"; done; done; } > b.csv
	printf 'case,seed,sustainable,saturated,runs\noff-a0,1,0.78,0.79,7\nd2t6-a0,1,0.85,0.86,7\n' > m.csv
	printf 'case,seeds,sustainable_mean,sustainable_ci95,sustainable_min,sustainable_max,saturated_mean,runs\noff-a0,1,0.780,,0.78,0.78,0.790,7\n' > s.csv
	awk -F, -f "$TOP/pipelines/fedx/figures.awk" h.csv a.csv b.csv m.csv s.csv > B.txt
	cp "$TOP/pipelines/fedx/README.md" R.md
	"$TOP/pipelines/figures.sh" R.md B.txt
	grep -qF '| 0.3 | 1234 ± 12 | 1234 ± 12 |' R.md
	grep -qF '| 0.7 FIFO | 800 ± 8 / 5000 ± - (sat.) |' R.md
	grep -qF '| d2t6-a0 - off-a0 | +0.070 ± - | +0.07 |' R.md
	"$TOP/pipelines/figures.sh" -c R.md B.txt
	# The committed README against its own results is what make
	# readme-check does; here, against these, it must differ.
	cp "$TOP/pipelines/fedx/README.md" R0.md
	run "$TOP/pipelines/figures.sh" -c R0.md B.txt
	[ "$status" -eq 1 ]
	cmp R0.md "$TOP/pipelines/fedx/README.md"
}

@test "make readme fills damq's README from a tiny sweep; readme-check catches a drifted number" {
	# Every network at one load, two organizations, unbounded, 200
	# cycles a point: seconds.
	D="$TOP/pipelines/damq"
	set -- QUICK=1 OUT="$T/out" CYCLES=200 lv=2 bl=0 buf='fifo oq'
	cp "$D/README.md" R.md
	run make -s -C "$D" readme "$@" README="$T/R.md"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no results in $T/out/"* ]]
	cmp R.md "$D/README.md"
	make -s -j2 -C "$D" "$T/out/fig.dat" "$@" > /dev/null
	make -s -C "$D" readme "$@" README="$T/R.md"
	# The omega's fifo row at the lowest load is fig.dat's net_adj and
	# sw_est, and the set-up block says the run's cycles and warm-up.
	want=$(awk '$1 == "om4x4" && $2 == "fifo" && $3 == 1 && $4 == 0 {
		printf "| om4x4 | 1 | %.3f | %.3f |", $8, $12 }' "$T/out/fig.dat")
	[ -n "$want" ]
	grep -qF -- "$want" R.md
	grep -q '^Every point runs 200 cycles of offered traffic' R.md
	grep -q 'lstat leaves out the first 80 cycles' R.md
	# Every block is filled, and the text outside them is unchanged.
	[ "$(grep -c '^<!-- figures:.* begin -->$' R.md)" -eq "$(grep -c '^@@ ' "$T/out/figures.txt")" ]
	diff <(sed '/^<!-- figures:.* begin -->$/,/^<!-- figures:.* end -->$/d' "$D/README.md") <(sed '/^<!-- figures:.* begin -->$/,/^<!-- figures:.* end -->$/d' R.md)
	make -s -C "$D" readme-check "$@" README="$T/R.md"
	# One number edited by hand: caught, and the diff names it.
	awk -v w="$want" '{ i = index($0, w)
		if (i) $0 = substr($0, 1, i - 1) "| om4x4 | 1 | 1.000 | 1.000 |" substr($0, i + length(w)) } 1' R.md > R2.md
	run cmp -s R.md R2.md
	[ "$status" -eq 1 ]
	mv R2.md R.md
	run make -s -C "$D" readme-check "$@" README="$T/R.md"
	[ "$status" -ne 0 ]
	[[ "$output" == *"figures differ from what the results give"* ]]
	[[ "$output" == *"-| om4x4 | 1 | 1.000 | 1.000 |"* ]]
}
