#!/bin/sh
# Stop the private Slurm cluster that tests/slurm/up.sh started in DIR:
# cancel its jobs, then stop slurmd, slurmctld and munged by the PIDs in
# their PID files, waiting for each to exit. DIR itself is left in place.
#
#   tests/slurm/down.sh DIR
dir=${1:?usage: down.sh DIR}
PATH=$PATH:/usr/sbin
if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ]; then
	SLURM_CONF="$dir/slurm.conf" scancel --full --quiet -p debug 2>/dev/null
	i=0
	while [ $i -lt 20 ] && [ -n "$(SLURM_CONF="$dir/slurm.conf" squeue -h 2>/dev/null)" ]; do
		sleep 0.5
		i=$((i + 1))
	done
fi
status=0
for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null || continue
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ $i -ge 40 ]; then
			echo "down.sh: $f: pid $pid still running, killing it" >&2
			kill -KILL "$pid" 2>/dev/null
			status=1
			break
		fi
		sleep 0.25
		i=$((i + 1))
	done
done
exit $status
