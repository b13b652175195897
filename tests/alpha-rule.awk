# Recompute, from a scheduled workload and netrun's packet records, whether
# every injection choice follows the node's job-list rule (netrun(1), sched(1)):
# at the start of an injection attempt the node offers the head of its job
# list, the least (priority class, priority, arrival order), where the
# priority of an alpha-scheduled message is the node's count of accepted
# packets when it arrived plus alpha times its packets not yet accepted (SRF:
# its packets not yet accepted).
#
# usage: awk -f alpha-rule.awk inj.csv pkt.csv
#   inj.csv  mpcat -c -r inj of the stream netrun read (stream order)
#   pkt.csv  mpcat -c -m -r pkt of netrun's output (any order; the #key=value
#            lines give sched.policy, sched.alpha and fabric.inject_setup)
#
# A packet's t_inject is the start of the attempt that injected it; it is
# accepted inject_setup later, and only then does the node's count advance.
# Where events fall at the same instant the simulator may order them either
# way: a message arriving at the instant of the choice may or may not be in
# the list, and one arriving at the instant of an acceptance has either
# count. Such a choice is a violation only when a message surely in the list
# surely comes first. Prints "choices C ties T violations V" (T: choices
# where a message arriving at that instant would have come first) and the
# first violations on stderr; exits 1 on a violation or bad input.

BEGIN { FS = ","; policy = "fifo"; alpha = 0; setup = 0; bad = 0 }

function die(msg) {
	print "alpha-rule: " msg > "/dev/stderr"
	bad = 1
	exit 1
}

# Column numbers by name from a CSV header line.
function columns(arr,    i) {
	for (i = 1; i <= NF; i++)
		arr[$i] = i
}

FNR == NR && FNR == 1 { columns(ic); next }
FNR == NR {
	r = nin++
	id = $ic["id"]
	if (id in rof)
		die("inj.csv: record " FNR ": message id " id " is not unique")
	rof[id] = r
	idof[r] = id
	src = $ic["src"] + 0
	ta[r] = $ic["time"] + 0
	np[r] = $ic["packets"] + 0
	pc[r] = $ic["prio"] + 0
	arr[src, nar[src]++] = r
	next
}
/^#/ {
	sub(/^#/, "")
	k = $0; sub(/=.*/, "", k)
	v = $0; sub(/^[^=]*=/, "", v)
	if (k == "sched.policy") policy = v
	else if (k == "sched.alpha") alpha = v + 0
	else if (k == "fabric.inject_setup") setup = v + 0
	next
}
!havepc { columns(pkc); havepc = 1; next }
{
	id = $pkc["msg"]
	if (!(id in rof))
		die("pkt.csv: record " FNR ": message " id " not in the workload")
	src = $pkc["src"] + 0
	n = npk[src]++
	pt[src, n] = $pkc["t_inject"] + 0
	pm[src, n] = rof[id]
}

# Whether message m surely comes before message c in the job list.
function beats(m, c) {
	if (pc[m] != pc[c])
		return pc[m] < pc[c]
	return hi[m] < lo[c] || (hi[m] == lo[c] && m < c)
}

END {
	if (bad)
		exit 1
	if (policy != "fifo" && policy != "alpha" && policy != "srf")
		die("unknown sched.policy " policy)
	choices = ties = viol = 0
	for (x in npk) {
		x += 0
		cnt = npk[x]
		# Packets of node x in attempt order (insertion sort: the
		# records come nearly in that order already).
		for (i = 1; i < cnt; i++) {
			t = pt[x, i]; m = pm[x, i]
			for (j = i - 1; j >= 0 && pt[x, j] > t; j--) {
				pt[x, j + 1] = pt[x, j]; pm[x, j + 1] = pm[x, j]
			}
			pt[x, j + 1] = t; pm[x, j + 1] = m
		}
		clock = 0; lastacc = -1; nxt = 0; npend = 0
		split("", pend)
		for (k = 0; k < cnt; k++) {
			t = pt[x, k]
			if (k > 0 && t == pt[x, k - 1])
				die("node " x ": two injections start at " t)
			while (nxt < nar[x] && ta[arr[x, nxt]] <= t) {
				r = arr[x, nxt++]
				cl = ch = clock
				if (ta[r] < lastacc)
					cl = ch = clock - 1
				else if (ta[r] == lastacc)
					cl = clock - 1
				sent[r] = 0
				if (policy == "srf") {
					lo[r] = hi[r] = np[r]
				} else {
					lo[r] = cl + alpha * np[r]
					hi[r] = ch + alpha * np[r]
				}
				pend[npend++] = r
			}
			c = pm[x, k]
			pos = -1
			for (j = 0; j < npend; j++)
				if (pend[j] == c)
					pos = j
			if (pos < 0)
				die("node " x ": packet injected at " t \
				    " of a message not waiting there")
			choices++
			tie = 0
			for (j = 0; j < npend; j++) {
				m = pend[j]
				if (m == c || !beats(m, c))
					continue
				if (ta[m] == t) {
					tie = 1
					continue
				}
				if (viol++ < 5)
					printf("alpha-rule: node %d at %d: chose " \
					       "message %s (prio %g..%g) over " \
					       "message %s (prio %g..%g)\n", x, t,
					       idof[c], lo[c], hi[c], idof[m], lo[m],
					       hi[m]) > "/dev/stderr"
				break
			}
			ties += tie
			# Accepted inject_setup later: the count advances.
			tacc = t + setup
			clock++
			lastacc = tacc
			if (++sent[c] == np[c]) {
				pend[pos] = pend[--npend]
				delete pend[npend]
			} else if (policy == "srf") {
				lo[c] = hi[c] = np[c] - sent[c]
			} else {
				lo[c] -= alpha
				hi[c] -= alpha
			}
			# Arrivals at this very instant may see either count.
			for (j = 0; j < npend; j++)
				if (ta[pend[j]] == tacc && policy != "srf")
					hi[pend[j]] = lo[pend[j]] + 1
		}
	}
	printf("choices %d ties %d violations %d\n", choices, ties, viol)
	exit viol > 0
}
