#!/usr/bin/env bats
# The sweeps of pipelines/ on a real Slurm (LAUNCH=slurm, that is
# pipelines/launch-slurm.sh): setup_file uses Slurm and munge when they are
# installed, installs them only when asked to (MESHPIPE_INSTALL_SLURM=1, as
# root, with apt-get: CI does; a user's machine is not changed unasked),
# and brings up a private single-node cluster
# (tests/slurm/up.sh). The small sweep of tests/slurm/Makefile then runs
# through it and locally, and the CSVs must be byte-identical; points that
# fail or are cancelled under Slurm leave no file and run again next time.
# Where Slurm cannot be had, every test is skipped and says why.

setup_file() {
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	export TOP SLURM_SKIP=
	why=$(slurm_install) || { SLURM_SKIP="slurm not available: $why"; return 0; }
	if [ "$(id -u)" != 0 ]; then
		SLURM_SKIP="slurm not available: starting slurmctld and slurmd needs root"
		return 0
	fi
	# Short (a socket path has a limit) and reachable by the munge user.
	SLURM_TEST_DIR=$(mktemp -d /tmp/meshpipe-slurm.XXXXXX)
	chmod 755 "$SLURM_TEST_DIR"
	export SLURM_TEST_DIR SLURM_CONF="$SLURM_TEST_DIR/cluster/slurm.conf"
	mkdir "$SLURM_TEST_DIR/cluster"
	if ! "$TOP/tests/slurm/up.sh" "$SLURM_TEST_DIR/cluster"; then
		"$TOP/tests/slurm/down.sh" "$SLURM_TEST_DIR/cluster"
		return 1
	fi
	# The reference: the same sweep, run locally.
	make -C "$TOP/tests/slurm" -j2 sweep OUT="$SLURM_TEST_DIR/local" >&2
}

teardown_file() {
	[ -n "${SLURM_TEST_DIR:-}" ] || return 0
	"$TOP/tests/slurm/down.sh" "$SLURM_TEST_DIR/cluster"
	rm -rf "$SLURM_TEST_DIR"
}

# Installs slurm-wlm and munge when missing and MESHPIPE_INSTALL_SLURM=1;
# otherwise, or on failure, prints why not.
slurm_install() {
	PATH=$PATH:/usr/sbin
	missing=
	for p in sbatch squeue sinfo scancel slurmctld slurmd munged; do
		command -v $p >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "${MESHPIPE_INSTALL_SLURM:-0}" != 1 ]; then
		echo "not installed (no$missing); MESHPIPE_INSTALL_SLURM=1 lets make check install slurm-wlm and munge"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "not installed (no$missing), and installing slurm-wlm and munge needs root"
		return 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "not installed (no$missing), and no apt-get to install slurm-wlm and munge"
		return 1
	fi
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends slurm-wlm munge >"$log" 2>&1; then
		apt-get update -q >>"$log" 2>&1
		if ! apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$log" 2>&1; then
			echo "apt-get install slurm-wlm munge failed: $(grep -E '^(E|W):' "$log" | tail -n 1)"
			rm -f "$log"
			return 1
		fi
	fi
	rm -f "$log"
}

setup() {
	[ -z "$SLURM_SKIP" ] || skip "$SLURM_SKIP"
	D=$SLURM_TEST_DIR
	sweep() {
		make -C "$TOP/tests/slurm" --no-print-directory sweep "$@"
	}
}

# No file left under a temporary name in $1.
no_tmp() {
	[ -z "$(find "$1" -name '*.tmp*')" ]
}

# Waits up to 60 s for $1 to match a file.
wait_for() {
	for _ in $(seq 120); do
		compgen -G "$1" >/dev/null && return 0
		sleep 0.5
	done
	echo "no $1 after 60 s" >&2
	return 1
}

@test "slurm: a sweep through Slurm gives the same CSV as a local run" {
	run sweep LAUNCH=slurm OUT="$D/slurm"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"launch-slurm.sh: 18 points in 3 tasks of up to 8, logs in $D/slurm/slurm/job."* ]]
	[[ $output == *"launch-slurm.sh: job "*": 18 points done in "* ]]
	cmp "$D/local/results.csv" "$D/slurm/results.csv"
	no_tmp "$D/slurm"
	[ ! -e "$D/slurm/slurm" ]
	# Everything cached: nothing goes to Slurm the second time.
	run sweep LAUNCH=slurm OUT="$D/slurm"
	[ "$status" -eq 0 ]
	[[ $output != *launch-slurm.sh* ]]
}

@test "slurm: SLURM_BATCH sets the points per task; bad options are refused" {
	run sweep LAUNCH=slurm OUT="$D/batch" SLURM_BATCH=0
	[ "$status" -ne 0 ]
	[[ $output == *"launch-slurm.sh: SLURM_BATCH=0: want a number of points, 1 or more"* ]]
	run sweep LAUNCH=slurm OUT="$D/batch" SLURM_PARTITION=nosuch
	[ "$status" -ne 0 ]
	[[ $output == *"sbatch: error: invalid partition specified: nosuch"* ]]
	[[ $output == *"launch-slurm.sh: sbatch failed to submit the job"* ]]
	[ ! -e "$D/batch/stat" ]
	run sweep LAUNCH=slurm OUT="$D/batch" SLURM_BATCH=9 SLURM_PARTITION=debug
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"launch-slurm.sh: 18 points in 2 tasks of up to 9,"* ]]
	cmp "$D/local/results.csv" "$D/batch/results.csv"
}

@test "slurm: a point that fails under Slurm leaves no file and runs again next time" {
	run sweep LAUNCH=slurm OUT="$D/fail" FAIL=best_0.5_2
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"1 of 18 points not made (failed, timed out or cancelled); make again to run them:"* ]]
	[[ $output == *"  $D/fail/stat/best_0.5_2.csv (log: $D/fail/slurm/job."*"/task-1.log)"* ]]
	[ ! -e "$D/fail/stat/best_0.5_2.csv" ]
	[ ! -e "$D/fail/results.csv" ]
	[ "$(ls "$D/fail/stat" | wc -l)" -eq 17 ]
	no_tmp "$D/fail"
	grep -q "best_0.5_2.csv] Error 1" "$D"/fail/slurm/job.*/task-1.log
	run sweep LAUNCH=slurm OUT="$D/fail"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"launch-slurm.sh: 1 point in 1 task of up to 8,"* ]]
	cmp "$D/local/results.csv" "$D/fail/results.csv"
}

@test "slurm: a cancelled job's points are not recorded; a local make finishes the sweep" {
	timeout 120 make -C "$TOP/tests/slurm" sweep LAUNCH=slurm OUT="$D/cancel" \
		HANG=best_0.5_2 >"$D/cancel.log" 2>&1 3>&- &
	pid=$!
	wait_for "$D/cancel/stat/best_0.5_2.csv.tmp.*"
	scancel --quiet --partition=debug
	status=0
	wait $pid || status=$?
	cat "$D/cancel.log"
	[ "$status" -ne 0 ]
	grep -q "not made (failed, timed out or cancelled)" "$D/cancel.log"
	grep -q "^  $D/cancel/stat/best_0.5_2.csv (log: " "$D/cancel.log"
	[ ! -e "$D/cancel/stat/best_0.5_2.csv" ]
	[ ! -e "$D/cancel/results.csv" ]
	no_tmp "$D/cancel"
	run sweep OUT="$D/cancel"
	[ "$status" -eq 0 ]
	cmp "$D/local/results.csv" "$D/cancel/results.csv"
}

@test "slurm: interrupting make cancels its job" {
	# As a terminal's Ctrl-C does: SIGINT to make's process group.
	perl -e '$SIG{INT} = "DEFAULT"; setpgrp; exec @ARGV or die' \
		timeout 120 make -C "$TOP/tests/slurm" sweep LAUNCH=slurm OUT="$D/int" \
		HANG=best_0.5_2 >"$D/int.log" 2>&1 3>&- &
	pid=$!
	wait_for "$D/int/stat/best_0.5_2.csv.tmp.*"
	kill -INT -- -$pid
	status=0
	wait $pid || status=$?
	cat "$D/int.log"
	[ "$status" -ne 0 ]
	grep -q "launch-slurm.sh: job [0-9]* cancelled" "$D/int.log"
	for _ in $(seq 40); do
		[ -z "$(squeue -h)" ] && break
		sleep 0.5
	done
	[ -z "$(squeue -h)" ]
	[ ! -e "$D/int/stat/best_0.5_2.csv" ]
	no_tmp "$D/int"
}
