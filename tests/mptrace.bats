#!/usr/bin/env bats
# Tests of mptrace, the MPI recorder: the test programs of tests/mpi
# recorded at 4, 8 and 16 ranks, the archives read back with otf2-print
# (OTF2's own reader, without warnings) and counted by
# tests/otf2count.awk, independently of the library that wrote them,
# against the programs' closed forms; Fortran (mpi and mpi_f08 modules);
# bounded buffers; errors; a normal user; and, once wlgen reads OTF2,
# replay through netrun. Tests that need MPI skip, saying so, when it is
# not installed (make deps installs it when it can).

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	PATH="$TOP/tools/mptrace:$TOP/tools:$PATH"
	T=$BATS_TEST_TMPDIR
	MPIRUN="mpirun --oversubscribe"
	[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
	STENCIL=$TOP/tests/mpi/stencil
	COUNT=$TOP/tests/otf2count.awk
}

need_mpi() {
	command -v mpirun >/dev/null 2>&1 || skip "MPI is not installed (make deps installs openmpi-bin)"
	command -v otf2-print >/dev/null 2>&1 || skip "otf2-print is not installed (make deps installs otf2-tools)"
	[ -f "$TOP/tools/mptrace/libmptrace.so" ] || skip "libmptrace.so was not built (needs MPI and OTF2; make deps)"
	[ -x "$STENCIL" ] || skip "tests/mpi/stencil was not built (make mpi-tests)"
}

# count DIR: the archive's figures (otf2count.awk) into $T/count, after
# otf2-print read it without a warning.
count() {
	otf2-print --silent -Werror "$1/traces.otf2" >"$T/silent" 2>&1 || {
		cat "$T/silent"
		return 1
	}
	otf2-print "$1/traces.otf2" | awk -f "$COUNT" >"$T/count"
}

# get NAME: a figure of the last count (0 when absent).
get() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$T/count"
}

# expect NAME VALUE: the figure must be VALUE.
expect() {
	local v
	v=$(get "$1")
	[ "$v" = "$2" ] || {
		echo "$1: $v, expected $2"
		return 1
	}
}

# stencil_closed P N B D: the 2-D or 1-D stencil's closed form for P ranks,
# N steps and B bytes: 2 D P N messages of B bytes; N allreduces of one
# double per rank (each counted as P transfers of 8 bytes each way);
# one broadcast of 3 ints from rank 0 (it sends P * 12, everyone
# receives 12); one reduce of a double to rank 0 (everyone sends 8, it
# receives P * 8); one barrier; per rank 4 communicator creations (MPI_Init,
# the split, the grid, the forward split) and 4 destructions.
stencil_closed() {
	local p=$1 n=$2 b=$3 d=$4
	local m=$((2 * d * p * n))
	expect sends "$m"
	expect recvs "$m"
	expect send_bytes $((m * b))
	expect recv_bytes $((m * b))
	expect unmatched 0
	expect open_requests 0
	expect unbalanced 0
	expect backwards 0
	expect coll_ALLREDUCE $((p * n))
	expect coll_ALLREDUCE_sent $((p * n * p * 8))
	expect coll_ALLREDUCE_recv $((p * n * p * 8))
	expect coll_BCAST "$p"
	expect coll_BCAST_sent $((p * 12))
	expect coll_BCAST_recv $((p * 12))
	expect coll_REDUCE "$p"
	expect coll_REDUCE_sent $((p * 8))
	expect coll_REDUCE_recv $((p * 8))
	expect coll_BARRIER "$p"
	expect coll_CREATE_HANDLE $((4 * p))
	expect coll_DESTROY_HANDLE $((4 * p))
}

# record P ARGS...: mptrace the stencil on P ranks into $T/a.
record() {
	local p=$1
	shift
	run mptrace -o "$T/a" -- $MPIRUN -np "$p" "$STENCIL" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "-h prints usage on stdout and exits 0" {
	run mptrace -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == usage:* ]]
	[[ "$output" == *"-o dir"* ]]
}

@test "usage errors exit 2 with a one-line message" {
	run mptrace -- true
	[ "$status" -eq 2 ]
	[ "$output" = "mptrace: -o dir is required; try 'mptrace -h'" ]
	run mptrace -o "$T/x"
	[ "$status" -eq 2 ]
	[ "$output" = "mptrace: no command to run; try 'mptrace -h'" ]
	run mptrace -b 12q -o "$T/x" true
	[ "$status" -eq 2 ]
	[[ "$output" == "mptrace: -b: '12q' is not a size;"* ]]
	run mptrace -b 1k -o "$T/x" true
	[ "$status" -eq 2 ]
	[[ "$output" == "mptrace: -b: 1k is out of range 256k..4G;"* ]]
	run mptrace -x -o "$T/x" true
	[ "$status" -eq 2 ]
	[ ! -e "$T/x" ]
}

@test "without its library (built without MPI) mptrace says so and exits 1" {
	mkdir "$T/bin"
	cp "$TOP/tools/mptrace/mptrace" "$T/bin/"
	run "$T/bin/mptrace" -o "$T/x" -- true
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "mptrace: libmptrace.so: not found (looked at "*"built without MPI"* ]]
	[ ! -e "$T/x" ]
}

@test "a library whose MPI is missing: a one-line error, exit 1" {
	command -v cc >/dev/null 2>&1 || skip "no C compiler"
	mkdir "$T/bin"
	cp "$TOP/tools/mptrace/mptrace" "$T/bin/"
	# A stand-in libmptrace.so that needs a library no longer there, as
	# the real one needs libmpi.
	echo 'int missing_mpi(void) { return 0; }' >"$T/m.c"
	echo 'int missing_mpi(void); int use(void) { return missing_mpi(); }' >"$T/l.c"
	cc -shared -fPIC -o "$T/libmissingmpi.so" "$T/m.c"
	cc -shared -fPIC -o "$T/bin/libmptrace.so" "$T/l.c" -L"$T" -lmissingmpi
	rm "$T/libmissingmpi.so"
	run "$T/bin/mptrace" -o "$T/x" -- true
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "mptrace: $T/bin/libmptrace.so: cannot be loaded (is Open MPI installed?): "*libmissingmpi.so* ]]
	[ ! -e "$T/x" ]
}

@test "make install puts the launcher and its library where the launcher finds it" {
	need_mpi
	run make -s -C "$TOP" install-files DESTDIR="$T/d" PREFIX=/opt/mp
	[ "$status" -eq 0 ]
	[ -x "$T/d/opt/mp/bin/mptrace" ]
	[ -f "$T/d/opt/mp/lib/meshpipe/libmptrace.so" ]
	[ -f "$T/d/opt/mp/share/man/man1/mptrace.1" ]
	# Found from the launcher's place: it loads, and runs the command.
	run "$T/d/opt/mp/bin/mptrace" -o "$T/x" -- true
	[ "$status" -eq 1 ]
	[[ "$output" == "mptrace: true: no MPI rank was recorded"* ]]
	run make -s -C "$TOP" uninstall DESTDIR="$T/d" PREFIX=/opt/mp
	[ "$status" -eq 0 ]
	run find "$T/d" -type f
	[ "$output" = "" ]
}

@test "mpirun missing: a one-line error naming it, exit 1" {
	need_mpi
	run env PATH="$TOP/tools/mptrace:/nonexistent" mptrace -o "$T/x" -- mpirun -np 2 "$STENCIL"
	[ "$status" -eq 1 ]
	[ "$output" = "mptrace: mpirun: command not found (is Open MPI installed? make deps installs it)" ]
	[ ! -e "$T/x" ]
}

@test "not an MPI program: nothing recorded, a one-line error, exit 1" {
	need_mpi
	run mptrace -o "$T/x" -- true
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "mptrace: true: no MPI rank was recorded (not an MPI program"* ]]
	[ ! -e "$T/x" ]
	# under mpirun too
	run mptrace -o "$T/x" -- $MPIRUN -np 2 true
	[ "$status" -eq 1 ]
	[[ "${lines[${#lines[@]}-1]}" == "mptrace: mpirun: no MPI rank was recorded"* ]]
	[ ! -e "$T/x" ]
}

@test "an existing output directory is refused; -f replaces an archive, nothing else" {
	need_mpi
	mkdir "$T/a"
	run mptrace -o "$T/a" -- true
	[ "$status" -eq 1 ]
	[ "$output" = "mptrace: $T/a: exists (-f replaces an archive there)" ]
	rmdir "$T/a"
	record 2 -n 2
	run mptrace -f -o "$T/a" -- $MPIRUN -np 2 "$STENCIL" -n 3
	[ "$status" -eq 0 ]
	count "$T/a"
	expect sends $((2 * 2 * 2 * 3))
	# Not an archive: left alone.
	echo keep >"$T/a/notes"
	run mptrace -f -o "$T/a" -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"holds $T/a/notes, which is not part of an mptrace archive; not replaced" ]]
	[ -f "$T/a/notes" ] && [ -f "$T/a/traces.otf2" ]
	touch "$T/plain"
	run mptrace -f -o "$T/plain" -- true
	[ "$status" -eq 1 ]
	[ "$output" = "mptrace: $T/plain: exists and is not a directory" ]
}

@test "stencil on 4 ranks: the archive reads cleanly and holds the closed form" {
	need_mpi
	record 4 -n 6 -b 1000
	count "$T/a"
	stencil_closed 4 6 1000 2
}

@test "stencil on 8 ranks: closed form; the account's call counts are the trace's" {
	need_mpi
	record 8 -n 5 -b 256
	count "$T/a"
	stencil_closed 8 5 256 2
	# mptrace.txt counts calls as they happen; the trace's ENTER events
	# are counted here from otf2-print.
	grep -q '^status: finished$' "$T/a/mptrace.txt"
	grep -q '^ranks: 8$' "$T/a/mptrace.txt"
	grep -q '^complete: yes$' "$T/a/mptrace.txt"
	grep '^calls: ' "$T/a/mptrace.txt" | while read -r _ name n; do
		[ "$(get "enter_$name")" = "$n" ] || { echo "$name: $n in the account"; exit 1; }
	done
	[ "$(grep -c '^calls: ' "$T/a/mptrace.txt")" -ge 15 ]
	# Anchor, 8 locations, the communicators with their groups.
	otf2-print -A "$T/a/traces.otf2" >"$T/defs"
	grep -q '^Number of locations  *8$' "$T/defs"
	grep -q '^Creator  *mptrace (meshpipe ' "$T/defs"
	grep -q 'OTF2::MPI_COMMUNICATION_COMPLETE' "$T/defs"
	[ "$(grep -c '^COMM ' "$T/defs")" -eq 5 ]
	# A parent is defined before its children (the forward split's rank
	# 0 is world rank 0, its parent's is world rank 7), and the forward
	# split shares MPI_COMM_WORLD's group.
	awk '/^COMM / && /Parent: .*<[0-9]+>/ {
		p = $0; sub(/.*Parent: [^<]*</, "", p); sub(/>.*/, "", p)
		if (p + 0 >= $2 + 0) bad++
	} END { exit bad > 0 }' "$T/defs"
	grep -q '^COMM  *[0-9]*  Name: "" <0>, Group: "" <1>, Parent: "" <2>' "$T/defs"
	[ "$(grep -c '^LOCATION ' "$T/defs")" -eq 8 ]
	grep -q '^CLOCK_PROPERTIES  *Ticks per Seconds: 1000000000,' "$T/defs"
	# The split's group numbers the world's ranks backwards.
	grep -q '^GROUP .*COMM_GROUP.*8 Members: 7 (.*<7>), 6 (' "$T/defs"
}

@test "stencil on 16 ranks: the archive reads cleanly and holds the closed form" {
	need_mpi
	record 16 -n 3 -b 64 -w 0
	count "$T/a"
	stencil_closed 16 3 64 2
}

@test "1-D grid with clock offsets measured; persistent requests and Testall polling: closed form" {
	need_mpi
	# MPTRACE_SYNC=always: every rank measures its clock's offset to rank
	# 0's, as ranks on other hosts do; OTF2's reader applies them.
	MPTRACE_SYNC=always record 4 -d 1 -n 4 -b 128
	count "$T/a"
	stencil_closed 4 4 128 1
	[ "$(otf2-print -C "$T/a/traces.otf2" | grep -c '^CLOCK_OFFSET ')" -eq 8 ]
	rm -rf "$T/a"
	record 4 -p -t -n 4 -b 128
	count "$T/a"
	stencil_closed 4 4 128 2
	expect enter_MPI_Startall 16
	expect enter_MPI_Send_init 8
	expect enter_MPI_Request_free 16
	[ "$(get enter_MPI_Testall)" -ge 16 ]
}

@test "a small buffer is flushed to disk as it fills, and the archive stays whole" {
	need_mpi
	run mptrace -b 256k -o "$T/a" -- $MPIRUN -np 2 "$STENCIL" -n 3000 -b 8 -w 0
	[ "$status" -eq 0 ]
	count "$T/a"
	stencil_closed 2 3000 8 2
	[ "$(get flushes)" -ge 4 ]
	grep -q '^buffer: 262144 bytes per rank' "$T/a/mptrace.txt"
	f=$(sed -n 's/^flushes: //p' "$T/a/mptrace.txt")
	[ "$f" -eq "$(get flushes)" ]
}

@test "timestamps: nanoseconds of a monotonic clock, no coarser than MPI_Wtick" {
	need_mpi
	record 2 -n 2 -T
	tick=$(printf '%s\n' "$output" | sed -n 's/^stencil: MPI_Wtick //p')
	[ -n "$tick" ]
	otf2-print -G "$T/a/traces.otf2" | grep -q 'Ticks per Seconds: 1000000000,'
	awk -v t="$tick" 'BEGIN { exit !(1e9 * t >= 1) }'
}

@test "a program that stops before MPI_Finalize: the recording is incomplete, exit 1" {
	need_mpi
	run mptrace -o "$T/a" -- $MPIRUN -np 2 "$STENCIL" -A -n 3
	[ "$status" -eq 1 ]
	[[ "$output" == *"mptrace: $T/a: the recording is incomplete (the program did not reach MPI_Finalize)"* ]]
}

@test "two MPI runs under one mptrace: the first is recorded, the second says why not" {
	need_mpi
	run mptrace -o "$T/a" -- sh -c "$MPIRUN -np 2 '$STENCIL' -n 2 && $MPIRUN -np 2 '$STENCIL' -n 3"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mptrace: rank 0: $T/a already holds a recording"* ]]
	count "$T/a"
	stencil_closed 2 2 1024 2
}

@test "Fortran, mpi module: messages, bytes and collectives in closed form" {
	need_mpi
	[ -x "$TOP/tests/mpi/fring" ] || skip "no Fortran compiler (make deps installs gfortran)"
	run mptrace -o "$T/a" -- $MPIRUN -np 4 "$TOP/tests/mpi/fring" 3
	[ "$status" -eq 0 ]
	count "$T/a"
	# 4 messages per rank and step: 3 of 256 doubles, 1 of 8.
	expect sends 48
	expect recvs 48
	expect send_bytes $((4 * 3 * (3 * 2048 + 64)))
	expect unmatched 0
	expect open_requests 0
	expect unbalanced 0
	expect coll_ALLREDUCE 12
	expect coll_ALLREDUCE_sent $((12 * 4 * 8))
	expect coll_BARRIER 4
	expect coll_CREATE_HANDLE 8
	expect enter_MPI_Waitall 12
	expect enter_MPI_Comm_rank 8
}

@test "Fortran, mpi_f08 module: the same" {
	need_mpi
	[ -x "$TOP/tests/mpi/fring08" ] || skip "no Fortran compiler (make deps installs gfortran)"
	run mptrace -o "$T/a" -- $MPIRUN -np 4 "$TOP/tests/mpi/fring08" 3
	[ "$status" -eq 0 ]
	count "$T/a"
	expect sends 48
	expect send_bytes $((4 * 3 * (3 * 2048 + 64)))
	expect unmatched 0
	expect open_requests 0
	expect coll_ALLREDUCE 12
	expect enter_MPI_Recv 12
}

@test "a normal user records too" {
	need_mpi
	[ "$(id -u)" = 0 ] || skip "running as a normal user already: every other test is one"
	command -v runuser >/dev/null 2>&1 || skip "runuser is not installed"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	# A directory nobody can reach, with copies of what it runs.
	U=$(mktemp -d /tmp/mptrace-user.XXXXXX)
	mkdir "$U/bin"
	cp "$TOP/tools/mptrace/mptrace" "$TOP/tools/mptrace/libmptrace.so" "$STENCIL" "$U/bin/"
	chmod -R a+rX "$U"
	chmod 777 "$U"
	run runuser -u nobody -- env HOME="$U" PATH="$U/bin:$PATH" \
		mptrace -o "$U/a" -- mpirun --oversubscribe -np 4 "$U/bin/stencil" -n 3
	echo "$output"
	owner=$(stat -c %U "$U/a/traces.otf2" 2>/dev/null || echo none)
	cp -r "$U/a" "$T/a" 2>/dev/null || true
	rm -rf "$U"
	[ "$status" -eq 0 ]
	[ "$owner" = nobody ]
	count "$T/a"
	stencil_closed 4 3 1024 2
}

@test "the counter reads Score-P's archives alike (sst-macro, 10 ranks)" {
	command -v otf2-print >/dev/null 2>&1 || skip "otf2-print is not installed"
	a="$BATS_TEST_DIRNAME/../../shared/external/otf2/sst-macro_mpi-coverage-10ranks"
	[ -r "$a/traces.otf2" ] || skip "the external Score-P archives are not beside the checkout"
	otf2-print "$a/traces.otf2" 2>/dev/null | awk -f "$COUNT" >"$T/count"
	expect sends 1440
	expect recvs 1440
	expect unmatched 0
	expect open_requests 0
	expect unbalanced 0
}

# Replay needs meshpipe's OTF2 reader (wlgen --otf2).
need_reader() {
	wlgen -h 2>&1 | grep -q -- '--otf2' || skip "wlgen has no --otf2 (meshpipe's OTF2 reader is not in this build)"
}

@test "replay: every recorded message is delivered on the 8x8 torus" {
	need_mpi
	need_reader
	record 8 -n 4 -b 512
	wlgen --otf2 "$T/a/traces.otf2" --preset torus -o "$T/w.mps"
	msgs=$(mpcat -n "$T/w.mps" | awk '$1 == "msg" { print $2 }')
	[ "$msgs" -ge $((2 * 2 * 8 * 4)) ]
	netrun --preset torus -o "$T/d.mps" "$T/w.mps"
	dlv=$(mpcat -n "$T/d.mps" | awk '$1 == "dlv" { print $2 }')
	[ "$dlv" -eq "$msgs" ]
	run lstat "$T/d.mps"
	[[ "$output" == *"# status: ok"* ]]
}

@test "replay: the Fortran ring is delivered too" {
	need_mpi
	need_reader
	[ -x "$TOP/tests/mpi/fring" ] || skip "no Fortran compiler (make deps installs gfortran)"
	run mptrace -o "$T/a" -- $MPIRUN -np 4 "$TOP/tests/mpi/fring" 3
	[ "$status" -eq 0 ]
	wlgen --otf2 "$T/a/traces.otf2" --preset torus -o "$T/w.mps"
	msgs=$(mpcat -n "$T/w.mps" | awk '$1 == "msg" { print $2 }')
	[ "$msgs" -ge 48 ]
	netrun --preset torus -o "$T/d.mps" "$T/w.mps"
	dlv=$(mpcat -n "$T/d.mps" | awk '$1 == "dlv" { print $2 }')
	[ "$dlv" -eq "$msgs" ]
}
