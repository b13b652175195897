#!/bin/sh
# model.sh STAT.csv DLV.mps: one CSV row (after a header) setting a run's
# measured internal port utilization beside the flow model's (hexflow) at
# the run's measured PE port utilization, for the run's strategy: minimal
# for deterministic and best, derouting for derouting.
#
# Measured utilizations include refused attempts (lstat(1), netrun(1));
# the model knows no refusals. So the refused part is also taken out of
# the same utilization window (the util snapshots at lstat's util_start
# and util_end) and the comparison repeated on carried traffic only:
# pe_carried = pe_util - pe_refused, int_carried = int_util - int_refused.
#
# Columns: the axes, status, offered, throughput, hops_mean, then
#   pe_util pe_refused int_util int_refused        measured
#   model_int_util                                 hexflow at pe_util
#   diff_pp                                        100 (int_util - model)
#   model_int_carried                              hexflow at pe_carried
#   diff_carried_pp                                100 (int_carried - model)
#   model_path                                     model mean path at pe_util
# An empty model field: no fixed point below 1 (internal ports saturate).
set -eu
stat=$1
dlv=$2

# Field of the "all" row of the stat CSV, by column name.
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["group"] == "all" {
		printf "%s %s %s %s %s %s %s %s %s %s %s %s\n",
		    $c["workload"], $c["route"], $c["load"], $c["seed"],
		    $c["status"], $c["offered"], $c["throughput"],
		    $c["hops_mean"], $c["pe_util"], $c["int_util"],
		    $c["util_start"], $c["util_end"] }' "$stat")
set -- $row
[ $# -eq 12 ] || { echo "model.sh: $stat: no complete row for group all" >&2; exit 1; }
wl=$1 route=$2 load=$3 seed=$4 status=$5 offered=$6 thr=$7 hops=$8
pe=$9 int=${10} t0=${11} t1=${12}

# Refused time of PE (scope 0) and internal (scope 1) ports over
# [t0, t1], from the cumulative snapshots; the window from 0 starts from
# zero counters. Also the utilization itself, to check the window.
ref=$(mpcat -c -r util "$dlv" | awk -F, -v t0="$t0" -v t1="$t1" '
	# scopes 3 and 4: the snapshots of 0 and 1 taken at the last arrival
	NR == 1 || $1 == 2 { next }
	{ s = $1 >= 3 ? $1 - 3 : $1 }
	$5 == t0 { b0[s] = $6; r0[s] = $7 }
	$5 == t1 { b1[s] = $6; r1[s] = $7; n[s] = $4 }
	END {
		for (s = 0; s <= 1; s++) {
			if (!(s in n) || (t0 != 0 && !(s in b0))) exit 1
			d = n[s] * (t1 - t0)
			printf "%.6f %.6f ", (b1[s] - b0[s]) / d, (r1[s] - r0[s]) / d
		}
		printf "\n"
	}') || { echo "model.sh: $dlv: no util snapshots at $t0 and $t1" >&2; exit 1; }
set -- $ref
pe_chk=$1 pe_ref=$2 int_chk=$3 int_ref=$4
awk -v a="$pe" -v b="$pe_chk" -v c="$int" -v d="$int_chk" 'BEGIN {
	if (a - b > 2e-6 || b - a > 2e-6 || c - d > 2e-6 || d - c > 2e-6) exit 1 }' ||
	{ echo "model.sh: $dlv: util window does not match $stat" >&2; exit 1; }

# hexflow's internal utilization for this strategy at PE utilization u;
# and the model's mean path, from u_i = u_P pbar / (6 s) and the minimal
# column, whose pbar is the mean distance.
flow() {
	hexflow --csv -n 6 --pe-util "$1" | awk -F, -v r="$route" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{
			m = $c["minimal_int_util"]; d = $c["derouting_int_util"]
			v = r == "derouting" ? d : m
			path = (v != "" && m != "") ? sprintf("%.4f", v * $c["mean_path"] / m) : ""
			print v, path
		}'
}
set -- $(flow "$pe")
model=${1:-} path=${2:-}
pe_car=$(awk -v a="$pe" -v b="$pe_ref" 'BEGIN { printf "%.6f", a - b }')
set -- $(flow "$pe_car")
model_car=${1:-}

echo "workload,route,load,seed,status,offered,throughput,hops_mean,pe_util,pe_refused,int_util,int_refused,model_int_util,diff_pp,model_int_carried,diff_carried_pp,model_path"
awk -v OFS=, -v pre="$wl,$route,$load,$seed,$status,$offered,$thr,$hops" \
    -v pe="$pe" -v per="$pe_ref" -v iu="$int" -v ir="$int_ref" \
    -v m="$model" -v mc="$model_car" -v path="$path" 'BEGIN {
	d = m == "" ? "" : sprintf("%.2f", 100 * (iu - m))
	dc = mc == "" ? "" : sprintf("%.2f", 100 * (iu - ir - mc))
	print pre, pe, per, iu, ir, m, d, mc, dc, path }'
