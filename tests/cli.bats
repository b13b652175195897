#!/usr/bin/env bats
# What every program does at the edges of its command line and its output:
# one-line usage errors, terminals, a closed pipe, and -o files that are
# never left half written.

bats_require_minimum_version 1.5.0

setup() {
	PATH="$BATS_TEST_DIRNAME/../tools:$PATH"
	T=$BATS_TEST_TMPDIR
	PROGS="wlgen sched netrun lstat mpcat hexflow swsim"
}

@test "bad usage is one line 'prog: what; try 'prog -h'', exit 2, nothing on stdout" {
	for p in $PROGS; do
		for args in "--bogus" "-Z" "--help=3"; do
			run --separate-stderr $p $args
			[ "$status" -eq 2 ] || { echo "$p $args: status $status"; return 1; }
			[ -z "$output" ] || { echo "$p $args: stdout: $output"; return 1; }
			[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$p $args: $stderr"; return 1; }
			[[ "$stderr" == "$p: "*"; try '$p -h'" ]] || { echo "$p $args: $stderr"; return 1; }
		done
	done
	run --separate-stderr wlgen --load
	[ "$stderr" = "wlgen: option '--load' needs a value; try 'wlgen -h'" ]
	run --separate-stderr sched -a
	[ "$stderr" = "sched: option '-a' needs a value; try 'sched -h'" ]
	run --separate-stderr netrun --buffers x
	[ "$status" -eq 2 ]
	[ "$stderr" = "netrun: --buffers: 'x' is not an unsigned integer; try 'netrun -h'" ]
	run --separate-stderr lstat --by colour
	[ "$stderr" = "lstat: --by: unknown grouping 'colour'; try 'lstat -h'" ]
	run --separate-stderr mpcat -c -C
	[ "$stderr" = "mpcat: -c, -C and -H/-n are different modes: choose one; try 'mpcat -h'" ]
	run --separate-stderr hexflow --bogus
	[ "$stderr" = "hexflow: unknown option '--bogus'; try 'hexflow -h'" ]
}

@test "readers refuse a terminal on stdin; binary writers a terminal on stdout unless forced" {
	command -v script >/dev/null || skip "no script(1) to make a terminal"
	# script(1) runs the command on a pseudo-terminal.
	for cmd in "netrun" "sched" "lstat" "mpcat -c"; do
		p=${cmd%% *}
		run script -qec "$cmd" /dev/null < /dev/null
		[ "$status" -eq 2 ]
		[[ "$output" == "$p: standard input is a terminal: "*"; try '$p -h'"* ]]
	done
	wlgen --load 0.3 -n 20 > "$T/w.mps"
	run script -qec "wlgen --load 0.3 -n 20" /dev/null < /dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == "wlgen: standard output is a terminal: wlgen writes a binary stream; pipe it, use -o FILE, or force with -f; try 'wlgen -h'"* ]]
	for cmd in "sched $T/w.mps" "netrun $T/w.mps" "mpcat -C /dev/null"; do
		run script -qec "$cmd" /dev/null < /dev/null
		[ "$status" -eq 2 ] || { echo "$cmd: $status $output"; return 1; }
		[[ "$output" == *"standard output is a terminal"* ]]
	done
	# Forced, it writes; and the text writers never ask.
	run script -qec "wlgen --load 0.3 -n 20 -f" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	run script -qec "sched --force $T/w.mps" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	run script -qec "mpcat -c $T/w.mps" /dev/null < /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == "class,group,route,src,dst"* ]]
}

@test "a closed pipe ends every program quietly with the status of SIGPIPE (141)" {
	run --separate-stderr bash -c 'wlgen --load 0.5 -n 200000 | head -c 10 > /dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	wlgen --load 0.3 -n 200 > "$T/w.mps"
	netrun "$T/w.mps" > "$T/d.mps"
	# Small outputs fit a pipe's buffer: close the reading end first.
	while IFS='|' read -r cmd; do
		[ -n "$cmd" ] || continue
		run --separate-stderr perl -e 'pipe(R, W) or die; close R;
			open(STDOUT, ">&W") or die; close W; exec @ARGV' $cmd
		[ "$status" -eq 141 ] && [ -z "$stderr" ] ||
			{ echo "$cmd: $status: $stderr"; return 1; }
	done <<EOF
wlgen -n 10 --load 0.5
sched $T/w.mps
netrun -q $T/w.mps
lstat $T/d.mps
mpcat -c $T/d.mps
mpcat $T/d.mps
hexflow
swsim --ports 4 --load 0.2 --cycles 2000
EOF
}

@test "-o FILE: a failed run leaves an existing FILE as it was, and no temporary file" {
	wlgen --load 0.3 -n 200 > "$T/w.mps"
	echo old > "$T/out"
	# A stream cut short fails part way through.
	head -c 300 "$T/w.mps" > "$T/cut.mps"
	for cmd in "netrun -o $T/out $T/cut.mps" "sched -o $T/out $T/cut.mps" \
		"mpcat -o $T/out $T/cut.mps" "mpcat -c -o $T/out $T/cut.mps"; do
		run $cmd
		[ "$status" -eq 1 ] || { echo "$cmd: $status"; return 1; }
		[ "$(cat "$T/out")" = old ] || { echo "$cmd: overwrote"; return 1; }
	done
	run sh -c "ls -a '$T' | grep -c tmp"
	[ "$output" = 0 ]
	# Success replaces it.
	netrun -o "$T/out" "$T/w.mps"
	lstat -q "$T/out" > /dev/null
	[ "$(ls -a "$T" | grep -c tmp)" = 0 ]
}

@test "-o FILE: a signal leaves an existing FILE as it was, and no temporary file" {
	wlgen --load 0.3 -n 200 > "$T/w.mps"
	echo old > "$T/out"
	mkfifo "$T/fifo"
	# netrun reads the stream, then waits on the FIFO for another
	# (streams concatenate) while this shell holds its write end (opened
	# read-write, so opening does not block; the small stream fits the
	# pipe). The job closes bats' fd 3, so bats does not wait for it.
	exec 4<> "$T/fifo"
	cat "$T/w.mps" >&4
	netrun -o "$T/out" "$T/fifo" 3>&- 4>&- &
	pid=$!
	# Wait until netrun has its temporary file (or give up after 10 s).
	seen=0
	for i in $(seq 100); do
		ls "$T" | grep -q 'out\.tmp' && { seen=1; break; }
		sleep 0.1
	done
	[ "$seen" = 1 ]
	kill -TERM $pid
	st=0; wait $pid || st=$?
	exec 4>&-
	[ "$st" -eq 143 ]
	[ "$(cat "$T/out")" = old ]
	[ "$(ls -a "$T" | grep -c tmp)" = 0 ]
}
