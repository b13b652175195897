#!/usr/bin/env bats
# Tests of netrun's retry-loop shortcut against an event per attempt
# (--eager-retries): every injection choice follows the job-list rule
# (recomputed by tests/alpha-rule.awk from the records), and where no
# events fall at the same instant the records are the same.

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
}

# rule WORKLOAD DELIVERIES: check every injection choice.
rule() {
	mpcat -c -r inj "$1" > "$T/i.csv"
	mpcat -c -m -r pkt "$2" > "$T/p.csv"
	awk -f "$BATS_TEST_DIRNAME/alpha-rule.awk" "$T/i.csv" "$T/p.csv"
}

# Nodes 0, 2 and 3 each send 25 packets to node 1 at 0, so node 0's
# injections are refused for a long time; at 2001 node 0 gets a 1-packet
# message for node 40, which alpha 8 puts at the head of its job list.
hand_case() {
	printf 'class,group,route,src,dst,packets,id,time,bytes,prio\n' > "$T/h.csv"
	printf '0,0,0,%s,1,25,%s,0,0,0\n' 0 0 2 1 3 2 >> "$T/h.csv"
	printf '0,0,0,0,40,1,3,2001,0,0\n' >> "$T/h.csv"
	mpcat -C -k messages -s nodes=91 "$T/h.csv" | sched --alpha 8 > "$T/h.mps"
}

@test "hand case: a message arriving during a refused injection goes at the next attempt" {
	hand_case
	netrun --preset po2 --route derouting "$T/h.mps" > "$T/d.mps"
	netrun --preset po2 --route derouting --eager-retries "$T/h.mps" > "$T/e.mps"
	mpcat -c -r dlv "$T/d.mps" > "$T/d.csv"
	mpcat -c -r dlv "$T/e.mps" > "$T/e.csv"
	# The three converging messages meet at same-instant ties, so their
	# records may differ; message 3's may not.
	run sh -c "grep '^0,0,0,40,1,3,' '$T/d.csv'; grep '^0,0,0,40,1,3,' '$T/e.csv'"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "${lines[1]}" ]
	# Message 3 waits only for the refused attempt in progress at 2001
	# to end: at most one attempt, set-up 80 + header 12.
	run awk -F, '$6 == 3 { print $8 - $7 }' "$T/d.csv"
	[ "$status" -eq 0 ]
	[ "$output" -ge 0 ] && [ "$output" -le 92 ]
	run rule "$T/h.mps" "$T/d.mps"
	[ "$status" -eq 0 ]
	[[ "$output" == "choices 76 ties 0 violations 0" ]]
}

@test "alpha-rule.awk finds a choice against the rule" {
	hand_case
	netrun --preset po2 --route derouting "$T/h.mps" > "$T/d.mps"
	mpcat -c -r inj "$T/h.mps" > "$T/i.csv"
	# Swap the injection times of message 3's packet and the packet of
	# message 0 injected next: message 0 now goes first though 3 waits.
	mpcat -c -m -r pkt "$T/d.mps" | awk -F, -v OFS=, '
		/^#/ || NR == 1 || $1 == "class" { print; next }
		{ rec[++n] = $0 }
		END {
			for (i = 1; i <= n; i++) {
				split(rec[i], f, ",")
				if (f[7] == 3) { t3 = f[8]; i3 = i }
				else if (f[4] == 0) t0[i] = f[8]
			}
			best = -1
			for (i in t0)
				if (t0[i] > t3 && (best < 0 || t0[i] < t0[best]))
					best = i
			split(rec[i3], a, ","); split(rec[best], b, ",")
			a[8] = b[8]; b[8] = t3
			rec[i3] = a[1]; for (k = 2; k <= 12; k++) rec[i3] = rec[i3] "," a[k]
			rec[best] = b[1]; for (k = 2; k <= 12; k++) rec[best] = rec[best] "," b[k]
			for (i = 1; i <= n; i++) print rec[i]
		}' > "$T/p.csv"
	run awk -f "$BATS_TEST_DIRNAME/alpha-rule.awk" "$T/i.csv" "$T/p.csv"
	[ "$status" -eq 1 ]
	[[ "$output" == *"chose message 0 "*"over message 3 "* ]]
	[[ "${lines[${#lines[@]}-1]}" == "choices 76 ties 0 violations 1" ]]
}

# both WORKLOAD NETRUN-OPTIONS...: the rule holds with and without the
# shortcut, over the same number of choices.
both() {
	w=$1; shift
	netrun "$@" "$w" > "$T/d.mps"
	netrun --eager-retries "$@" "$w" > "$T/e.mps"
	run rule "$w" "$T/d.mps"
	echo "default $*: $output"
	[ "$status" -eq 0 ]
	d=$output
	run rule "$w" "$T/e.mps"
	echo "eager $*: $output"
	[ "$status" -eq 0 ]
	[ "${d%% ties*}" = "${output%% ties*}" ]
	[[ "$d" == *" violations 0" ]]
}

@test "po2 derouting, alpha 8: every injection choice follows the rule" {
	wlgen --preset po2 --long 10 --load 0.5 -n 3000 | sched --alpha 8 > "$T/w.mps"
	both "$T/w.mps" --preset po2 --route derouting
	both "$T/w.mps" --preset po2 --route best --buffers 8
}

@test "fifo, srf and class priority follow the rule too" {
	wlgen --preset po2 --long 10 --load 0.4 -n 2000 --seed 4 > "$T/m.mps"
	sched "$T/m.mps" > "$T/f.mps"
	both "$T/f.mps" --preset po2 --route derouting
	sched --srf "$T/m.mps" > "$T/s.mps"
	both "$T/s.mps" --preset po2 --route derouting --retry notify
	wlgen --preset po2 --long 10 --load 0.5 -n 2000 --gt-share 30 |
		sched -c --alpha 8 > "$T/c.mps"
	run awk -F, 'NR > 1 && $10 == 1 { n++ } END { print n + 0 }' \
		<(mpcat -c -r inj "$T/c.mps")
	[ "$output" -gt 0 ]
	both "$T/c.mps" --preset po2 --route derouting
}

@test "fedx and torus with an injection set-up follow the rule" {
	wlgen --preset fedx --long 10 --load 0.5 -n 3000 | sched --alpha 8 > "$T/w.mps"
	both "$T/w.mps" --preset fedx --inject-setup 40
	wlgen --preset torus --long 10 --load 0.5 -n 3000 | sched --alpha 4 > "$T/t.mps"
	both "$T/t.mps" --preset torus --inject-setup 8 --pe-port shared
}
