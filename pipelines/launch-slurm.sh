#!/bin/sh
# Run the points of a sweep on a Slurm cluster: what LAUNCH=slurm selects
# for any study under pipelines/ (see pipelines/sweep.mk and README.md).
#
#   launch-slurm.sh --batch        once per make, before any stage file
#   launch-slurm.sh --task DIR     inside Slurm: one array task's points
#   launch-slurm.sh TARGET COMMAND [PREREQUISITE...]   per stage file
#
# --batch asks make which stage files the goals need (make -n, exactly as
# a local run would decide), takes the points they belong to, packs them
# into tasks of SLURM_BATCH points (points sharing a message stream stay
# together), submits one job array and waits for it. Task i runs
# `make LAUNCH=local -k` on its points, so every file is written under a
# temporary name and renamed when complete, exactly as locally. When the
# job has ended it asks make again: points still not done (their task
# failed, timed out or was cancelled) are listed with their task logs and
# it exits 1, so make stops; the next make submits only those. Ctrl-C
# cancels the job.
#
# Per stage file it only checks that the batch made TARGET (it exists and
# no prerequisite is newer), and never runs COMMAND.
#
# Environment: SLURM_BATCH (points per task, default 8), SLURM_PARTITION,
# SLURM_TIME (limit per task), SLURM_CPUS (CPUs per task, used as make -j;
# default 1), SLURM_ARGS (more sbatch options), set by sweep.mk: SWEEP_MAKE,
# SWEEP_DIR, SWEEP_MAKEFILE, SWEEP_GOALS, SWEEP_OUT, and MAKEFLAGS.

me=launch-slurm.sh

die() {
	echo "$me: $*" >&2
	exit 1
}

# "1 point", "2 points"
count() {
	if [ "$1" -eq 1 ]; then echo "$1 $2"; else echo "$1 ${2}s"; fi
}

# make on the study with the caller's command-line variables and goals
# (a study may configure itself by its goals), without its flags or
# jobserver, running stage commands locally.
study_make() {
	env -u MFLAGS -u GNUMAKEFLAGS MAKEFLAGS="$SWEEP_VARS" \
		"${SWEEP_MAKE:-make}" -C "$SWEEP_DIR" -f "$SWEEP_MAKEFILE" \
		--no-print-directory LAUNCH=local MAKECMDGOALS="$SWEEP_GOALS" "$@"
}

# The points the goals still need: "GROUP FILE" lines, FILE the last
# stage file of a point make would build, GROUP its message stream.
pending() {
	# shellcheck disable=SC2086 # goals are words
	study_make -n SWEEP_LIST=1 $SWEEP_GOALS > "$1.mk" 2> "$1.err" ||
		{ cat "$1.err" >&2; die "make -n $SWEEP_GOALS failed"; }
	awk '
	$1 == "sweep-point" { up[$2] = $3; up[$3] = $4; next }
	$1 ~ /\/launch-local\.sh$/ && !($2 in built) { built[$2]; order[++n] = $2 }
	END {
		for (i = 1; i <= n; i++)
			if ((order[i] in up) && (up[order[i]] in built))
				covered[up[order[i]]]
		for (i = 1; i <= n; i++) {
			f = order[i]
			if (f in covered)
				continue
			for (g = f; g in up; g = up[g])
				;
			if (!(g in members))
				groups[++ng] = g
			members[g] = members[g] " " f
		}
		for (i = 1; i <= ng; i++) {
			k = split(members[groups[i]], m, " ")
			for (j = 1; j <= k; j++)
				print groups[i], m[j]
		}
	}' "$1.mk"
}

batch() {
	: "${SWEEP_DIR:?set by sweep.mk}" "${SWEEP_MAKEFILE:?}" "${SWEEP_OUT:?}"
	size=${SLURM_BATCH:-8}
	cpus=${SLURM_CPUS:-1}
	case $size in '' | *[!0-9]* | 0*) die "SLURM_BATCH=$size: want a number of points, 1 or more" ;; esac
	case $cpus in '' | *[!0-9]* | 0*) die "SLURM_CPUS=$cpus: want a number of CPUs, 1 or more" ;; esac
	case " $MAKEFLAGS" in
	*" -- "*) SWEEP_VARS=" -- ${MAKEFLAGS#*-- }" ;;
	*) SWEEP_VARS= ;;
	esac
	export SWEEP_MAKE SWEEP_DIR SWEEP_MAKEFILE SWEEP_GOALS SWEEP_VARS

	mkdir -p "$SWEEP_OUT/slurm" || die "cannot create $SWEEP_OUT/slurm"
	job=$(mktemp -d "$SWEEP_OUT/slurm/job.XXXXXX") || die "cannot create a job directory in $SWEEP_OUT/slurm"
	pending "$job/before" > "$job/points" || exit 1
	n=$(wc -l < "$job/points")
	if [ "$n" -eq 0 ]; then
		rm -rf "$job"
		rmdir "$SWEEP_OUT/slurm" 2>/dev/null
		return 0
	fi
	command -v sbatch >/dev/null 2>&1 || die "sbatch not found: LAUNCH=slurm needs a Slurm client on this machine"

	# A job array has at most MaxArraySize tasks: pack more points to a
	# task if there would be more.
	tasks=$(pack "$size")
	max=$(scontrol show config 2>/dev/null | awk '$1 == "MaxArraySize" { print $3 }')
	case $max in '' | *[!0-9]*) max=$tasks ;; esac
	if [ "$tasks" -gt "$max" ]; then
		least=$(((n + max - 1) / max))
		size=$((size + 1))
		[ "$size" -lt "$least" ] && size=$least
		while tasks=$(pack "$size") && [ "$tasks" -gt "$max" ]; do
			size=$((size + 1))
		done
		echo "$me: SLURM_BATCH raised to $size: the cluster's job arrays take at most $max tasks"
	fi

	cat > "$job/job.sh" <<-EOF
	#!/bin/sh
	# A sweep's job array, made by $me; task i makes the points in points.i.
	exec "$0" --task "$job"
	EOF
	echo "$me: $(count "$n" point) in $(count "$tasks" task) of up to $size, logs in $job"
	start=$(date +%s)
	# shellcheck disable=SC2086 # SLURM_ARGS are words
	id=$(sbatch --parsable --array="0-$((tasks - 1))" \
		--job-name="sweep-${SWEEP_DIR##*/}" --chdir="$SWEEP_DIR" \
		--output="$job/task-%a.log" --export=ALL --cpus-per-task="$cpus" \
		${SLURM_PARTITION:+--partition="$SLURM_PARTITION"} \
		${SLURM_TIME:+--time="$SLURM_TIME"} \
		$SLURM_ARGS "$job/job.sh") || die "sbatch failed to submit the job"
	id=${id%%;*}
	trap 'cancel' INT TERM HUP
	wait_job
	trap - INT TERM HUP

	pending "$job/after" > "$job/left" || exit 1
	left=$(wc -l < "$job/left")
	if [ "$left" -eq 0 ]; then
		echo "$me: job $id: $(count "$n" point) done in $(($(date +%s) - start)) s"
		rm -rf "$job"
		rmdir "$SWEEP_OUT/slurm" 2>/dev/null
		return 0
	fi
	echo "$me: job $id: $left of $(count "$n" point) not made (failed, timed out or cancelled); make again to run them:" >&2
	while read -r _ file; do
		log=$(grep -lx "$file" "$job"/points.* | sed 's/.*points\./task-/; s/$/.log/' | head -n 1)
		echo "  $file${log:+ (log: $job/$log)}" >&2
	done < "$job/left"
	exit 1
}

# Packs the points into tasks of up to $1 points, task i's in points.i,
# one a line: whole groups while they fit, a group larger than a task
# split over tasks. Prints the number of tasks.
pack() {
	rm -f "$job"/points.*
	awk -v size="$1" -v dir="$job" '
	{ g[NR] = $1; f[NR] = $2; count[$1]++ }
	END {
		t = 0; k = 0
		for (i = 1; i <= NR; i++) {
			if (k > 0 && (k == size || (g[i] != g[i - 1] && k + count[g[i]] > size))) {
				close(dir "/points." t)
				t++; k = 0
			}
			print f[i] > (dir "/points." t)
			k++
		}
		print t + 1
	}' "$job/points"
}

# Wait for job $id to leave the queue. Not sbatch --wait: it polls at
# 2, 10, 42 s ..., long for a short sweep. Here every second for the first
# half minute, then less often, up to every 10 s.
wait_job() {
	t=0
	said=
	while :; do
		if q=$(squeue -h -j "$id" -o %i 2> "$job/squeue.err"); then
			[ -z "$q" ] && return 0
			said=
		elif grep -q 'Invalid job id' "$job/squeue.err"; then
			return 0
		elif [ -z "$said" ]; then
			# Say once that the controller does not answer; keep asking.
			echo "$me: job $id: squeue failed, still waiting: $(tail -n 1 "$job/squeue.err")" >&2
			said=1
		fi
		dt=$((1 + t / 30))
		[ $dt -gt 10 ] && dt=10
		sleep $dt
		t=$((t + dt))
	done
}

# Interrupted: cancel the job, so nothing keeps running behind our back.
cancel() {
	scancel "$id" && echo "$me: job $id cancelled" >&2
	exit 130
}

task() {
	dir=$1
	points="$dir/points.${SLURM_ARRAY_TASK_ID:?not in a Slurm job array}"
	[ -r "$points" ] || die "$points: no such file (is $dir on a filesystem the nodes share?)"
	echo "$me: task $SLURM_ARRAY_TASK_ID on $(uname -n): $(count "$(wc -l < "$points")" point)"
	# shellcheck disable=SC2046 # file names are words
	study_make -k -j"${SLURM_CPUS_PER_TASK:-1}" $(cat "$points")
}

check() {
	target=$1
	shift 2
	[ -e "$target" ] || die "$target: not made by the Slurm job; make again to run it"
	for p in "$@"; do
		# shellcheck disable=SC3013 # dash and bash have -nt
		[ "$p" -nt "$target" ] && die "$target: older than $p: not remade by the Slurm job; make again to run it"
	done
	exit 0
}

case $1 in
--batch) batch ;;
--task) task "$2" ;;
-*) die "unknown option $1" ;;
*) [ $# -ge 2 ] || die "usage: $me TARGET COMMAND [PREREQUISITE...]"; check "$@" ;;
esac
