#!/usr/bin/env bats
# The golden comparison: the packet model's records (mpcat -c of every
# record kind) and lstat --csv figures on the configurations listed in
# tests/golden/configs must equal the outputs recorded before the driver /
# model split (tests/golden/mkgolden.sh regenerates them from a tools
# directory). Any change of a single byte is a failure.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	G=$BATS_TEST_DIRNAME/golden
}

@test "golden: every configuration has recorded outputs" {
	n=0
	while IFS='|' read -r name rest; do
		case $name in ''|'#'*) continue ;; esac
		[ -s "$G/$name.csv" ]
		[ -s "$G/$name.lstat.csv" ]
		# every record kind netrun writes is present and non-empty
		for r in pkt dlv util run; do
			grep -A1 "^## $r\$" "$G/$name.csv" | tail -1 | grep -q ,
		done
		n=$((n + 1))
	done < "$G/configs"
	[ "$n" -ge 30 ]
}

@test "golden: the configurations cover every preset, routing, retry and backpressure rule" {
	for w in "--preset po2" "--preset fedx" "--preset torus" \
		 "--route best" "--route deterministic" "--route derouting" \
		 "--retry notify" "--eager-retries" "--bp none" \
		 "--bp destination" "--links full" "--pe-port separate" \
		 "--pe-arb inject" "--pe-arb eject" "--eject-priority on" \
		 "--buffer-limit-trans" "--alpha" "--srf" "--preset cmp" \
		 "--replay traces/deps.csv" "--netrace" "--topo mesh"; do
		grep -q -- "$w" "$G/configs"
	done
}

@test "golden: records and lstat figures equal the recorded ones" {
	sh "$G/mkgolden.sh" "$BATS_TEST_DIRNAME/../tools" "$T/now"
	bad=
	for f in "$G"/*.csv; do
		b=${f##*/}
		cmp -s "$f" "$T/now/$b" || bad="$bad $b"
	done
	for f in "$T"/now/*.csv; do
		[ -f "$G/${f##*/}" ] || bad="$bad ${f##*/}(new)"
	done
	[ -z "$bad" ] || { echo "differ:$bad"; false; }
}

@test "golden: the recorded configurations give different runs" {
	# so an option the model ignored after the split would be caught
	! cmp -s "$G/po2.csv" "$G/po2-best.csv"
	! cmp -s "$G/po2.csv" "$G/po2-det.csv"
	! cmp -s "$G/po2-pearb-inject.csv" "$G/po2-pearb-eject.csv"
	! cmp -s "$G/torus-notify.csv" "$G/torus-eager.csv"
}
