# summary.awk: per case of maxload.csv (case,seed,sustainable,saturated,
# runs), the mean of the highest sustainable load over the seeds with its
# 95% confidence interval (Student t), its minimum and maximum, the mean
# lowest saturated load, the seeds and the runs. Cases in input order.
BEGIN {
	# Student t(0.975, df) for df = 1 .. 10.
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", tq, " ")
	print "case,seeds,sustainable_mean,sustainable_ci95,sustainable_min,sustainable_max,saturated_mean,runs"
}
NR == 1 { next }
{
	c = $1
	if (!(c in n)) order[++nc] = c
	n[c]++; s[c] += $3; s2[c] += $3 * $3; h[c] += $4; r[c] += $5
	if (!(c in mn) || $3 < mn[c]) mn[c] = $3
	if (!(c in mx) || $3 > mx[c]) mx[c] = $3
}
END {
	for (i = 1; i <= nc; i++) {
		c = order[i]; k = n[c]; m = s[c] / k
		ci = ""
		if (k > 1) {
			v = (s2[c] - k * m * m) / (k - 1); if (v < 0) v = 0
			ci = sprintf("%.3f", (k - 1 <= 10 ? tq[k - 1] : 1.96) * sqrt(v / k))
		}
		printf "%s,%d,%.3f,%s,%.2f,%.2f,%.3f,%d\n", c, k, m, ci, mn[c], mx[c], h[c] / k, r[c]
	}
}
